import {
  batchUsagesId,
  batchWorkspaceId,
  childId,
  elasticPoolId,
  parseResourceId,
  sameResourceId,
  sqlDatabaseId,
  tdeConfigurationId,
} from "../../platform/arm/resource-id";
import type { ClientSet } from "../../clients/client-set";
import { isNotFound } from "./not-found";
import { checkDataSourceInputSpec, type InputFailure } from "./data-source-inputs";

/** The read-only data sources, by the type token's `<module>:<Type>`. */
export type DataSourceKind =
  | "sql:ServiceTierAdvisors"
  | "sql:ElasticPoolActivities"
  | "sql:ElasticPoolDatabaseActivities"
  | "sql:TransparentDataEncryptionActivities"
  | "batchai:Workspace"
  | "batchai:Cluster"
  | "batchai:Experiment"
  | "batchai:FileServer"
  | "batchai:Jobs"
  | "batchai:Usages";

type Inputs = Record<string, string>;

interface DataSourceSpec {
  /** Required string inputs, in id order. */
  inputs: string[];
  /** Optional string inputs carried through to the outputs (not sent to the API). */
  optional?: string[];
  /**
   * The output property holding what the API returned. It must differ from every input name: a
   * single-object kind's input (`workspace`, `cluster`…) names the object, so its output is `<input>Resource`.
   */
  output: string;
  /** The ARM id (or, for lists, the id of the collection) that identifies the data source. */
  id(i: Inputs): string;
  read(c: Pick<ClientSet, "sql" | "batch">, i: Inputs): Promise<unknown>;
}

const dbInputs = ["subscriptionId", "resourceGroup", "server", "database"];
const poolInputs = ["subscriptionId", "resourceGroup", "server", "elasticPool"];
const wsInputs = ["subscriptionId", "resourceGroup", "workspace"];
const db = (i: Inputs) => ({ subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, server: i.server, database: i.database });
const pool = (i: Inputs) => ({
  subscriptionId: i.subscriptionId,
  resourceGroup: i.resourceGroup,
  server: i.server,
  elasticPool: i.elasticPool,
});
const ws = (i: Inputs) => ({ subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, workspace: i.workspace });

export const DATA_SOURCES: Record<DataSourceKind, DataSourceSpec> = {
  "sql:ServiceTierAdvisors": {
    // serviceObjective: the tier the stack intends, carried for the tier-drift policy.
    inputs: dbInputs,
    optional: ["serviceObjective"],
    output: "advisors",
    id: (i) => `${sqlDatabaseId(db(i))}/serviceTierAdvisors`,
    read: (c, i) => c.sql.listServiceTierAdvisors(db(i)),
  },
  "sql:ElasticPoolActivities": {
    inputs: poolInputs,
    output: "activities",
    id: (i) => `${elasticPoolId(pool(i))}/elasticPoolActivity`,
    read: (c, i) => c.sql.listElasticPoolActivities(pool(i)),
  },
  "sql:ElasticPoolDatabaseActivities": {
    inputs: poolInputs,
    output: "activities",
    id: (i) => `${elasticPoolId(pool(i))}/elasticPoolDatabaseActivity`,
    read: (c, i) => c.sql.listElasticPoolDatabaseActivities(pool(i)),
  },
  "sql:TransparentDataEncryptionActivities": {
    inputs: dbInputs,
    output: "activities",
    id: (i) => `${tdeConfigurationId(db(i))}/operationResults`,
    read: (c, i) => c.sql.listTransparentDataEncryptionActivities(db(i)),
  },
  "batchai:Workspace": {
    inputs: wsInputs,
    output: "workspaceResource",
    id: (i) => batchWorkspaceId(ws(i)),
    read: (c, i) => c.batch.getWorkspace(ws(i)),
  },
  "batchai:Cluster": {
    inputs: [...wsInputs, "cluster"],
    output: "clusterResource",
    id: (i) => childId(batchWorkspaceId(ws(i)), "clusters", i.cluster),
    read: (c, i) => c.batch.getCluster(ws(i), i.cluster),
  },
  "batchai:Experiment": {
    inputs: [...wsInputs, "experiment"],
    output: "experimentResource",
    id: (i) => childId(batchWorkspaceId(ws(i)), "experiments", i.experiment),
    read: (c, i) => c.batch.getExperiment(ws(i), i.experiment),
  },
  "batchai:FileServer": {
    inputs: [...wsInputs, "fileServer"],
    output: "fileServerResource",
    id: (i) => childId(batchWorkspaceId(ws(i)), "fileServers", i.fileServer),
    read: (c, i) => c.batch.getFileServer(ws(i), i.fileServer),
  },
  "batchai:Jobs": {
    inputs: [...wsInputs, "experiment"],
    output: "jobs",
    id: (i) => `${childId(batchWorkspaceId(ws(i)), "experiments", i.experiment)}/jobs`,
    read: (c, i) => c.batch.listJobs(ws(i), i.experiment),
  },
  "batchai:Usages": {
    inputs: ["subscriptionId", "location"],
    output: "usages",
    id: (i) => batchUsagesId({ subscriptionId: i.subscriptionId, location: i.location }),
    read: (c, i) => c.batch.listUsages(i.subscriptionId, i.location),
  },
};

