/**
 * The `batchai:` section of an emulator seed: its JSON Schema, and its expansion into the state
 * the local implementation serves. Explicit resources and compact generators can be mixed; the
 * generators give deterministic names (`ws-01`, `exp-01`, `job-0001`) and values, so two
 * emulators built from one seed serve identical data.
 */

const NAME = { type: "string", pattern: "^[-\\w_]+$", minLength: 1, maxLength: 64 } as const;
const RESOURCE_GROUP = { type: "string", pattern: "^[-\\w._]+$", minLength: 1, maxLength: 90 } as const;
/** An RFC 3339 time; a pattern, because the seed validator runs without ajv-formats. */
const DATE_TIME = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$" } as const;
const COUNT = { type: "integer", minimum: 0 } as const;
const PROVISIONING = { type: "string", enum: ["creating", "deleting", "succeeded", "failed"] } as const;
const EXECUTION_STATES = ["queued", "running", "terminating", "succeeded", "failed"] as const;
const TOOL_TYPES = ["cntk", "tensorflow", "caffe", "caffe2", "chainer", "horovod", "custommpi", "custom"] as const;

const jobSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: NAME,
    executionState: { type: "string", enum: EXECUTION_STATES },
    /** Name of a cluster of the same workspace; default the workspace's first cluster. */
    cluster: NAME,
    nodeCount: { type: "integer", minimum: 1 },
    toolType: { type: "string", enum: TOOL_TYPES },
    /** The command line (custom, custommpi) or the Python script (other toolkits). */
    command: { type: "string", minLength: 1 },
    schedulingPriority: { type: "string", enum: ["low", "normal", "high"] },
    exitCode: { type: "integer" },
    provisioningState: PROVISIONING,
    creationTime: DATE_TIME,
    startTime: DATE_TIME,
    endTime: DATE_TIME,
  },
} as const;

const jobGeneratorSchema = {
  type: "object",
  additionalProperties: false,
  required: ["count"],
  properties: { count: COUNT, namePrefix: NAME, cluster: NAME },
} as const;

const experimentSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: NAME,
    provisioningState: PROVISIONING,
    creationTime: DATE_TIME,
    jobs: { anyOf: [{ type: "array", items: jobSchema }, jobGeneratorSchema] },
  },
} as const;

const experimentGeneratorSchema = {
  type: "object",
  additionalProperties: false,
  required: ["count"],
  properties: { count: COUNT, jobsPerExperiment: COUNT, namePrefix: NAME },
} as const;

const nodeStateCountsSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    idleNodeCount: COUNT,
    runningNodeCount: COUNT,
    preparingNodeCount: COUNT,
    unusableNodeCount: COUNT,
    leavingNodeCount: COUNT,
  },
} as const;

const clusterSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: NAME,
    vmSize: { type: "string", minLength: 1 },
    vmPriority: { type: "string", enum: ["dedicated", "lowpriority"] },
    allocationState: { type: "string", enum: ["steady", "resizing"] },
    nodeStateCounts: nodeStateCountsSchema,
    /** Default: the sum of nodeStateCounts. */
    currentNodeCount: COUNT,
    scaleSettings: {
      type: "object",
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
      properties: {
        manual: {
          type: "object",
          additionalProperties: false,
          required: ["targetNodeCount"],
          properties: {
            targetNodeCount: COUNT,
            nodeDeallocationOption: { type: "string", enum: ["requeue", "terminate", "waitforjobcompletion"] },
          },
        },
        autoScale: {
          type: "object",
          additionalProperties: false,
          required: ["minimumNodeCount", "maximumNodeCount"],
          properties: { minimumNodeCount: COUNT, maximumNodeCount: COUNT, initialNodeCount: COUNT },
        },
      },
    },
    image: {
      type: "object",
      additionalProperties: false,
      required: ["publisher", "offer", "sku"],
      properties: { publisher: { type: "string" }, offer: { type: "string" }, sku: { type: "string" }, version: { type: "string" } },
    },
    adminUserName: { type: "string", minLength: 1 },
    subnet: { type: "string", minLength: 1 },
    provisioningState: PROVISIONING,
    creationTime: DATE_TIME,
    errors: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["code", "message"],
        properties: { code: { type: "string" }, message: { type: "string" } },
      },
    },
  },
} as const;

const fileServerSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: NAME,
    vmSize: { type: "string", minLength: 1 },
    diskCount: { type: "integer", minimum: 1 },
    diskSizeInGB: { type: "integer", minimum: 1 },
    storageAccountType: { type: "string", enum: ["Standard_LRS", "Premium_LRS"] },
    cachingType: { type: "string", enum: ["none", "readonly", "readwrite"] },
    adminUserName: { type: "string", minLength: 1 },
    mountPoint: { type: "string", minLength: 1 },
    publicIP: { type: "string" },
    internalIP: { type: "string" },
    subnet: { type: "string", minLength: 1 },
    provisioningState: { type: "string", enum: ["creating", "updating", "deleting", "succeeded", "failed"] },
    creationTime: DATE_TIME,
  },
} as const;

const workspaceSchema = {
  type: "object",
  additionalProperties: false,
  required: ["resourceGroup", "name", "location"],
  properties: {
    subscriptionId: { type: "string", minLength: 1 },
    resourceGroup: RESOURCE_GROUP,
    name: NAME,
    location: { type: "string", minLength: 1 },
    tags: { type: "object", additionalProperties: { type: "string" } },
    provisioningState: PROVISIONING,
    creationTime: DATE_TIME,
    clusters: { type: "array", items: clusterSchema },
    fileServers: { type: "array", items: fileServerSchema },
    experiments: { anyOf: [{ type: "array", items: experimentSchema }, experimentGeneratorSchema] },
  },
} as const;

const usageLocationSchema = {
  type: "object",
  additionalProperties: false,
  required: ["location", "usages"],
  properties: {
    location: { type: "string", minLength: 1 },
    /** Default: the quotas apply to every subscription. */
    subscriptionId: { type: "string", minLength: 1 },
    usages: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["name", "currentValue", "limit"],
        properties: {
          name: { type: "string", minLength: 1 },
          localizedName: { type: "string" },
          currentValue: COUNT,
          limit: COUNT,
          unit: { type: "string", enum: ["Count"] },
        },
      },
    },
  },
} as const;

const generateSchema = {
  type: "object",
  additionalProperties: false,
  required: ["workspaces"],
  properties: {
    workspaces: { type: "integer", minimum: 1, maximum: 10_000 },
    experimentsPerWorkspace: COUNT,
    jobsPerExperiment: COUNT,
    clustersPerWorkspace: COUNT,
    fileServersPerWorkspace: COUNT,
    subscriptionId: { type: "string", minLength: 1 },
    /** Workspaces are spread over these round-robin; default `[rg-batch]`. */
    resourceGroups: { type: "array", items: RESOURCE_GROUP, minItems: 1 },
    location: { type: "string", minLength: 1 },
    namePrefix: NAME,
  },
} as const;

/** JSON Schema of the `batchai:` seed section. */
export const batchAiSeedSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    /** Subscription of the workspaces that name none. Default 00000000-0000-0000-0000-000000000000. */
    subscriptionId: { type: "string", minLength: 1 },
    /** Resource groups that exist without workspaces (in the default subscription). */
    resourceGroups: { type: "array", items: RESOURCE_GROUP },
    workspaces: { type: "array", items: workspaceSchema },
    usages: { type: "array", items: usageLocationSchema },
    generate: generateSchema,
  },
} as const;

// --- The seed, as TypeScript sees it ----------------------------------------------------------

export type ExecutionStateSeed = (typeof EXECUTION_STATES)[number];
export type ToolTypeSeed = (typeof TOOL_TYPES)[number];

