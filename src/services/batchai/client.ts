import { ApiError, type HttpTransport, type Logger, type RequestSpec, loggerFromEnv, redactUrl } from "../../http";
import { definitionValidator, type SchemaCheck } from "../../specs/swagger-schemas";
import { type ArmClientOptions, armTransport, seg } from "../arm-client";
import { providerNamespace } from "../provider-namespace";
import { noteSchemaDrift } from "../response-check";
import { describeWorkspace } from "./resource-ids";
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

/**
 * How much of each response is checked against the spec (the checks only ever warn):
 * - `all`: every item;
 * - `sample` (default): every item of the first 100 per operation, then one in 20. Drift
 *   is systemic (a new field, a new enum value), so a sample finds it, while 10 000 jobs cost
 *   ~600 checks instead of 10 000 (a job check costs about as much as parsing it: date-time formats);
 * - `off`: none.
 * Unusable items (not an object, a resource without id) are refused whatever this says.
 */
export type ResponseValidation = "all" | "sample" | "off";
const FULL_CHECKS = 100;
const SAMPLE_EVERY = 20;

/** The ARM client options, plus how much of each response is validated. */
export interface BatchAiClientOptions extends ArmClientOptions {
  /** Default `sample`. */
  validation?: ResponseValidation;
}

/** What a response item is, for validation and for the refusal of unusable items. */
type Kind = "Operation" | "Usage" | "Workspace" | "Cluster" | "Experiment" | "FileServer" | "Job";
/** Kinds that are ARM resources: without an `id` they cannot be used, so they are refused. */
const NEEDS_ID = new Set<Kind>(["Workspace", "Cluster", "Experiment", "FileServer", "Job"]);

/** Where a call points, for 404 messages: a readable label and the names a clear message mentions. */
interface Target {
  label: string;
  names: string[];
}

/**
 * A typed, read-only client for Batch AI management (api-version 2018-05-01). Requests match the
 * spec (paths, api-version; `maxresults` is not sent, so the service's own page size applies).
 * Responses are validated to learn, never to refuse: drift is logged once, objects are handed on
 * unchanged; only a resource without `id`, or a body that is not JSON, is refused. Lists follow
 * `nextLink` to the end; each has a page-at-a-time twin (`…Pages`, one request per step) that holds one page in memory
 * and lets a scheduler release its slot between pages.
 */
export class BatchAiClient {
  private readonly http: HttpTransport;
  private readonly logger: Logger;
  /** The provider namespace put in paths: `Microsoft.BatchAI`, or `Provider.BatchAI` with `naming: "described"`. */
  readonly namespace: string;

  private readonly validation: ResponseValidation;
  /** Items checked so far, per operation, for sampling. */
  private readonly checked = new Map<BatchAiOperationId, number>();

  constructor(opts: BatchAiClientOptions) {
    this.logger = opts.logger ?? loggerFromEnv();
    this.http = armTransport({ ...opts, logger: this.logger }, BATCHAI_API_VERSION);
    this.namespace = providerNamespace("BatchAI", opts.naming ?? "real");
    this.validation = opts.validation ?? "sample";
  }

  // --- Operations and usages ----------------------------------------------------------------

  /** Operations_List: every operation of the provider. */
  listOperations(signal?: AbortSignal): Promise<Operation[]> {
    return collect(this.operationPages(signal));
  }

  /** Operations_List, one page (one request) at a time. */
  operationPages(signal?: AbortSignal): AsyncGenerator<Operation[], void, undefined> {
    return this.pages("Operations_List", "Operation", `/providers/${this.namespace}/operations`, undefined, signal);
  }

  /** Usages_List: the quotas of a subscription in a location (cores ...), with their current values. */
  listUsages(subscriptionId: string, location: string, signal?: AbortSignal): Promise<Usage[]> {
    return collect(this.usagePages(subscriptionId, location, signal));
  }

  /** Usages_List, one page (one request) at a time. */
  usagePages(subscriptionId: string, location: string, signal?: AbortSignal): AsyncGenerator<Usage[], void, undefined> {
    const path = `/subscriptions/${seg(subscriptionId)}/providers/${this.namespace}/locations/${seg(location)}/usages`;
    return this.pages(
      "Usages_List",
      "Usage",
      path,
      { label: `usages of location '${location}' in subscription '${subscriptionId}'`, names: [location] },
      signal,
    );
  }

  // --- Workspaces ---------------------------------------------------------------------------

  /** Workspaces_List: every workspace of a subscription. */
  listWorkspaces(subscriptionId: string, signal?: AbortSignal): Promise<Workspace[]> {
    return collect(this.workspacePages(subscriptionId, signal));
  }

