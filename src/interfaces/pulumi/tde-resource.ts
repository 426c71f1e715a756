import Ajv from "ajv";
import { STATIC_KEY_SCHEMAS } from "../../domain/stack/stack-schema";
import { TDE_CONFIGURATION_NAME, databaseRefOf, parseResourceId, sqlDatabaseId, tdeConfigurationId } from "../../platform/arm/resource-id";
import { type TdeApi, type TdeDatabaseRef, type TdeResource, type TdeStatus } from "../../domain/reconcile/tde-api";
import { setTdeStatus, type TdeWrite } from "../../domain/reconcile/tde-set";
import { describeAjvError, formatKeyPath, pointerToPath } from "../../platform/yaml/located-yaml";
import { isNotFound } from "./not-found";

/** Inputs of the TransparentDataEncryption resource: the stack file's database entry plus the subscription. */
export interface TdeInputs {
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  database: string;
  /** The desired status. */
  transparentDataEncryption: TdeStatus;
  /**
   * What deleting the resource does: `retain` (the default) leaves the database's encryption as
   * it is; `Enabled`/`Disabled` set that status first. Retain is the default because removing a
   * resource from a stack must never silently decrypt a production database.
   */
  onDelete?: "retain" | TdeStatus;
  /** Longest wait for a scan, in seconds. Default 3600. */
  scanTimeoutSeconds?: number;
  /** Time between progress polls, in ms. Default 2000. */
  pollIntervalMs?: number;
  /** Where the stack file names the database (`stacks/Pulumi.dev.yaml:12:7`), for errors; not compared by diff. */
  stackEntry?: string;
  /**
   * The stack whose lock and audit trail the resource's writes go under: the Pulumi stack (the
   * resource class sets it). A write of a resource without one (recorded by an earlier version) is
   * refused; an update records it.
   */
  stack?: string;
}

/** Outputs: the inputs plus what the API says. */
export interface TdeOutputs extends TdeInputs {
  /** The live status as last read. */
  status: string;
  /** The database's ARM id. */
  databaseId: string;
  /**
   * The TDE configuration's `location` as the API returned it (`East US`, `westeurope`), which the
   * data-residency policy places in a country; absent when the API sends none.
   */
  location?: string;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

const item = STATIC_KEY_SCHEMAS["stackwarden:databases"].items;
/** The stack file's schema for one database, plus the resource's own settings. */
export const TDE_INPUTS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["subscriptionId", "resourceGroup", "server", "database", "transparentDataEncryption"],
  properties: {
    subscriptionId: STATIC_KEY_SCHEMAS["stackwarden:subscriptionId"],
    resourceGroup: item.properties.resourceGroup,
    server: item.properties.server,
    database: item.properties.database,
    transparentDataEncryption: item.properties.transparentDataEncryption,
    onDelete: { type: "string", enum: ["retain", "Enabled", "Disabled"] },
    scanTimeoutSeconds: { type: "number", exclusiveMinimum: 0 },
    pollIntervalMs: { type: "number", minimum: 10 },
    stackEntry: { type: "string" },
    stack: { type: "string", minLength: 1 },
  },
};

let validate: ReturnType<Ajv["compile"]> | undefined;

/** Validates inputs with the stack schema; values not known yet (`isUnknown`) are not judged. */
export function checkTdeInputs(news: Record<string, unknown>, isUnknown: (v: unknown) => boolean = () => false): CheckFailure[] {
  validate ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile(TDE_INPUTS_SCHEMA);
  const known = Object.fromEntries(Object.entries(news).filter(([k, v]) => !k.startsWith("__") && !isUnknown(v)));
  if (validate(known)) return [];
  const failures: CheckFailure[] = [];
  for (const err of validate.errors ?? []) {
    const path = pointerToPath(err.instancePath);
    if (err.keyword === "additionalProperties") path.push(String(err.params.additionalProperty));
    if (err.keyword === "required" && isUnknown(news[String(err.params.missingProperty)])) continue;
    failures.push({ property: formatKeyPath(path) || String(err.params.missingProperty ?? ""), reason: describeAjvError(err) });
  }
  return failures;
}

export function tdeRef(i: Pick<TdeInputs, "subscriptionId" | "resourceGroup" | "server" | "database">): TdeDatabaseRef {
  return { subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, server: i.server, database: i.database };
}

/** The resource's id: the TDE configuration's ARM id. */
export function tdeResourceId(ref: TdeDatabaseRef): string {
  return tdeConfigurationId(ref);
}

/** Parses a TDE configuration (or database) ARM id, whichever namespace spelling it uses. */
export function parseTdeResourceId(id: string): TdeDatabaseRef {
  const ref = databaseRefOf(id);
  // After servers/S/databases/D: nothing (a database id), or transparentDataEncryption/current.
  const tail = parseResourceId(id)?.segments.slice(2) ?? [];
  const tde =
    tail.length === 1 &&
    tail[0].type.toLowerCase() === "transparentdataencryption" &&
    tail[0].name.toLowerCase() === TDE_CONFIGURATION_NAME;
  if (!ref || (tail.length > 0 && !tde))
    throw new Error(
      `"${id}" is not the id of a SQL database's transparent data encryption (…/servers/S/databases/D/transparentDataEncryption/current)`,
    );
  return ref;
}