export interface JobSeed {
  name: string;
  executionState?: ExecutionStateSeed;
  cluster?: string;
  nodeCount?: number;
  toolType?: ToolTypeSeed;
  command?: string;
  schedulingPriority?: "low" | "normal" | "high";
  exitCode?: number;
  provisioningState?: string;
  creationTime?: string;
  startTime?: string;
  endTime?: string;
}
export interface JobGeneratorSeed {
  count: number;
  namePrefix?: string;
  cluster?: string;
}
export interface ExperimentSeed {
  name: string;
  provisioningState?: string;
  creationTime?: string;
  jobs?: JobSeed[] | JobGeneratorSeed;
}
export interface ExperimentGeneratorSeed {
  count: number;
  jobsPerExperiment?: number;
  namePrefix?: string;
}
export interface NodeStateCountsSeed {
  idleNodeCount?: number;
  runningNodeCount?: number;
  preparingNodeCount?: number;
  unusableNodeCount?: number;
  leavingNodeCount?: number;
}
export interface ClusterSeed {
  name: string;
  vmSize?: string;
  vmPriority?: "dedicated" | "lowpriority";
  allocationState?: "steady" | "resizing";
  nodeStateCounts?: NodeStateCountsSeed;
  currentNodeCount?: number;
  scaleSettings?: {
    manual?: { targetNodeCount: number; nodeDeallocationOption?: string };
    autoScale?: { minimumNodeCount: number; maximumNodeCount: number; initialNodeCount?: number };
  };
  image?: { publisher: string; offer: string; sku: string; version?: string };
  adminUserName?: string;
  subnet?: string;
  provisioningState?: string;
  creationTime?: string;
  errors?: { code: string; message: string }[];
}
export interface FileServerSeed {
  name: string;
  vmSize?: string;
  diskCount?: number;
  diskSizeInGB?: number;
  storageAccountType?: string;
  cachingType?: string;
  adminUserName?: string;
  mountPoint?: string;
  publicIP?: string;
  internalIP?: string;
  subnet?: string;
  provisioningState?: string;
  creationTime?: string;
}
export interface WorkspaceSeed {
  subscriptionId?: string;
  resourceGroup: string;
  name: string;
  location: string;
  tags?: Record<string, string>;
  provisioningState?: string;
  creationTime?: string;
  clusters?: ClusterSeed[];
  fileServers?: FileServerSeed[];
  experiments?: ExperimentSeed[] | ExperimentGeneratorSeed;
}
export interface UsageLocationSeed {
  location: string;
  subscriptionId?: string;
  usages: { name: string; localizedName?: string; currentValue: number; limit: number; unit?: string }[];
}
export interface GenerateSeed {
  workspaces: number;
  experimentsPerWorkspace?: number;
  jobsPerExperiment?: number;
  clustersPerWorkspace?: number;
  fileServersPerWorkspace?: number;
  subscriptionId?: string;
  resourceGroups?: string[];
  location?: string;
  namePrefix?: string;
}
export interface BatchAiSeed {
  subscriptionId?: string;
  resourceGroups?: string[];
  workspaces?: WorkspaceSeed[];
  usages?: UsageLocationSeed[];
  generate?: GenerateSeed;
}

// --- The state: every resource expanded, defaults filled, plain JSON ---------------------------

export interface JobRecord {
  name: string;
  executionState: string;
  /** Cluster name in the same workspace, or undefined when the workspace has none. */
  cluster?: string;
  nodeCount: number;
  toolType: string;
  command: string;
  schedulingPriority: string;
  provisioningState: string;
  creationTime: string;
  startTime?: string;
  endTime?: string;
  exitCode?: number;
}
export interface ExperimentRecord {
  name: string;
  provisioningState: string;
  creationTime: string;
  jobs: JobRecord[];
}
export interface ClusterRecord {
  name: string;
  vmSize: string;
  vmPriority: string;
  allocationState: string;
  nodeStateCounts: Required<NodeStateCountsSeed>;
  currentNodeCount: number;
  scaleSettings: NonNullable<ClusterSeed["scaleSettings"]>;
  image: { publisher: string; offer: string; sku: string; version?: string };
  adminUserName: string;
  subnet?: string;
  provisioningState: string;
  creationTime: string;
  errors: { code: string; message: string }[];
}
export interface FileServerRecord {
  name: string;
  vmSize: string;
  diskCount: number;
  diskSizeInGB: number;
  storageAccountType: string;
  cachingType: string;
  adminUserName: string;
  mountPoint: string;
  publicIP: string;
  internalIP: string;
  subnet?: string;
  provisioningState: string;
  creationTime: string;
}
export interface WorkspaceRecord {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  tags: Record<string, string>;
  provisioningState: string;
  creationTime: string;
  clusters: ClusterRecord[];
  fileServers: FileServerRecord[];
  experiments: ExperimentRecord[];
}
export interface UsageRecord {
  name: string;
  localizedName: string;
  currentValue: number;
  limit: number;
  unit: string;
}
export interface UsageLocationRecord {
  location: string;
  subscriptionId?: string;
  usages: UsageRecord[];
}