  /** Workspaces_List, one page (one request) at a time. */
  workspacePages(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Workspace[], void, undefined> {
    const path = `/subscriptions/${seg(subscriptionId)}/providers/${this.namespace}/workspaces`;
    return this.pages("Workspaces_List", "Workspace", path, { label: `subscription '${subscriptionId}'`, names: [subscriptionId] }, signal);
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
    const path = `/subscriptions/${seg(subscriptionId)}/resourceGroups/${seg(resourceGroup)}/providers/${this.namespace}/workspaces`;
    return this.pages(
      "Workspaces_ListByResourceGroup",
      "Workspace",
      path,
      { label: `resource group '${resourceGroup}' (subscription '${subscriptionId}')`, names: [resourceGroup] },
      signal,
    );
  }

  /** Workspaces_Get: one workspace; a missing one is an ApiError 404 whose message names it. */
  getWorkspace(ref: WorkspaceRef, signal?: AbortSignal): Promise<Workspace> {
    return this.get("Workspaces_Get", "Workspace", this.workspacePath(ref), workspaceTarget(ref), signal);
  }

  // --- Clusters -----------------------------------------------------------------------------

  /** Clusters_ListByWorkspace: the clusters of a workspace. */
  listClusters(ref: WorkspaceRef, signal?: AbortSignal): Promise<Cluster[]> {
    return collect(this.clusterPages(ref, signal));
  }

  /** Clusters_ListByWorkspace, one page (one request) at a time. */
  clusterPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Cluster[], void, undefined> {
    return this.pages("Clusters_ListByWorkspace", "Cluster", `${this.workspacePath(ref)}/clusters`, workspaceTarget(ref), signal);
  }

  /** Clusters_Get: one cluster of a workspace. */
  getCluster(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Cluster> {
    return this.get(
      "Clusters_Get",
      "Cluster",
      `${this.workspacePath(ref)}/clusters/${seg(name)}`,
      childTarget(ref, "cluster", name),
      signal,
    );
  }

  // --- Experiments and jobs -----------------------------------------------------------------

  /** Experiments_ListByWorkspace: the experiments of a workspace. */
  listExperiments(ref: WorkspaceRef, signal?: AbortSignal): Promise<Experiment[]> {
    return collect(this.experimentPages(ref, signal));
  }

  /** Experiments_ListByWorkspace, one page (one request) at a time. */
  experimentPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<Experiment[], void, undefined> {
    return this.pages("Experiments_ListByWorkspace", "Experiment", `${this.workspacePath(ref)}/experiments`, workspaceTarget(ref), signal);
  }

  /** Experiments_Get: one experiment of a workspace. */
  getExperiment(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<Experiment> {
    return this.get(
      "Experiments_Get",
      "Experiment",
      `${this.workspacePath(ref)}/experiments/${seg(name)}`,
      childTarget(ref, "experiment", name),
      signal,
    );
  }

  /** Jobs_ListByExperiment: every job of an experiment (pages are fetched one after another). */
  listJobs(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): Promise<Job[]> {
    return collect(this.jobPages(ref, experiment, signal));
  }

  /** Jobs_ListByExperiment, one page (one request) at a time: memory stays at one page however many jobs there are. */
  jobPages(ref: WorkspaceRef, experiment: string, signal?: AbortSignal): AsyncGenerator<Job[], void, undefined> {
    return this.pages(
      "Jobs_ListByExperiment",
      "Job",
      `${this.workspacePath(ref)}/experiments/${seg(experiment)}/jobs`,
      childTarget(ref, "experiment", experiment),
      signal,
    );
  }

  /** Jobs_Get: one job of an experiment. */
  getJob(ref: WorkspaceRef, experiment: string, name: string, signal?: AbortSignal): Promise<Job> {
    const path = `${this.workspacePath(ref)}/experiments/${seg(experiment)}/jobs/${seg(name)}`;
    const t = childTarget(ref, "experiment", experiment);
    return this.get("Jobs_Get", "Job", path, { label: `job '${name}' of ${t.label}`, names: [...t.names, name] }, signal);
  }

  // --- File servers -------------------------------------------------------------------------

  /** FileServers_ListByWorkspace: the file servers of a workspace. */
  listFileServers(ref: WorkspaceRef, signal?: AbortSignal): Promise<FileServer[]> {
    return collect(this.fileServerPages(ref, signal));
  }

  /** FileServers_ListByWorkspace, one page (one request) at a time. */
  fileServerPages(ref: WorkspaceRef, signal?: AbortSignal): AsyncGenerator<FileServer[], void, undefined> {
    return this.pages("FileServers_ListByWorkspace", "FileServer", `${this.workspacePath(ref)}/fileServers`, workspaceTarget(ref), signal);
  }

  /** FileServers_Get: one file server of a workspace. */
  getFileServer(ref: WorkspaceRef, name: string, signal?: AbortSignal): Promise<FileServer> {
    return this.get(
      "FileServers_Get",
      "FileServer",
      `${this.workspacePath(ref)}/fileServers/${seg(name)}`,
      childTarget(ref, "file server", name),
      signal,
    );
  }

  // --- Plumbing -----------------------------------------------------------------------------

  private workspacePath(ref: WorkspaceRef): string {
    for (const k of ["subscriptionId", "resourceGroup", "workspace"] as const) {
      if (typeof ref?.[k] !== "string" || ref[k].length === 0) {
        throw new TypeError(`a Batch AI workspace reference needs a non-empty ${k}; got ${JSON.stringify(ref)}`);
      }
    }
    return `/subscriptions/${seg(ref.subscriptionId)}/resourceGroups/${seg(ref.resourceGroup)}/providers/${this.namespace}/workspaces/${seg(ref.workspace)}`;
  }

  private async get<T>(operation: BatchAiOperationId, kind: Kind, path: string, target: Target, signal?: AbortSignal): Promise<T> {
    const spec: RequestSpec = { operation, method: "GET", path, signal };
    let body: unknown;
    try {
      body = await this.http.json<unknown>(spec);
    } catch (e) {
      throw clarifyNotFound(e, target);
    }
    this.check(operation, kind, body, spec);
    return body as T;
  }

  private async *pages<T>(
    operation: BatchAiOperationId,
    kind: Kind,
    path: string,
    target: Target | undefined,
    signal?: AbortSignal,
  ): AsyncGenerator<T[], void, undefined> {
    const spec: RequestSpec = { operation, method: "GET", path, signal };
    const pages = this.http.pages<unknown>(spec);
    while (true) {
      let next: IteratorResult<unknown[], void>;
      try {
        next = await pages.next();
      } catch (e) {
        throw target ? clarifyNotFound(e, target) : e;
      }
      if (next.done) return;
      for (const item of next.value) this.check(operation, kind, item, spec);
      yield next.value as T[];
    }
  }

  /** Refuses what cannot be used (a non-object, a resource without id); logs drift from the spec once. */
  private check(operation: BatchAiOperationId, kind: Kind, body: unknown, spec: RequestSpec): void {
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw this.invalid(
        spec,
        `expected a ${kind} object, got ${body === null ? "null" : Array.isArray(body) ? "an array" : typeof body === "string" ? "a body that is not JSON" : typeof body}`,
      );
    }
    if (NEEDS_ID.has(kind)) {
      const id = (body as { id?: unknown }).id;
      if (typeof id !== "string" || id.length === 0) {
        const name = (body as { name?: unknown }).name;
        throw this.invalid(
          spec,
          `a ${kind}${typeof name === "string" ? ` named '${name}'` : ""} has no id, so it cannot be addressed; the response was refused`,
        );
      }
    }
    if (this.validation === "off") return;
    if (this.validation === "sample") {
      const n = this.checked.get(operation) ?? 0;
      this.checked.set(operation, n + 1);
      if (n >= FULL_CHECKS && n % SAMPLE_EVERY !== 0) return;
    }
    noteSchemaDrift(operation, validate(kind, body), this.logger);
  }

  private invalid(spec: RequestSpec, message: string): ApiError {
    return new ApiError({
      operation: spec.operation,
      status: 200,
      code: "InvalidResponse",
      message,
      method: spec.method,
      url: redactUrl(this.http.urlOf(spec)),
    });
  }
}

/** Collects every page into one array. */
async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) for (const item of page) out.push(item);
  return out;
}

