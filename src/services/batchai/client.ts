import { ArmClient, collect, validatorFor, type ArmClientOptions, type ArmOperation, type CallTarget } from "../../platform/arm/arm-client";
import {
  batchUsagesId,
  batchWorkspaceId,
  describeWorkspace,
  providerScope,
  resourceGroupId,
  subscriptionId as subscriptionScopeId,
} from "../../platform/arm/resource-id";
import {
  BATCHAI_API_VERSION,
  BATCHAI_SPEC,
  type BatchAiOperationId,
  type Cluster,
  type Experiment,
  type FileServer,
  type Job,
  type Operation,
  type Usage,
  type Workspace,
  type WorkspaceRef,
} from "./types";

export type { ResponseValidation } from "../../platform/arm/arm-client";
/** The ARM client options (validation included). */
export type BatchAiClientOptions = ArmClientOptions;

const op = (id: BatchAiOperationId, definition: string, resource = true): ArmOperation => ({
  id,
  schema: `/definitions/${definition}`,
  resource,
});

/** The operations the client calls, with the definition of the objects each returns; operations and usages are not ARM resources. */
const OPS = {
  Operations_List: op("Operations_List", "Operation", false),
  Usages_List: op("Usages_List", "Usage", false),
  Workspaces_List: op("Workspaces_List", "Workspace"),
  Workspaces_ListByResourceGroup: op("Workspaces_ListByResourceGroup", "Workspace"),
  Workspaces_Get: op("Workspaces_Get", "Workspace"),
  Clusters_ListByWorkspace: op("Clusters_ListByWorkspace", "Cluster"),
  Clusters_Get: op("Clusters_Get", "Cluster"),
  Experiments_ListByWorkspace: op("Experiments_ListByWorkspace", "Experiment"),
  Experiments_Get: op("Experiments_Get", "Experiment"),
  Jobs_ListByExperiment: op("Jobs_ListByExperiment", "Job"),
  Jobs_Get: op("Jobs_Get", "Job"),
  FileServers_ListByWorkspace: op("FileServers_ListByWorkspace", "FileServer"),
  FileServers_Get: op("FileServers_Get", "FileServer"),
} satisfies Record<string, ArmOperation>;

/**
 * A typed, read-only client for Batch AI management (api-version 2018-05-01). Requests match the
 * spec (paths, api-version; `maxresults` is not sent, so the service's own page size applies);
 * responses are handled by ArmClient. Lists follow `nextLink` to the end; each has a page-at-a-time
 * twin (`…Pages`, one request per step) that holds one page in memory and lets a scheduler release
 * its slot between pages.
 */
export class BatchAiClient extends ArmClient {
  constructor(opts: BatchAiClientOptions) {
    super(opts, { apiVersion: BATCHAI_API_VERSION, spec: BATCHAI_SPEC });
  }

  // --- Operations and usages ----------------------------------------------------------------

  /** Operations_List: every operation of the provider. */
  listOperations(signal?: AbortSignal): Promise<Operation[]> {
    return collect(this.operationPages(signal));
  }

  /** Operations_List, one page (one request) at a time. */
  operationPages(signal?: AbortSignal): AsyncGenerator<Operation[], void, undefined> {
    return this.pages(OPS.Operations_List, `${providerScope("", "BatchAI", this.paths)}/operations`, { signal });
  }

  /** Usages_List: the quotas of a subscription in a location (cores ...), with their current values. */
  listUsages(subscriptionId: string, location: string, signal?: AbortSignal): Promise<Usage[]> {
    return collect(this.usagePages(subscriptionId, location, signal));
  }

  /** Usages_List, one page (one request) at a time. */
  usagePages(subscriptionId: string, location: string, signal?: AbortSignal): AsyncGenerator<Usage[], void, undefined> {
    const path = batchUsagesId({ subscriptionId, location }, this.paths);
    const target = { label: `usages of location '${location}' in subscription '${subscriptionId}'`, names: [location] };
    return this.pages(OPS.Usages_List, path, { target, signal });
  }

  // --- Workspaces ---------------------------------------------------------------------------

  /** Workspaces_List: every workspace of a subscription. */
  listWorkspaces(subscriptionId: string, signal?: AbortSignal): Promise<Workspace[]> {
    return collect(this.workspacePages(subscriptionId, signal));
  }