export interface BatchAiState {
  version: 1;
  resourceGroups: { subscriptionId: string; name: string }[];
  workspaces: WorkspaceRecord[];
  usages: UsageLocationRecord[];
}

export const DEFAULT_SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";
/** Creation times that a seed leaves out count from here, so that the data is the same on every run. */
const EPOCH = Date.parse("2018-06-01T00:00:00.000Z");
const MINUTE = 60_000;

/** Expands a seed section (generators included) into the state; checks what the schema cannot (unique names, cluster references). */
export function expandSeed(seed: BatchAiSeed | undefined): BatchAiState {
  const defaultSub = seed?.subscriptionId ?? DEFAULT_SUBSCRIPTION;
  const workspaces: WorkspaceRecord[] = [];
  (seed?.workspaces ?? []).forEach((w, i) => workspaces.push(workspaceRecord(w, defaultSub, `batchai.workspaces[${i}]`)));
  if (seed?.generate) workspaces.push(...generateWorkspaces(seed.generate, defaultSub));
  unique(workspaces, (w) => `${w.subscriptionId}/${w.resourceGroup}/${w.name}`, "batchai.workspaces", "workspace");
  return {
    version: 1,
    resourceGroups: (seed?.resourceGroups ?? []).map((name) => ({ subscriptionId: defaultSub, name })),
    workspaces,
    usages: (seed?.usages ?? []).map((u) => ({
      location: u.location,
      subscriptionId: u.subscriptionId,
      usages: u.usages.map((q) => ({
        name: q.name,
        localizedName: q.localizedName ?? humanize(q.name),
        currentValue: q.currentValue,
        limit: q.limit,
        unit: q.unit ?? "Count",
      })),
    })),
  };
}

function workspaceRecord(w: WorkspaceSeed, defaultSub: string, where: string): WorkspaceRecord {
  const created = w.creationTime ?? iso(EPOCH);
  const clusters = (w.clusters ?? []).map((c, i) => clusterRecord(c, created, i));
  unique(clusters, (c) => c.name, `${where}.clusters`, "cluster");
  const fileServers = (w.fileServers ?? []).map((f, i) => fileServerRecord(f, created, i));
  unique(fileServers, (f) => f.name, `${where}.fileServers`, "file server");
  const defaultCluster = clusters[0]?.name;
  let experiments: ExperimentRecord[];
  if (Array.isArray(w.experiments)) {
    experiments = w.experiments.map((e, i) => experimentRecord(e, created, i, defaultCluster, `${where}.experiments[${i}]`));
  } else if (w.experiments) {
    experiments = generateExperiments(
      w.experiments.count,
      w.experiments.jobsPerExperiment ?? 0,
      w.experiments.namePrefix ?? "exp",
      created,
      defaultCluster,
    );
  } else {
    experiments = [];
  }
  unique(experiments, (e) => e.name, `${where}.experiments`, "experiment");
  for (const [i, e] of experiments.entries()) {
    for (const j of e.jobs) {
      if (j.cluster !== undefined && !clusters.some((c) => c.name.toLowerCase() === j.cluster!.toLowerCase())) {
        throw new Error(
          `${where}.experiments[${i}]: job '${j.name}' names cluster '${j.cluster}', which workspace '${w.name}' does not have`,
        );
      }
    }
  }
  return {
    subscriptionId: w.subscriptionId ?? defaultSub,
    resourceGroup: w.resourceGroup,
    name: w.name,
    location: w.location,
    tags: w.tags ?? {},
    provisioningState: w.provisioningState ?? "succeeded",
    creationTime: created,
    clusters,
    fileServers,
    experiments,
  };
}

