import type { CallTarget } from "../../platform/arm/arm-client";
import { answer, defineArmOperations } from "../../platform/arm/arm-operation";
import {
  BATCHAI_API_VERSION,
  BATCHAI_SPEC,
  type Cluster,
  type Experiment,
  type FileServer,
  type Job,
  type Operation,
  type Usage,
  type Workspace,
} from "./types";

type Params = Readonly<Record<string, string>>;

const HINT = "Check the names, or list what exists with listWorkspaces.";
const WORKSPACE =
  "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.BatchAI/workspaces/{workspaceName}";
const EXPERIMENT = `${WORKSPACE}/experiments/{experimentName}` as const;

/** `Batch AI workspace 'ws' (resource group 'rg', subscription 's')`. */
const workspaceLabel = (p: Params) =>
  `Batch AI workspace '${p.workspaceName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`;

/** What a 404 of a workspace's operation names: the workspace. */
const workspaceTarget = (p: Params): CallTarget => ({
  label: workspaceLabel(p),
  names: [p.resourceGroupName, p.workspaceName],
  hint: HINT,
});

/** What a 404 of a workspace child's operation names: the child (`clusterName` …) and its workspace. */
const childTarget =
  (what: string, param: string) =>
  (p: Params): CallTarget => ({
    label: `${what} '${p[param]}' of ${workspaceLabel(p)}`,
    names: [p.resourceGroupName, p.workspaceName, p[param]],
    hint: HINT,
  });

const OF_SPEC = { apiVersion: BATCHAI_API_VERSION, spec: BATCHAI_SPEC } as const;

/**
 * The Batch AI operations (Microsoft.BatchAI 2018-05-01, read-only), one row each (see
 * src/platform/arm/arm-operation.ts). `maxresults` is not sent, so the service's own page size
 * applies. Operations and usages are not ARM resources (no `id` to check).
 */
export const BATCHAI_OPERATIONS_TABLE = defineArmOperations({
  Operations_List: {
    ...OF_SPEC,
    path: "/providers/Microsoft.BatchAI/operations",
    schema: "/definitions/Operation",
    list: true,
    resource: false,
    answer: answer<Operation>(),
  },
  Usages_List: {
    ...OF_SPEC,
    path: "/subscriptions/{subscriptionId}/providers/Microsoft.BatchAI/locations/{location}/usages",
    schema: "/definitions/Usage",
    list: true,
    resource: false,
    target: (p) => ({ label: `usages of location '${p.location}' in subscription '${p.subscriptionId}'`, names: [p.location] }),
    answer: answer<Usage>(),
  },
  Workspaces_List: {
    ...OF_SPEC,
    path: "/subscriptions/{subscriptionId}/providers/Microsoft.BatchAI/workspaces",
    schema: "/definitions/Workspace",
    list: true,
    target: (p) => ({ label: `subscription '${p.subscriptionId}'`, names: [p.subscriptionId] }),
    answer: answer<Workspace>(),
  },
  Workspaces_ListByResourceGroup: {
    ...OF_SPEC,
    path: "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.BatchAI/workspaces",
    schema: "/definitions/Workspace",
    list: true,
    target: (p) => ({
      label: `resource group '${p.resourceGroupName}' (subscription '${p.subscriptionId}')`,
      names: [p.resourceGroupName],
    }),
    answer: answer<Workspace>(),
  },
  Workspaces_Get: { ...OF_SPEC, path: WORKSPACE, schema: "/definitions/Workspace", target: workspaceTarget, answer: answer<Workspace>() },
  Clusters_ListByWorkspace: {
    ...OF_SPEC,
    path: `${WORKSPACE}/clusters`,
    schema: "/definitions/Cluster",
    list: true,
    target: workspaceTarget,
    answer: answer<Cluster>(),
  },
  Clusters_Get: {
    ...OF_SPEC,
    path: `${WORKSPACE}/clusters/{clusterName}`,
    schema: "/definitions/Cluster",
    target: childTarget("cluster", "clusterName"),
    answer: answer<Cluster>(),
  },
  Experiments_ListByWorkspace: {
    ...OF_SPEC,
    path: `${WORKSPACE}/experiments`,
    schema: "/definitions/Experiment",
    list: true,
    target: workspaceTarget,
    answer: answer<Experiment>(),
  },
  Experiments_Get: {
    ...OF_SPEC,
    path: EXPERIMENT,
    schema: "/definitions/Experiment",
    target: childTarget("experiment", "experimentName"),
    answer: answer<Experiment>(),
  },
  Jobs_ListByExperiment: {
    ...OF_SPEC,
    path: `${EXPERIMENT}/jobs`,
    schema: "/definitions/Job",
    list: true,
    target: childTarget("experiment", "experimentName"),
    answer: answer<Job>(),
  },
  Jobs_Get: {
    ...OF_SPEC,
    path: `${EXPERIMENT}/jobs/{jobName}`,
    schema: "/definitions/Job",
    target: (p) => {
      const t = childTarget("experiment", "experimentName")(p);
      return { label: `job '${p.jobName}' of ${t.label}`, names: [...t.names, p.jobName], hint: HINT };
    },
    answer: answer<Job>(),
  },
  FileServers_ListByWorkspace: {
    ...OF_SPEC,
    path: `${WORKSPACE}/fileServers`,
    schema: "/definitions/FileServer",
    list: true,
    target: workspaceTarget,
    answer: answer<FileServer>(),
  },
  FileServers_Get: {
    ...OF_SPEC,
    path: `${WORKSPACE}/fileServers/{fileServerName}`,
    schema: "/definitions/FileServer",
    target: childTarget("file server", "fileServerName"),
    answer: answer<FileServer>(),
  },
});