const IDENTITY: (keyof TdeInputs)[] = ["subscriptionId", "resourceGroup", "server", "database"];

export interface TdeDiff {
  changes: boolean;
  replaces: string[];
  /** Properties that differ, for the engine's detailed diff. */
  changed: string[];
}

/** Compares the last known outputs with new inputs: another database means replace; another status means update. */
export function diffTde(olds: Partial<TdeOutputs>, news: TdeInputs): TdeDiff {
  const replaces = IDENTITY.filter((k) => !sameText(olds[k], news[k], k !== "subscriptionId"));
  const changed: string[] = [...replaces];
  const live = olds.status ?? olds.transparentDataEncryption;
  if (live !== news.transparentDataEncryption) changed.push("transparentDataEncryption");
  for (const k of ["onDelete", "scanTimeoutSeconds", "pollIntervalMs"] as const) if (olds[k] !== news[k]) changed.push(k);
  // A resource recorded without its stack (an earlier version) gets it by an update: its delete can then take the lock.
  if (news.stack !== undefined && olds.stack !== news.stack) changed.push("stack");
  return { changes: changed.length > 0, replaces, changed };
}

/** The write the inputs ask for: the database, its desired status, the scan's timing. */
export function tdeWriteOf(inputs: TdeInputs): TdeWrite {
  return {
    ref: tdeRef(inputs),
    status: inputs.transparentDataEncryption,
    scanTimeoutMs: (inputs.scanTimeoutSeconds ?? 3600) * 1000,
    pollIntervalMs: inputs.pollIntervalMs ?? 2000,
  };
}

/** The outputs of a create or update: the inputs, the status now reached, the database's id, and the configuration's location as read. */
export function tdeOutputsOf(inputs: TdeInputs, read: TdeResource): TdeOutputs {
  return { ...inputs, status: inputs.transparentDataEncryption, databaseId: sqlDatabaseId(tdeRef(inputs)), ...locationOf(read) };
}

/**
 * PUTs the desired status (when it differs) and waits for the scan; returns the outputs. Takes no
 * lock and writes no audit entry: the provider's writes go through `writeTdeInputs`
 * (tde-locked-writes.ts), which runs this under the stack's lock.
 */
export async function applyTdeInputs(api: TdeApi, inputs: TdeInputs): Promise<TdeOutputs> {
  const r = await setTdeStatus(api, tdeWriteOf(inputs));
  if (r.failure) throw r.failure;
  return tdeOutputsOf(inputs, r.read);
}

/** Reads the live status; the returned inputs carry it, so a refresh makes the next diff see drift. */
export async function readTde(
  api: TdeApi,
  id: string,
  props: Partial<TdeOutputs>,
): Promise<{ id: string; props?: TdeOutputs; inputs?: TdeInputs }> {
  const ref =
    props.subscriptionId && props.resourceGroup && props.server && props.database ? tdeRef(props as TdeInputs) : parseTdeResourceId(id);
  let tde: Awaited<ReturnType<TdeApi["getTransparentDataEncryption"]>>;
  try {
    tde = await api.getTransparentDataEncryption(ref);
  } catch (e) {
    // The database is gone: an empty id tells the engine to drop the resource on refresh.
    if (isNotFound(e)) return { id: "" };
    throw e;
  }
  const status = tde.properties?.status ?? "";
  const live: TdeStatus = status === "Enabled" ? "Enabled" : "Disabled";
  const inputs: TdeInputs = { ...stripOutputs(props), ...ref, transparentDataEncryption: live };
  return { id: tdeResourceId(ref), props: { ...inputs, status, databaseId: sqlDatabaseId(ref), ...locationOf(tde) }, inputs };
}

/**
 * What deleting writes: nothing unless `onDelete` names a status to set first (then the inputs that
 * set it). Retain is the default: removing a resource must never silently decrypt a database.
 */
export function deletionWrite(props: Partial<TdeOutputs>): TdeInputs | undefined {
  const target = props.onDelete ?? "retain";
  if (target === "retain") return undefined;
  return { ...(stripOutputs(props) as TdeInputs), transparentDataEncryption: target };
}

const OUTPUT_ONLY = new Set(["status", "databaseId", "location"]);

function stripOutputs(p: Partial<TdeOutputs>): Partial<TdeInputs> {
  return Object.fromEntries(Object.entries(p).filter(([k]) => !OUTPUT_ONLY.has(k) && !k.startsWith("__"))) as Partial<TdeInputs>;
}

/** The configuration's location as an output, only when the API sent one (Pulumi state holds no nulls). */
function locationOf(tde: { location?: unknown }): { location?: string } {
  return typeof tde.location === "string" && tde.location ? { location: tde.location } : {};
}

function sameText(a: unknown, b: unknown, caseInsensitive: boolean): boolean {
  if (typeof a === "string" && typeof b === "string") return caseInsensitive ? a.toLowerCase() === b.toLowerCase() : a === b;
  return a === b;
}