function clusterRecord(c: ClusterSeed, parentCreated: string, index: number): ClusterRecord {
  const counts = {
    idleNodeCount: c.nodeStateCounts?.idleNodeCount ?? 0,
    runningNodeCount: c.nodeStateCounts?.runningNodeCount ?? 0,
    preparingNodeCount: c.nodeStateCounts?.preparingNodeCount ?? 0,
    unusableNodeCount: c.nodeStateCounts?.unusableNodeCount ?? 0,
    leavingNodeCount: c.nodeStateCounts?.leavingNodeCount ?? 0,
  };
  const sum = Object.values(counts).reduce((a, b) => a + b, 0);
  const current = c.currentNodeCount ?? sum;
  return {
    name: c.name,
    vmSize: c.vmSize ?? "STANDARD_NC6",
    vmPriority: c.vmPriority ?? "dedicated",
    allocationState: c.allocationState ?? "steady",
    nodeStateCounts: counts,
    currentNodeCount: current,
    scaleSettings: c.scaleSettings ?? { manual: { targetNodeCount: current, nodeDeallocationOption: "requeue" } },
    image: c.image ?? { publisher: "microsoft-ads", offer: "linux-data-science-vm-ubuntu", sku: "linuxdsvmubuntu", version: "latest" },
    adminUserName: c.adminUserName ?? "batchai",
    subnet: c.subnet,
    provisioningState: c.provisioningState ?? "succeeded",
    creationTime: c.creationTime ?? after(parentCreated, index + 1),
    errors: c.errors ?? [],
  };
}

function fileServerRecord(f: FileServerSeed, parentCreated: string, index: number): FileServerRecord {
  return {
    name: f.name,
    vmSize: f.vmSize ?? "STANDARD_D2_V2",
    diskCount: f.diskCount ?? 2,
    diskSizeInGB: f.diskSizeInGB ?? 128,
    storageAccountType: f.storageAccountType ?? "Standard_LRS",
    cachingType: f.cachingType ?? "none",
    adminUserName: f.adminUserName ?? "batchai",
    mountPoint: f.mountPoint ?? "/data",
    publicIP: f.publicIP ?? `203.0.113.${(index % 250) + 4}`,
    internalIP: f.internalIP ?? `10.0.0.${(index % 250) + 4}`,
    subnet: f.subnet,
    provisioningState: f.provisioningState ?? "succeeded",
    creationTime: f.creationTime ?? after(parentCreated, index + 1),
  };
}

function experimentRecord(
  e: ExperimentSeed,
  parentCreated: string,
  index: number,
  defaultCluster: string | undefined,
  where: string,
): ExperimentRecord {
  const created = e.creationTime ?? after(parentCreated, 60 + index);
  let jobs: JobRecord[];
  if (Array.isArray(e.jobs)) {
    jobs = e.jobs.map((j, i) => jobRecord(j, created, i, defaultCluster));
  } else if (e.jobs) {
    jobs = generateJobs(e.jobs.count, e.jobs.namePrefix ?? "job", created, e.jobs.cluster ?? defaultCluster);
  } else {
    jobs = [];
  }
  unique(jobs, (j) => j.name, `${where}.jobs`, "job");
  return { name: e.name, provisioningState: e.provisioningState ?? "succeeded", creationTime: created, jobs };
}

function jobRecord(j: JobSeed, parentCreated: string, index: number, defaultCluster: string | undefined): JobRecord {
  const state = j.executionState ?? "succeeded";
  const created = j.creationTime ?? after(parentCreated, index + 1);
  const started = state === "queued" ? undefined : (j.startTime ?? after(created, 2));
  const finished = state === "succeeded" || state === "failed" ? (j.endTime ?? after(started ?? created, 30 + (index % 7) * 5)) : undefined;
  const toolType = j.toolType ?? "custom";
  return {
    name: j.name,
    executionState: state,
    cluster: j.cluster ?? defaultCluster,
    nodeCount: j.nodeCount ?? 1,
    toolType,
    command:
      j.command ??
      (toolType === "custom" || toolType === "custommpi"
        ? "python $AZ_BATCHAI_INPUT_SCRIPTS/train.py"
        : "$AZ_BATCHAI_INPUT_SCRIPTS/train.py"),
    schedulingPriority: j.schedulingPriority ?? "normal",
    provisioningState: j.provisioningState ?? "succeeded",
    creationTime: created,
    startTime: started,
    endTime: finished,
    exitCode: finished ? (j.exitCode ?? (state === "failed" ? 1 : 0)) : undefined,
  };
}

