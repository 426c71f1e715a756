import { validatorFor, type ArmClientOptions } from "../../platform/arm/arm-client";
import { ArmOperations } from "../../platform/arm/arm-operations";
import { BATCHAI_OPERATIONS_TABLE } from "./operations";
import type { Cluster, Experiment, FileServer, Job, Operation, Usage, Workspace, WorkspaceRef } from "./types";

export type { ResponseValidation } from "../../platform/arm/arm-client";
/** The ARM client options (validation included). */
export type BatchAiClientOptions = ArmClientOptions;

/** A workspace's path parameters, as the spec names them (a missing one is refused when the call is made). */
export function workspaceParams(ref: WorkspaceRef): { subscriptionId: string; resourceGroupName: string; workspaceName: string } {
  return { subscriptionId: ref?.subscriptionId, resourceGroupName: ref?.resourceGroup, workspaceName: ref?.workspace };
}

/**
 * A typed, read-only client for Batch AI management (api-version 2018-05-01): each method sends one
 * row of the Batch AI operation table (operations.ts). Requests match the spec (paths, api-version;
 * `maxresults` is not sent, so the service's own page size applies); responses are handled by
 * ArmClient. Lists follow `nextLink` to the end; each has a page-at-a-time twin (`…Pages`, one
 * request per step) that holds one page in memory and lets a scheduler release its slot between pages.
 */
export class BatchAiClient {
  private readonly ops: ArmOperations<typeof BATCHAI_OPERATIONS_TABLE>;

  constructor(opts: BatchAiClientOptions) {
    this.ops = new ArmOperations(opts, BATCHAI_OPERATIONS_TABLE);
  }

  // --- Operations and usages ----------------------------------------------------------------

  /** Operations_List: every operation of the provider. */
  listOperations(signal?: AbortSignal): Promise<Operation[]> {
    return this.ops.get("Operations_List", {}, signal);
  }

  /** Operations_List, one page (one request) at a time. */
  operationPages(signal?: AbortSignal): AsyncGenerator<Operation[], void, undefined> {
    return this.ops.pages("Operations_List", {}, signal);
  }

  /** Usages_List: the quotas of a subscription in a location (cores ...), with their current values. */
  listUsages(subscriptionId: string, location: string, signal?: AbortSignal): Promise<Usage[]> {
    return this.ops.get("Usages_List", { subscriptionId, location }, signal);
  }

  /** Usages_List, one page (one request) at a time. */
  usagePages(subscriptionId: string, location: string, signal?: AbortSignal): AsyncGenerator<Usage[], void, undefined> {
    return this.ops.pages("Usages_List", { subscriptionId, location }, signal);
  }

  // --- Workspaces ---------------------------------------------------------------------------

  /** Workspaces_List: every workspace of a subscription. */
  listWorkspaces(subscriptionId: string, signal?: AbortSignal): Promise<Workspace[]> {
    return this.ops.get("Workspaces_List", { subscriptionId }, signal);
  }

  /** Workspaces_List, one page (one request) at a time. */
  workspacePages(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Workspace[], void, undefined> {
    return this.ops.pages("Workspaces_List", { subscriptionId }, signal);
  }

  /** Workspaces_ListByResourceGroup: the workspaces of one resource group. */
  listWorkspacesByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<Workspace[]> {
    return this.ops.get("Workspaces_ListByResourceGroup", { subscriptionId, resourceGroupName: resourceGroup }, signal);
  }

  /** Workspaces_ListByResourceGroup, one page (one request) at a time. */
  workspacePagesByResourceGroup(
    subscriptionId: string,
    resourceGroup: string,
    signal?: AbortSignal,
  ): AsyncGenerator<Workspace[], void, undefined> {
    return this.ops.pages("Workspaces_ListByResourceGroup", { subscriptionId, resourceGroupName: resourceGroup }, signal);
  }

  /** Workspaces_Get: one workspace; a missing one is an ApiError 404 whose message names it. */
  getWorkspace(ref: WorkspaceRef, signal?: AbortSignal): Promise<Workspace> {
    return this.ops.get("Workspaces_Get", workspaceParams(ref), signal);
  }

  // --- Clusters -----------------------------------------------------------------------------

  /** Clusters_ListByWorkspace: the clusters of a workspace. */
  listClusters(ref: WorkspaceRef, signal?: AbortSignal): Promise<Cluster[]> {
    return this.ops.get("Clusters_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** Clusters_ListByWorkspace, one page (one request) at a time. */
  clusterPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Cluster[], void, undefined> {
    return this.ops.pages("Clusters_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** Clusters_Get: one cluster of a workspace. */
  getCluster(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Cluster> {
    return this.ops.get("Clusters_Get", { ...workspaceParams(ref), clusterName: name }, signal);
  }

  // --- Experiments and jobs -----------------------------------------------------------------

  /** Experiments_ListByWorkspace: the experiments of a workspace. */
  listExperiments(ref: WorkspaceRef, signal?: AbortSignal): Promise<Experiment[]> {
    return this.ops.get("Experiments_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** Experiments_ListByWorkspace, one page (one request) at a time. */
  experimentPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Experiment[], void, undefined> {
    return this.ops.pages("Experiments_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** Experiments_Get: one experiment of a workspace. */
  getExperiment(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Experiment> {
    return this.ops.get("Experiments_Get", { ...workspaceParams(ref), experimentName: name }, signal);
  }

  /** Jobs_ListByExperiment: every job of an experiment (pages are fetched one after another). */
  listJobs(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): Promise<Job[]> {
    return this.ops.get("Jobs_ListByExperiment", { ...workspaceParams(ref), experimentName: experiment }, signal);
  }

  /** Jobs_ListByExperiment, one page (one request) at a time: memory stays at one page however many jobs there are. */
  jobPages(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): AsyncGenerator<Job[], void, undefined> {
    return this.ops.pages("Jobs_ListByExperiment", { ...workspaceParams(ref), experimentName: experiment }, signal);
  }

  /** Jobs_Get: one job of an experiment. */
  getJob(ref: WorkspaceRef, experiment: string, name: string, signal?: AbortSignal): Promise<Job> {
    return this.ops.get("Jobs_Get", { ...workspaceParams(ref), experimentName: experiment, jobName: name }, signal);
  }

  // --- File servers -------------------------------------------------------------------------

  /** FileServers_ListByWorkspace: the file servers of a workspace. */
  listFileServers(ref: WorkspaceRef, signal?: AbortSignal): Promise<FileServer[]> {
    return this.ops.get("FileServers_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** FileServers_ListByWorkspace, one page (one request) at a time. */
  fileServerPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<FileServer[], void, undefined> {
    return this.ops.pages("FileServers_ListByWorkspace", workspaceParams(ref), signal);
  }

  /** FileServers_Get: one file server of a workspace. */
  getFileServer(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<FileServer> {
    return this.ops.get("FileServers_Get", { ...workspaceParams(ref), fileServerName: name }, signal);
  }
}

/**
 * Compiles the response validators now (about 100-150 ms for the whole spec) instead of on each
 * kind's first response; optional, for long-running processes and for measurements.
 */
export function prepareBatchAiValidators(): void {
  for (const row of Object.values(BATCHAI_OPERATIONS_TABLE)) validatorFor(row.spec, row.schema);
}
