import { batchWorkspaceId, childId } from "../../platform/arm/resource-id";
import type { BatchWorkspaceTarget, StackConfig } from "../stack/stack-config";
import { workspaceParamsOf } from "./read-params";
import { defineDataSource, inputsFromArmId, logicalName, type DataSourceInputs, type DataSourceInstance } from "./data-source";

/**
 * The Batch AI objects a stack names under `stackwarden:batch.workspaces`, read as data sources
 * in Pulumi: each workspace, its clusters, file servers and experiments, and all jobs of each
 * experiment as one (a resource per job would cost a plugin round trip each). The placements read
 * the workspaces', clusters' and file servers' locations from them in the policy pack.
 */

const WORKSPACE_INPUTS = ["subscriptionId", "resourceGroup", "workspace"];
const SEGMENTS = { workspace: "workspaces", cluster: "clusters", experiment: "experiments", fileServer: "fileServers" };
const workspaceOf = (i: DataSourceInputs) => ({ subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, workspace: i.workspace });
const workspaceId = (i: DataSourceInputs) => batchWorkspaceId(workspaceOf(i));
const clusterId = (i: DataSourceInputs) => childId(workspaceId(i), "clusters", i.cluster);
const fileServerId = (i: DataSourceInputs) => childId(workspaceId(i), "fileServers", i.fileServer);
const experimentId = (i: DataSourceInputs) => childId(workspaceId(i), "experiments", i.experiment);
const jobsId = (i: DataSourceInputs) => `${experimentId(i)}/jobs`;

/** One instance per workspace of the stack, or per child of each (`child` names its children and its input). */
function perWorkspace(
  stack: StackConfig,
  prefix: string,
  child?: { of: (w: BatchWorkspaceTarget) => string[] | undefined; input: string },
): DataSourceInstance[] {
  return stack.batch.workspaces.flatMap((w) => {
    const inputs = { subscriptionId: stack.subscriptionId, resourceGroup: w.resourceGroup, workspace: w.workspace };
    const name = `${prefix}-${logicalName(w.resourceGroup, w.workspace)}`;
    if (!child) return [{ name, inputs }];
    return (child.of(w) ?? []).map((c) => ({ name: `${name}-${c}`, inputs: { ...inputs, [child.input]: c } }));
  });
}

/** A Batch AI workspace (`workspaceResource`: the input `workspace` is its name). */
export const batchWorkspace = defineDataSource({
  token: "batchai:Workspace",
  title: "a Batch AI workspace",
  inputs: WORKSPACE_INPUTS,
  output: "workspaceResource",
  read: async (c, i, signal) => ({
    id: workspaceId(i),
    value: (await c.reads.read("Workspaces_Get", workspaceParamsOf(workspaceOf(i)), signal)).value,
  }),
  inputsFromId: inputsFromArmId(WORKSPACE_INPUTS, SEGMENTS, workspaceId),
  instances: (stack) => perWorkspace(stack, "batchai-workspace"),
});

/** A Batch AI cluster: allocation state, node counts (`clusterResource`). */
export const batchCluster = defineDataSource({
  token: "batchai:Cluster",
  title: "a Batch AI cluster",
  inputs: [...WORKSPACE_INPUTS, "cluster"],
  output: "clusterResource",
  read: async (c, i, signal) => ({
    id: clusterId(i),
    value: (await c.reads.read("Clusters_Get", { ...workspaceParamsOf(workspaceOf(i)), clusterName: i.cluster }, signal)).value,
  }),
  inputsFromId: inputsFromArmId([...WORKSPACE_INPUTS, "cluster"], SEGMENTS, clusterId),
  instances: (stack) => perWorkspace(stack, "batchai-cluster", { of: (w) => w.clusters, input: "cluster" }),
});

/** A Batch AI file server (`fileServerResource`). */
export const batchFileServer = defineDataSource({
  token: "batchai:FileServer",
  title: "a Batch AI file server",
  inputs: [...WORKSPACE_INPUTS, "fileServer"],
  output: "fileServerResource",
  read: async (c, i, signal) => ({
    id: fileServerId(i),
    value: (await c.reads.read("FileServers_Get", { ...workspaceParamsOf(workspaceOf(i)), fileServerName: i.fileServer }, signal)).value,
  }),
  inputsFromId: inputsFromArmId([...WORKSPACE_INPUTS, "fileServer"], SEGMENTS, fileServerId),
  instances: (stack) => perWorkspace(stack, "batchai-fileserver", { of: (w) => w.fileServers, input: "fileServer" }),
});

/** A Batch AI experiment (`experimentResource`). */
export const batchExperiment = defineDataSource({
  token: "batchai:Experiment",
  title: "a Batch AI experiment",
  inputs: [...WORKSPACE_INPUTS, "experiment"],
  output: "experimentResource",
  read: async (c, i, signal) => ({
    id: experimentId(i),
    value: (await c.reads.read("Experiments_Get", { ...workspaceParamsOf(workspaceOf(i)), experimentName: i.experiment }, signal)).value,
  }),
  inputsFromId: inputsFromArmId([...WORKSPACE_INPUTS, "experiment"], SEGMENTS, experimentId),
  instances: (stack) => perWorkspace(stack, "batchai-experiment", { of: (w) => w.experiments, input: "experiment" }),
});

/** All jobs of an experiment, as one data source (`jobs`, every page followed). */
export const batchJobs = defineDataSource({
  token: "batchai:Jobs",
  title: "the jobs of a Batch AI experiment",
  inputs: [...WORKSPACE_INPUTS, "experiment"],
  output: "jobs",
  read: async (c, i, signal) => ({
    id: jobsId(i),
    value: (await c.reads.read("Jobs_ListByExperiment", { ...workspaceParamsOf(workspaceOf(i)), experimentName: i.experiment }, signal))
      .value,
  }),
  inputsFromId: inputsFromArmId([...WORKSPACE_INPUTS, "experiment"], SEGMENTS, jobsId),
  instances: (stack) => perWorkspace(stack, "batchai-jobs", { of: (w) => w.experiments, input: "experiment" }),
});
