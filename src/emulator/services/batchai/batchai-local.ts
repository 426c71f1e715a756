import { batchWorkspaceId } from "../../../platform/arm/resource-id";
import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import { armError, armPage, resourceGroupNotFound, resourceNotFound } from "../../kit/arm-conventions";
import { readSpec } from "../../../platform/schemas/swagger-schemas";
import { bothNamespaces } from "../../../platform/arm/provider-namespace";
import { publishedOperation } from "../../kit/published-operations";
import {
  BATCHAI_SPEC,
  type Cluster,
  type Experiment,
  type FileServer,
  type Job,
  type Operation,
  type Usage,
  type Workspace,
} from "../../../services/batchai/types";
import {
  type BatchAiSeed,
  type BatchAiState,
  type ClusterRecord,
  type ExperimentRecord,
  type FileServerRecord,
  type JobRecord,
  type WorkspaceRecord,
  batchAiSeedSchema,
  expandSeed,
} from "./seed";

/** Lookups over one state object, built on first use; the state itself stays plain JSON. */
interface Index {
  rgExists: Set<string>;
  bySubscription: Map<string, WorkspaceRecord[]>;
  byResourceGroup: Map<string, WorkspaceRecord[]>;
  workspaces: Map<string, WorkspaceEntry>;
}
interface WorkspaceEntry {
  rec: WorkspaceRecord;
  clusters: Map<string, ClusterRecord>;
  fileServers: Map<string, FileServerRecord>;
  experiments: Map<string, { rec: ExperimentRecord; jobs: Map<string, JobRecord> | undefined }>;
}

const indexes = new WeakMap<BatchAiState, Index>();

function indexOf(state: BatchAiState): Index {
  let ix = indexes.get(state);
  if (ix) return ix;
  ix = { rgExists: new Set(), bySubscription: new Map(), byResourceGroup: new Map(), workspaces: new Map() };
  for (const rg of state.resourceGroups) ix.rgExists.add(key(rg.subscriptionId, rg.name));
  for (const w of state.workspaces) {
    const rgKey = key(w.subscriptionId, w.resourceGroup);
    ix.rgExists.add(rgKey);
    push(ix.bySubscription, key(w.subscriptionId), w);
    push(ix.byResourceGroup, rgKey, w);
    ix.workspaces.set(key(w.subscriptionId, w.resourceGroup, w.name), {
      rec: w,
      clusters: new Map(w.clusters.map((c) => [key(c.name), c])),
      fileServers: new Map(w.fileServers.map((f) => [key(f.name), f])),
      // Jobs are indexed per experiment only when one is asked for by name (Jobs_Get).
      experiments: new Map(w.experiments.map((e) => [key(e.name), { rec: e, jobs: undefined }])),
    });
  }
  indexes.set(state, ix);
  return ix;
}

/**
 * Batch AI management (api-version 2018-05-01) as ARM serves it: the thirteen GET operations of
 * the spec, under `Microsoft.BatchAI` and `Provider.BatchAI` (matched case-insensitively), with
 * ARM's 404s and `nextLink` paging at the emulator's page size (or `maxresults`, when smaller).
 * Operations_List and Usages_List are also published at the older versions (2017-09-01-preview,
 * 2018-03-01: specs/api-versions/Microsoft.BatchAI.json) and answered there in 2018-05-01's shape.
 */
export const batchAiLocal: LocalService<BatchAiState, BatchAiSeed> = {
  name: "batchai",
  seedSchema: batchAiSeedSchema,
  initialState: (seed) => expandSeed(seed),

  mount(ctx) {
    for (const namespace of bothNamespaces("BatchAI")) mountNamespace(ctx, namespace);
  },
};