/** The execution states generated jobs cycle through: mostly finished, some active, as a real experiment looks. */
const GENERATED_STATES: ExecutionStateSeed[] = [
  "succeeded",
  "succeeded",
  "succeeded",
  "failed",
  "succeeded",
  "running",
  "succeeded",
  "queued",
  "succeeded",
  "terminating",
];

function generateJobs(count: number, prefix: string, parentCreated: string, cluster: string | undefined): JobRecord[] {
  const width = Math.max(4, String(count).length);
  return Array.from({ length: count }, (_, i) =>
    jobRecord(
      {
        name: `${prefix}-${String(i + 1).padStart(width, "0")}`,
        executionState: GENERATED_STATES[i % GENERATED_STATES.length],
        toolType: i % 3 === 0 ? "tensorflow" : "custom",
        nodeCount: 1 + (i % 4),
      },
      parentCreated,
      i,
      cluster,
    ),
  );
}

function generateExperiments(
  count: number,
  jobsEach: number,
  prefix: string,
  parentCreated: string,
  cluster: string | undefined,
): ExperimentRecord[] {
  const width = Math.max(2, String(count).length);
  return Array.from({ length: count }, (_, i) => {
    const name = `${prefix}-${String(i + 1).padStart(width, "0")}`;
    const created = after(parentCreated, 60 + i);
    return { name, provisioningState: "succeeded", creationTime: created, jobs: generateJobs(jobsEach, "job", created, cluster) };
  });
}

function generateWorkspaces(g: GenerateSeed, defaultSub: string): WorkspaceRecord[] {
  const groups = g.resourceGroups ?? ["rg-batch"];
  const width = Math.max(2, String(g.workspaces).length);
  const out: WorkspaceRecord[] = [];
  for (let i = 0; i < g.workspaces; i++) {
    const name = `${g.namePrefix ?? "ws"}-${String(i + 1).padStart(width, "0")}`;
    const seed: WorkspaceSeed = {
      subscriptionId: g.subscriptionId ?? defaultSub,
      resourceGroup: groups[i % groups.length],
      name,
      location: g.location ?? "eastus",
      creationTime: iso(EPOCH + i * 24 * 60 * MINUTE),
      clusters: Array.from({ length: g.clustersPerWorkspace ?? 1 }, (_, c) => ({
        name: `cluster-${String(c + 1).padStart(2, "0")}`,
        nodeStateCounts: { idleNodeCount: 1 + (c % 2), runningNodeCount: 2, preparingNodeCount: c % 3 === 2 ? 1 : 0 },
        allocationState: c % 4 === 3 ? "resizing" : "steady",
      })),
      fileServers: Array.from({ length: g.fileServersPerWorkspace ?? 1 }, (_, f) => ({ name: `nfs-${String(f + 1).padStart(2, "0")}` })),
      experiments: { count: g.experimentsPerWorkspace ?? 0, jobsPerExperiment: g.jobsPerExperiment ?? 0 },
    };
    out.push(workspaceRecord(seed, defaultSub, `batchai.generate (workspace ${name})`));
  }
  return out;
}

function unique<T>(items: readonly T[], key: (t: T) => string, where: string, what: string): void {
  const seen = new Set<string>();
  for (const it of items) {
    const k = key(it).toLowerCase();
    if (seen.has(k))
      throw new Error(`${where}: the ${what} '${key(it)}' appears twice (names are unique per parent and case-insensitive, as in ARM)`);
    seen.add(k);
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function after(isoTime: string, minutes: number): string {
  return iso(Date.parse(isoTime) + minutes * MINUTE);
}

function humanize(name: string): string {
  const spaced = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[-_]+/g, " ")
    .trim();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