export interface DataSourceState {
  id: string;
  /** The inputs plus the output property with the API's answer. */
  outs: Record<string, unknown>;
}

/** Checks a data source's inputs (data-source-inputs.ts). */
export function checkDataSourceInputs(
  kind: DataSourceKind,
  news: Record<string, unknown>,
  isUnknown?: (v: unknown) => boolean,
): InputFailure[] {
  const spec = DATA_SOURCES[kind];
  return checkDataSourceInputSpec({ ...spec, outputs: [spec.output] }, news, isUnknown);
}

/** Reads a data source: one GET (or one paged list). */
export async function readDataSource(
  clients: Pick<ClientSet, "sql" | "batch">,
  kind: DataSourceKind,
  inputs: Record<string, unknown>,
): Promise<DataSourceState> {
  const spec = DATA_SOURCES[kind];
  const i = pick(spec.inputs, inputs);
  const extra = Object.fromEntries((spec.optional ?? []).filter((k) => typeof inputs[k] === "string").map((k) => [k, inputs[k]]));
  return { id: spec.id(i), outs: { ...i, ...extra, [spec.output]: await spec.read(clients, i) } };
}

/**
 * A refresh (or a lookup by id when `props` lacks the inputs): reads again and returns the
 * inputs separately from the data. A 404 gives an empty id, so the engine drops the resource.
 */
export async function refreshDataSource(
  clients: Pick<ClientSet, "sql" | "batch">,
  kind: DataSourceKind,
  id: string,
  props: Record<string, unknown> | undefined,
): Promise<{ id: string; props?: Record<string, unknown>; inputs?: Record<string, unknown> }> {
  const spec = DATA_SOURCES[kind];
  const inputs = props && spec.inputs.every((k) => typeof props[k] === "string") ? props : dataSourceInputsFromId(kind, id);
  let state: DataSourceState;
  try {
    state = await readDataSource(clients, kind, inputs);
  } catch (e) {
    if (isNotFound(e)) return { id: "" };
    throw e;
  }
  const plainInputs = Object.fromEntries(Object.entries(state.outs).filter(([k]) => k !== spec.output));
  return { id: state.id, props: state.outs, inputs: plainInputs };
}

/** The id segment each input is read from, for lookups by id. */
const INPUT_SEGMENTS: Record<string, string> = {
  server: "servers",
  database: "databases",
  elasticPool: "elasticPools",
  workspace: "workspaces",
  cluster: "clusters",
  experiment: "experiments",
  fileServer: "fileServers",
  location: "locations",
};

/** Inputs from an id, for a lookup by resource id: the id must be exactly the one those inputs give. */
export function dataSourceInputsFromId(kind: DataSourceKind, id: string): Inputs {
  const spec = DATA_SOURCES[kind];
  const p = parseResourceId(id);
  const inputs: Inputs = {};
  for (const k of spec.inputs) {
    const v =
      k === "subscriptionId"
        ? p?.subscriptionId
        : k === "resourceGroup"
          ? p?.resourceGroup
          : p?.segments.find((s) => s.type.toLowerCase() === INPUT_SEGMENTS[k]?.toLowerCase())?.name;
    if (v) inputs[k] = v;
  }
  if (!spec.inputs.every((k) => inputs[k]) || !sameResourceId(spec.id(inputs), id)) {
    throw new Error(`"${id}" is not an id of a ${kind.split(":")[1]} data source`);
  }
  return inputs;
}

/** Whether two reads differ (a data source "changes" when what the API says changed). */
export function dataChanged(kind: DataSourceKind, olds: Record<string, unknown>, fresh: Record<string, unknown>): boolean {
  const key = DATA_SOURCES[kind].output;
  return stableJson(olds[key]) !== stableJson(fresh[key]);
}

function pick(keys: string[], from: Record<string, unknown>): Inputs {
  const out: Inputs = {};
  for (const k of keys) {
    const v = from[k];
    if (typeof v !== "string" || !v) throw new Error(`${k} is required`);
    out[k] = v;
  }
  return out;
}

function stableJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : x,
  );
}