function mountNamespace(ctx: ServiceContext<BatchAiState>, ns: string): void {
  const get = (operationId: string, path: string, handler: (req: EmulatorRequest) => EmulatorReply) =>
    ctx.arm("GET", path, publishedOperation("Microsoft.BatchAI", operationId), handler);
  const sub = "/subscriptions/:subscriptionId";
  const ws = `${sub}/resourceGroups/:resourceGroupName/providers/${ns}/workspaces/:workspaceName`;
  const ix = () => indexOf(ctx.state());
  /** A list that declares `maxresults` (all but operations and usages). */
  const list = <R, T>(req: EmulatorRequest, records: readonly R[], render: (r: R) => T) =>
    page(req, records, ctx.settings.pageSize, render, true);

  // Operations_List: what the provider can do, derived from the spec's own operation set.
  get("Operations_List", `/providers/${ns}/operations`, (req) => armPage(req, providerOperations(ns), ctx.settings.pageSize));

  // Usages_List
  get("Usages_List", `${sub}/providers/${ns}/locations/:location/usages`, (req) => {
    const { subscriptionId, location } = req.params;
    const usages = ctx
      .state()
      .usages.filter((u) => same(u.location, location) && (u.subscriptionId === undefined || same(u.subscriptionId, subscriptionId)))
      .flatMap((u) => u.usages);
    return page(req, usages, ctx.settings.pageSize, (u): Usage => ({
      unit: u.unit,
      currentValue: u.currentValue,
      limit: u.limit,
      name: { value: u.name, localizedValue: u.localizedName },
    }));
  });

  // Workspaces_List
  get("Workspaces_List", `${sub}/providers/${ns}/workspaces`, (req) =>
    list(req, ix().bySubscription.get(key(req.params.subscriptionId)) ?? [], (w) => renderWorkspace(ns, w)),
  );

  // Workspaces_ListByResourceGroup
  get("Workspaces_ListByResourceGroup", `${sub}/resourceGroups/:resourceGroupName/providers/${ns}/workspaces`, (req) => {
    const { subscriptionId, resourceGroupName } = req.params;
    const rgKey = key(subscriptionId, resourceGroupName);
    if (!ix().rgExists.has(rgKey)) return resourceGroupNotFound(resourceGroupName);
    return list(req, ix().byResourceGroup.get(rgKey) ?? [], (w) => renderWorkspace(ns, w));
  });

  // Workspaces_Get
  get("Workspaces_Get", ws, (req) => withWorkspace(req, ns, ix(), (w) => ({ status: 200, body: renderWorkspace(ns, w.rec) })));

  // Clusters_ListByWorkspace, Clusters_Get
  get("Clusters_ListByWorkspace", `${ws}/clusters`, (req) =>
    withWorkspace(req, ns, ix(), (w) => list(req, w.rec.clusters, (c) => renderCluster(ns, w.rec, c))),
  );
  get("Clusters_Get", `${ws}/clusters/:clusterName`, (req) =>
    withWorkspace(req, ns, ix(), (w) => {
      const c = w.clusters.get(key(req.params.clusterName));
      return c ? { status: 200, body: renderCluster(ns, w.rec, c) } : childNotFound(ns, req, "clusters", req.params.clusterName);
    }),
  );

  // FileServers_ListByWorkspace, FileServers_Get
  get("FileServers_ListByWorkspace", `${ws}/fileServers`, (req) =>
    withWorkspace(req, ns, ix(), (w) => list(req, w.rec.fileServers, (f) => renderFileServer(ns, w.rec, f))),
  );
  get("FileServers_Get", `${ws}/fileServers/:fileServerName`, (req) =>
    withWorkspace(req, ns, ix(), (w) => {
      const f = w.fileServers.get(key(req.params.fileServerName));
      return f ? { status: 200, body: renderFileServer(ns, w.rec, f) } : childNotFound(ns, req, "fileServers", req.params.fileServerName);
    }),
  );

  // Experiments_ListByWorkspace, Experiments_Get
  get("Experiments_ListByWorkspace", `${ws}/experiments`, (req) =>
    withWorkspace(req, ns, ix(), (w) => list(req, w.rec.experiments, (e) => renderExperiment(ns, w.rec, e))),
  );
  get("Experiments_Get", `${ws}/experiments/:experimentName`, (req) =>
    withWorkspace(req, ns, ix(), (w) => {
      const e = w.experiments.get(key(req.params.experimentName));
      return e
        ? { status: 200, body: renderExperiment(ns, w.rec, e.rec) }
        : childNotFound(ns, req, "experiments", req.params.experimentName);
    }),
  );

  // Jobs_ListByExperiment, Jobs_Get
  get("Jobs_ListByExperiment", `${ws}/experiments/:experimentName/jobs`, (req) =>
    withWorkspace(req, ns, ix(), (w) => {
      const e = w.experiments.get(key(req.params.experimentName));
      if (!e) return childNotFound(ns, req, "experiments", req.params.experimentName);
      return list(req, e.rec.jobs, (j) => renderJob(ns, w.rec, e.rec, j));
    }),
  );
  get("Jobs_Get", `${ws}/experiments/:experimentName/jobs/:jobName`, (req) =>
    withWorkspace(req, ns, ix(), (w) => {
      const e = w.experiments.get(key(req.params.experimentName));
      if (!e) return childNotFound(ns, req, "experiments", req.params.experimentName);
      e.jobs ??= new Map(e.rec.jobs.map((j) => [key(j.name), j]));
      const j = e.jobs.get(key(req.params.jobName));
      return j
        ? { status: 200, body: renderJob(ns, w.rec, e.rec, j) }
        : childNotFound(ns, req, `experiments/${req.params.experimentName}/jobs`, req.params.jobName);
    }),
  );
}