function workspaceTarget(ref: WorkspaceRef): Target {
  return { label: describeWorkspace(ref), names: [ref.resourceGroup, ref.workspace] };
}

function childTarget(ref: WorkspaceRef, what: string, name: string): Target {
  return { label: `${what} '${name}' of ${describeWorkspace(ref)}`, names: [ref.resourceGroup, ref.workspace, name] };
}

/**
 * A 404 whose message does not say what was missing (a gateway's bare "Not Found", or an RP
 * message about something else) is restated so that it names the workspace or resource asked for.
 */
function clarifyNotFound(e: unknown, target: Target): unknown {
  if (!(e instanceof ApiError) || e.status !== 404) return e;
  const detail = e.detail.toLowerCase();
  if (target.names.some((n) => detail.includes(`'${n.toLowerCase()}'`) || detail.includes(`/${n.toLowerCase()}'`))) return e;
  return new ApiError({
    operation: e.operation,
    status: e.status,
    code: e.code,
    method: e.method,
    url: e.url,
    requestId: e.requestId,
    clientRequestId: e.clientRequestId,
    attempts: e.attempts,
    message: `${target.label} was not found (${e.detail}). Check the names, or list what exists with listWorkspaces.`,
  });
}

const validators = new Map<Kind, (data: unknown) => SchemaCheck>();

/**
 * Compiles the response validators now (about 100-150 ms for the whole spec) instead of on each
 * kind's first response; optional, for long-running processes and for measurements.
 */
export function prepareBatchAiValidators(): void {
  for (const kind of ["Operation", "Usage", "Workspace", "Cluster", "Experiment", "FileServer", "Job"] as const) validatorOf(kind);
}

function validatorOf(kind: Kind): (data: unknown) => SchemaCheck {
  let v = validators.get(kind);
  if (!v) {
    v = definitionValidator(BATCHAI_SPEC, `/definitions/${kind}`);
    validators.set(kind, v);
  }
  return v;
}

/** Validates against the spec's definition; `null` counts as absent (services send it for unset fields). */
function validate(kind: Kind, body: unknown): SchemaCheck {
  const v = validatorOf(kind);
  const first = v(body);
  if (first.valid) return first;
  // Only on a mismatch: look again without the nulls, so that they alone never warn.
  return v(withoutNulls(body));
}

function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNulls(v);
  return out;
}