  /** Workspaces_List, one page (one request) at a time. */
  workspacePages(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Workspace[], void, undefined> {
    const path = `${providerScope(subscriptionScopeId({ subscriptionId }, this.paths), "BatchAI", this.paths)}/workspaces`;
    return this.pages(OPS.Workspaces_List, path, {
      target: { label: `subscription '${subscriptionId}'`, names: [subscriptionId] },
      signal,
    });
  }

  /** Workspaces_ListByResourceGroup: the workspaces of one resource group. */
  listWorkspacesByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<Workspace[]> {
    return collect(this.workspacePagesByResourceGroup(subscriptionId, resourceGroup, signal));
  }

  /** Workspaces_ListByResourceGroup, one page (one request) at a time. */
  workspacePagesByResourceGroup(
    subscriptionId: string,
    resourceGroup: string,
    signal?: AbortSignal,
  ): AsyncGenerator<Workspace[], void, undefined> {
    const path = `${providerScope(resourceGroupId({ subscriptionId, resourceGroup }, this.paths), "BatchAI", this.paths)}/workspaces`;
    const target = { label: `resource group '${resourceGroup}' (subscription '${subscriptionId}')`, names: [resourceGroup] };
    return this.pages(OPS.Workspaces_ListByResourceGroup, path, { target, signal });
  }

  /** Workspaces_Get: one workspace; a missing one is an ApiError 404 whose message names it. */
  getWorkspace(ref: WorkspaceRef, signal?: AbortSignal): Promise<Workspace> {
    return this.single(OPS.Workspaces_Get, this.workspacePath(ref), { target: workspaceTarget(ref), signal });
  }

  // --- Clusters -----------------------------------------------------------------------------

  /** Clusters_ListByWorkspace: the clusters of a workspace. */
  listClusters(ref: WorkspaceRef, signal?: AbortSignal): Promise<Cluster[]> {
    return collect(this.clusterPages(ref, signal));
  }

  /** Clusters_ListByWorkspace, one page (one request) at a time. */
  clusterPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Cluster[], void, undefined> {
    return this.pages(OPS.Clusters_ListByWorkspace, `${this.workspacePath(ref)}/clusters`, { target: workspaceTarget(ref), signal });
  }

  /** Clusters_Get: one cluster of a workspace. */
  getCluster(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Cluster> {
    return this.single(OPS.Clusters_Get, `${this.workspacePath(ref)}/clusters/${encodeURIComponent(name)}`, {
      target: childTarget(ref, "cluster", name),
      signal,
    });
  }

  // --- Experiments and jobs -----------------------------------------------------------------

  /** Experiments_ListByWorkspace: the experiments of a workspace. */
  listExperiments(ref: WorkspaceRef, signal?: AbortSignal): Promise<Experiment[]> {
    return collect(this.experimentPages(ref, signal));
  }

  /** Experiments_ListByWorkspace, one page (one request) at a time. */
  experimentPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Experiment[], void, undefined> {
    return this.pages(OPS.Experiments_ListByWorkspace, `${this.workspacePath(ref)}/experiments`, { target: workspaceTarget(ref), signal });
  }

  /** Experiments_Get: one experiment of a workspace. */
  getExperiment(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Experiment> {
    return this.single(OPS.Experiments_Get, `${this.workspacePath(ref)}/experiments/${encodeURIComponent(name)}`, {
      target: childTarget(ref, "experiment", name),
      signal,
    });
  }

  /** Jobs_ListByExperiment: every job of an experiment (pages are fetched one after another). */
  listJobs(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): Promise<Job[]> {
    return collect(this.jobPages(ref, experiment, signal));
  }

  /** Jobs_ListByExperiment, one page (one request) at a time: memory stays at one page however many jobs there are. */
  jobPages(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): AsyncGenerator<Job[], void, undefined> {
    return this.pages(OPS.Jobs_ListByExperiment, `${this.workspacePath(ref)}/experiments/${encodeURIComponent(experiment)}/jobs`, {
      target: childTarget(ref, "experiment", experiment),
      signal,
    });
  }

  /** Jobs_Get: one job of an experiment. */
  getJob(ref: WorkspaceRef, experiment: string, name: string, signal?: AbortSignal): Promise<Job> {
    const path = `${this.workspacePath(ref)}/experiments/${encodeURIComponent(experiment)}/jobs/${encodeURIComponent(name)}`;
    const t = childTarget(ref, "experiment", experiment);
    return this.single(OPS.Jobs_Get, path, {
      target: { label: `job '${name}' of ${t.label}`, names: [...t.names, name], hint: HINT },
      signal,
    });
  }

  // --- File servers -------------------------------------------------------------------------

  /** FileServers_ListByWorkspace: the file servers of a workspace. */
  listFileServers(ref: WorkspaceRef, signal?: AbortSignal): Promise<FileServer[]> {
    return collect(this.fileServerPages(ref, signal));
  }

  /** FileServers_ListByWorkspace, one page (one request) at a time. */
  fileServerPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<FileServer[], void, undefined> {
    return this.pages(OPS.FileServers_ListByWorkspace, `${this.workspacePath(ref)}/fileServers`, { target: workspaceTarget(ref), signal });
  }

  /** FileServers_Get: one file server of a workspace. */
  getFileServer(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<FileServer> {
    return this.single(OPS.FileServers_Get, `${this.workspacePath(ref)}/fileServers/${encodeURIComponent(name)}`, {
      target: childTarget(ref, "file server", name),
      signal,
    });
  }

  private workspacePath(ref: WorkspaceRef): string {
    for (const k of ["subscriptionId", "resourceGroup", "workspace"] as const) {
      if (typeof ref?.[k] !== "string" || ref[k].length === 0) {
        throw new TypeError(`a Batch AI workspace reference needs a non-empty ${k}; got ${JSON.stringify(ref)}`);
      }
    }
    return batchWorkspaceId(ref, this.paths);
  }
}

const HINT = "Check the names, or list what exists with listWorkspaces.";

function workspaceTarget(ref: WorkspaceRef): CallTarget {
  return { label: describeWorkspace(ref), names: [ref.resourceGroup, ref.workspace], hint: HINT };
}

function childTarget(ref: WorkspaceRef, what: string, name: string): CallTarget {
  return { label: `${what} '${name}' of ${describeWorkspace(ref)}`, names: [ref.resourceGroup, ref.workspace, name], hint: HINT };
}

/**
 * Compiles the response validators now (about 100-150 ms for the whole spec) instead of on each
 * kind's first response; optional, for long-running processes and for measurements.
 */
export function prepareBatchAiValidators(): void {
  for (const o of Object.values(OPS)) validatorFor(BATCHAI_SPEC, o.schema);
}