/** Resolves the workspace of a request, or answers ARM's 404 (resource group first, as ARM checks it first). */
function withWorkspace(req: EmulatorRequest, ns: string, ix: Index, then: (w: WorkspaceEntry) => EmulatorReply): EmulatorReply {
  const { subscriptionId, resourceGroupName, workspaceName } = req.params;
  if (!ix.rgExists.has(key(subscriptionId, resourceGroupName))) return resourceGroupNotFound(resourceGroupName);
  const w = ix.workspaces.get(key(subscriptionId, resourceGroupName, workspaceName));
  if (!w) return resourceNotFound(`${ns}/workspaces`, workspaceName, resourceGroupName);
  return then(w);
}

function childNotFound(ns: string, req: EmulatorRequest, type: string, name: string): EmulatorReply {
  return resourceNotFound(`${ns}/workspaces/${req.params.workspaceName}/${type}`, name, req.params.resourceGroupName);
}

/**
 * One page of records, rendered after slicing, so a page of a 10 000-job list costs only its own
 * items. Where the operation declares `maxresults` (1-1000), the page is the smaller of it and the
 * emulator's page size.
 */
function page<R, T>(
  req: EmulatorRequest,
  records: readonly R[],
  configured: number,
  render: (r: R) => T,
  maxResults = false,
): EmulatorReply {
  let size = configured;
  const raw = maxResults ? req.query.get("maxresults") : null;
  if (raw !== null) {
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > 1000) {
      return armError(
        400,
        "InvalidParameter",
        `The value '${raw}' of the query parameter 'maxresults' is invalid: it must be an integer from 1 to 1000.`,
      );
    }
    size = Math.min(n, configured);
  }
  const reply = armPage(req, records, size);
  if (reply.status === 200) {
    const body = reply.body as { value: R[]; nextLink?: string };
    reply.body = { ...body, value: body.value.map(render) };
  }
  return reply;
}

// --- Rendering: records to the spec's resource shapes ------------------------------------------

/** Ids are written with the namespace spelling the request used, as the service echoes it. */
function workspaceId(ns: string, w: WorkspaceRecord): string {
  const naming = ns.toLowerCase().startsWith("provider.") ? "described" : "real";
  return batchWorkspaceId({ subscriptionId: w.subscriptionId, resourceGroup: w.resourceGroup, workspace: w.name }, { naming });
}

function renderWorkspace(ns: string, w: WorkspaceRecord): Workspace {
  return {
    id: workspaceId(ns, w),
    name: w.name,
    type: `${ns}/workspaces`,
    location: w.location,
    tags: { ...w.tags },
    properties: { creationTime: w.creationTime, provisioningState: w.provisioningState, provisioningStateTransitionTime: w.creationTime },
  };
}

function renderCluster(ns: string, w: WorkspaceRecord, c: ClusterRecord): Cluster {
  const properties: NonNullable<Cluster["properties"]> = {
    vmSize: c.vmSize,
    vmPriority: c.vmPriority,
    scaleSettings: structuredClone(c.scaleSettings) as NonNullable<Cluster["properties"]>["scaleSettings"],
    virtualMachineConfiguration: { imageReference: { ...c.image } },
    userAccountSettings: { adminUserName: c.adminUserName },
    creationTime: c.creationTime,
    provisioningState: c.provisioningState,
    provisioningStateTransitionTime: c.creationTime,
    allocationState: c.allocationState,
    allocationStateTransitionTime: c.creationTime,
    currentNodeCount: c.currentNodeCount,
    nodeStateCounts: { ...c.nodeStateCounts },
  };
  if (c.subnet) properties.subnet = { id: c.subnet };
  if (c.errors.length) properties.errors = c.errors.map((e) => ({ ...e }));
  return { id: `${workspaceId(ns, w)}/clusters/${c.name}`, name: c.name, type: `${ns}/workspaces/clusters`, properties };
}

function renderFileServer(ns: string, w: WorkspaceRecord, f: FileServerRecord): FileServer {
  const properties: NonNullable<FileServer["properties"]> = {
    vmSize: f.vmSize,
    sshConfiguration: { userAccountSettings: { adminUserName: f.adminUserName } },
    dataDisks: {
      diskSizeInGB: f.diskSizeInGB,
      cachingType: f.cachingType,
      diskCount: f.diskCount,
      storageAccountType: f.storageAccountType,
    },
    mountSettings: { mountPoint: f.mountPoint, fileServerPublicIP: f.publicIP, fileServerInternalIP: f.internalIP },
    provisioningStateTransitionTime: f.creationTime,
    creationTime: f.creationTime,
    provisioningState: f.provisioningState,
  };
  if (f.subnet) properties.subnet = { id: f.subnet };
  return { id: `${workspaceId(ns, w)}/fileServers/${f.name}`, name: f.name, type: `${ns}/workspaces/fileServers`, properties };
}

function renderExperiment(ns: string, w: WorkspaceRecord, e: ExperimentRecord): Experiment {
  return {
    id: `${workspaceId(ns, w)}/experiments/${e.name}`,
    name: e.name,
    type: `${ns}/workspaces/experiments`,
    properties: { creationTime: e.creationTime, provisioningState: e.provisioningState, provisioningStateTransitionTime: e.creationTime },
  };
}

const TOOLKIT_SETTINGS: Record<string, { key: string; field: "commandLine" | "pythonScriptFilePath" }> = {
  custom: { key: "customToolkitSettings", field: "commandLine" },
  custommpi: { key: "customMpiSettings", field: "commandLine" },
  tensorflow: { key: "tensorFlowSettings", field: "pythonScriptFilePath" },
  horovod: { key: "horovodSettings", field: "pythonScriptFilePath" },
  chainer: { key: "chainerSettings", field: "pythonScriptFilePath" },
  caffe2: { key: "caffe2Settings", field: "pythonScriptFilePath" },
  caffe: { key: "caffeSettings", field: "pythonScriptFilePath" },
  cntk: { key: "cntkSettings", field: "pythonScriptFilePath" },
};

function renderJob(ns: string, w: WorkspaceRecord, e: ExperimentRecord, j: JobRecord): Job {
  const wsId = workspaceId(ns, w);
  const toolkit = TOOLKIT_SETTINGS[j.toolType] ?? TOOLKIT_SETTINGS.custom;
  const transition = j.endTime ?? j.startTime ?? j.creationTime;
  const properties: NonNullable<Job["properties"]> = {
    schedulingPriority: j.schedulingPriority,
    nodeCount: j.nodeCount,
    toolType: j.toolType,
    [toolkit.key]: { [toolkit.field]: j.command },
    jobOutputDirectoryPathSegment: `${w.subscriptionId}/${w.resourceGroup}/workspaces/${w.name}/experiments/${e.name}/jobs/${j.name}/${stableUuid(`${wsId}/${e.name}/${j.name}`)}`,
    stdOutErrPathPrefix: "$AZ_BATCHAI_MOUNT_ROOT/logs",
    constraints: { maxWallClockTime: "P7D" },
    creationTime: j.creationTime,
    provisioningState: j.provisioningState,
    provisioningStateTransitionTime: j.creationTime,
    executionState: j.executionState,
    executionStateTransitionTime: transition,
  };
  if (j.cluster) properties.cluster = { id: `${wsId}/clusters/${j.cluster}` };
  if (j.startTime) {
    const info: NonNullable<NonNullable<Job["properties"]>["executionInfo"]> = { startTime: j.startTime };
    if (j.endTime) {
      info.endTime = j.endTime;
      info.exitCode = j.exitCode;
    }
    if (j.executionState === "failed") {
      info.errors = [{ code: "JobFailed", message: `The job exited with code ${j.exitCode ?? 1}.`, details: [] }];
    }
    properties.executionInfo = info;
  }
  return { id: `${wsId}/experiments/${e.name}/jobs/${j.name}`, name: j.name, type: `${ns}/workspaces/experiments/jobs`, properties };
}

/**
 * A UUID-shaped value that depends only on its input, like the path segment the service generates.
 * A cheap 128-bit mix (cyrb128), not a cryptographic hash: it is rendered for every job of every page.
 */
function stableUuid(input: string): string {
  let h1 = 1779033703,
    h2 = 3144134277,
    h3 = 1013904242,
    h4 = 2773480762;
  for (let i = 0; i < input.length; i++) {
    const k = input.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  const hex = [h1 ^ h2 ^ h3 ^ h4, h2 ^ h1, h3 ^ h1, h4 ^ h1].map((h) => (h >>> 0).toString(16).padStart(8, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

// --- Operations_List -----------------------------------------------------------------------------

const operationsByNamespace = new Map<string, Operation[]>();

/**
 * The provider's operations as ARM lists them (`Microsoft.BatchAI/workspaces/read` ...), derived
 * from the spec: each path's resource type (its constant segments) with `read`, `write` or
 * `delete` by method, and `<action>/action` for POSTs. Descriptions come from the spec.
 */
export function providerOperations(ns: string): Operation[] {
  const cached = operationsByNamespace.get(ns);
  if (cached) return cached;
  const doc = readSpec(BATCHAI_SPEC) as { paths: Record<string, Record<string, { description?: string }>> };
  const byName = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(doc.paths)) {
    const after = path.split(/\/providers\/Microsoft\.BatchAI\//i)[1];
    if (after === undefined) continue;
    const constant = after.split("/").filter((s) => s && !s.startsWith("{"));
    for (const [method, op] of Object.entries(methods)) {
      if (method === "parameters" || !op || typeof op !== "object") continue;
      let segments = constant.map((s) => s.toLowerCase());
      let verb: string;
      switch (method.toLowerCase()) {
        case "get":
          verb = "read";
          break;
        case "put":
        case "patch":
          verb = "write";
          break;
        case "delete":
          verb = "delete";
          break;
        case "post":
          verb = "action";
          break;
        default:
          continue;
      }
      if (verb === "action") segments = [...segments, "action"];
      else segments = [...segments, verb];
      const name = `${ns}/${segments.join("/")}`;
      if (byName.has(name)) continue;
      const resourceSegments = verb === "action" ? constant.slice(0, -1) : constant;
      const resource = humanizeType(resourceSegments[resourceSegments.length - 1] ?? "operations");
      byName.set(name, {
        name,
        display: {
          provider: `${ns.split(".")[0]} Batch AI`,
          resource,
          operation: verb === "action" ? `${humanizeType(constant[constant.length - 1])} (${resource})` : `${cap(verb)} ${resource}`,
          description: (op.description ?? "").trim() || `${cap(verb)} ${resource}`,
        },
        origin: "user,system",
      });
    }
  }
  const list = [...byName.values()];
  operationsByNamespace.set(ns, list);
  return list;
}

function humanizeType(segment: string): string {
  const words = segment.replace(/([a-z])([A-Z])/g, "$1 $2").split(" ");
  return words.map(cap).join(" ");
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// --- Small helpers -------------------------------------------------------------------------------

/** Index keys: ARM compares names case-insensitively. */
function key(...parts: string[]): string {
  return parts.map((p) => p.toLowerCase()).join("/");
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}
