import { providerNamespace, type ArmService, type NamingStyle } from "./provider-namespace";

/**
 * The one place where Azure Resource Manager ids are built, parsed and labelled.
 *
 * An id is `/subscriptions/S[/resourceGroups/G][/providers/NS/type/name[/type/name…]]`. Ids are built
 * with the real namespaces (`Microsoft.Sql`): they are what Azure returns and what reports and
 * exemptions name, whatever spelling a client sends. Request paths are the same shape with each
 * segment URI-encoded and the namespace the client is configured for (`pathStyle`).
 */

export interface SubscriptionScope {
  subscriptionId: string;
}
export interface ResourceGroupScope extends SubscriptionScope {
  resourceGroup: string;
}
export interface ServerRef extends ResourceGroupScope {
  server: string;
}
export interface DatabaseRef extends ServerRef {
  database: string;
}
export interface ElasticPoolRef extends ServerRef {
  elasticPool: string;
}
export interface WorkspaceRef extends ResourceGroupScope {
  workspace: string;
}

/** How an id is written: as an id (real namespace, raw segments) or as a request path. */
export interface IdStyle {
  /** Namespace spelling; default `real`. */
  naming?: NamingStyle;
  /** URI-encode each name (request paths); default false (ids as Azure returns them). */
  encode?: boolean;
}

/** The style of request paths for a client with this naming. */
export const pathStyle = (naming: NamingStyle = "real"): IdStyle => ({ naming, encode: true });

/** The name of a database's TDE configuration (there is only one). */
export const TDE_CONFIGURATION_NAME = "current";

function part(value: string, style: IdStyle | undefined): string {
  return style?.encode ? encodeURIComponent(value) : value;
}

/** `/subscriptions/S`. */
export function subscriptionId(scope: SubscriptionScope, style?: IdStyle): string {
  return `/subscriptions/${part(scope.subscriptionId, style)}`;
}

/** `/subscriptions/S/resourceGroups/G`. */
export function resourceGroupId(scope: ResourceGroupScope, style?: IdStyle): string {
  return `${subscriptionId(scope, style)}/resourceGroups/${part(scope.resourceGroup, style)}`;
}

/** `<scope>/providers/<namespace>`: a provider under a subscription or resource group (or the tenant, scope `""`). */
export function providerScope(scope: string, service: ArmService, style?: IdStyle): string {
  return `${scope}/providers/${providerNamespace(service, style?.naming)}`;
}

/** Appends `/type/name` pairs to a parent id. */
export function childId(parent: string, type: string, name: string, style?: IdStyle): string {
  return `${parent}/${type}/${part(name, style)}`;
}

/** A SQL server. */
export function sqlServerId(ref: ServerRef, style?: IdStyle): string {
  return childId(providerScope(resourceGroupId(ref, style), "Sql", style), "servers", ref.server, style);
}

/** A SQL database. */
export function sqlDatabaseId(ref: DatabaseRef, style?: IdStyle): string {
  return childId(sqlServerId(ref, style), "databases", ref.database, style);
}

/** A database's TDE configuration (`…/transparentDataEncryption/current`). */
export function tdeConfigurationId(ref: DatabaseRef, style?: IdStyle): string {
  return childId(sqlDatabaseId(ref, style), "transparentDataEncryption", TDE_CONFIGURATION_NAME, style);
}

/** A SQL elastic pool. */
export function elasticPoolId(ref: ElasticPoolRef, style?: IdStyle): string {
  return childId(sqlServerId(ref, style), "elasticPools", ref.elasticPool, style);
}

/** A Batch AI workspace. */
export function batchWorkspaceId(ref: WorkspaceRef, style?: IdStyle): string {
  return childId(providerScope(resourceGroupId(ref, style), "BatchAI", style), "workspaces", ref.workspace, style);
}

/** The Batch AI usages of a location (a collection); with `name`, one usage (usages have no id of their own, so reports use this). */
export function batchUsagesId(scope: SubscriptionScope & { location: string }, style?: IdStyle, name?: string): string {
  const list = `${childId(providerScope(subscriptionId(scope, style), "BatchAI", style), "locations", scope.location, style)}/usages`;
  return name === undefined ? list : `${list}/${part(name, style)}`;
}

/** One `type/name` step of an id after its provider. */
export interface IdSegment {
  type: string;
  name: string;
}

/** An id taken apart. Names are URI-decoded; a part the id lacks is undefined. */
export interface ParsedResourceId {
  subscriptionId: string;
  resourceGroup?: string;
  /** The namespace as written (`Microsoft.Sql`, `provider.sql` …). */
  namespace?: string;
  /** The service the namespace names, matched case-insensitively in either spelling. */
  service?: ArmService;
  /** The `type/name` pairs after the namespace; a trailing type without a name (a collection) has name "". */
  segments: IdSegment[];
}

const SERVICES: readonly ArmService[] = ["Sql", "BatchAI"];

/**
 * Takes an id apart, tolerantly: case-insensitive keywords, either namespace spelling, repeated or
 * trailing slashes, URI-encoded names. Undefined when it does not start with `/subscriptions/<id>`.
 */
export function parseResourceId(id: string): ParsedResourceId | undefined {
  if (typeof id !== "string") return undefined;
  const parts = id.split("/").filter((p) => p.length > 0);
  if (parts.length < 2 || parts[0].toLowerCase() !== "subscriptions") return undefined;
  const out: ParsedResourceId = { subscriptionId: decode(parts[1]), segments: [] };
  let i = 2;
  if (parts[i]?.toLowerCase() === "resourcegroups" && parts[i + 1] !== undefined) {
    out.resourceGroup = decode(parts[i + 1]);
    i += 2;
  }
  if (parts[i]?.toLowerCase() === "providers" && parts[i + 1] !== undefined) {
    out.namespace = parts[i + 1];
    const suffix = out.namespace.toLowerCase().replace(/^(microsoft|provider)\./, "");
    out.service = SERVICES.find((s) => s.toLowerCase() === suffix && /^(microsoft|provider)\./i.test(out.namespace!));
    i += 2;
  }
  for (; i < parts.length; i += 2) out.segments.push({ type: parts[i], name: parts[i + 1] === undefined ? "" : decode(parts[i + 1]) });
  return out;
}

/** The names of the first segments, when their types are `types` (case-insensitive) in that order. */
function leadingNames(p: ParsedResourceId, ...types: string[]): string[] | undefined {
  const names = types.map((t, i) => (p.segments[i]?.type.toLowerCase() === t.toLowerCase() ? p.segments[i].name : ""));
  return names.every((n) => n) ? names : undefined;
}

/** The database an id names or lies under (a database, its TDE configuration, advisors …). */
export function databaseRefOf(id: string): DatabaseRef | undefined {
  const p = parseResourceId(id);
  if (!p?.resourceGroup || p.service !== "Sql") return undefined;
  const n = leadingNames(p, "servers", "databases");
  return n && { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, server: n[0], database: n[1] };
}

/** The elastic pool an id names or lies under. */
export function elasticPoolRefOf(id: string): ElasticPoolRef | undefined {
  const p = parseResourceId(id);
  if (!p?.resourceGroup || p.service !== "Sql") return undefined;
  const n = leadingNames(p, "servers", "elasticPools");
  return n && { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, server: n[0], elasticPool: n[1] };
}

/** The Batch AI workspace an id names or lies under (a workspace, or a cluster, experiment, job or file server of it). */
export function workspaceRefOf(id: string): WorkspaceRef | undefined {
  const p = parseResourceId(id);
  if (!p?.resourceGroup || !p.namespace) return undefined;
  const n = leadingNames(p, "workspaces");
  return n && { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, workspace: n[0] };
}

/** The last name of an id: the resource's own name ("" for an id that ends in a collection). */
export function leafName(id: string): string {
  const trimmed = id.replace(/\/+$/, "");
  return decode(trimmed.slice(trimmed.lastIndexOf("/") + 1));
}

/** `rg/server/database`: how a database is named in output. */
export function databaseLabel(ref: Pick<DatabaseRef, "resourceGroup" | "server" | "database">): string {
  return `${ref.resourceGroup}/${ref.server}/${ref.database}`;
}

/** `rg/server/pool`: how an elastic pool is named in output. */
export function elasticPoolLabel(ref: Pick<ElasticPoolRef, "resourceGroup" | "server" | "elasticPool">): string {
  return `${ref.resourceGroup}/${ref.server}/${ref.elasticPool}`;
}

/** A workspace for messages: `Batch AI workspace 'ws' (resource group 'rg', subscription 's')`. */
export function describeWorkspace(ref: WorkspaceRef): string {
  return `Batch AI workspace '${ref.workspace}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`;
}

/** Whether a database is the system database `master` (ARM names are case-insensitive); TDE rules never judge it. */
export function isMasterDatabase(name: string): boolean {
  return name.toLowerCase() === "master";
}

/**
 * Whether two ids name the same resource: ARM compares ids case-insensitively, and here trailing
 * slashes, URI-encoding and the namespace spelling (`Provider.Sql` for `Microsoft.Sql`) do not count either.
 */
export function sameResourceId(a: string, b: string): boolean {
  return canonicalId(a) === canonicalId(b);
}

function canonicalId(id: string): string {
  return decode(id)
    .replace(/\/+/g, "/")
    .replace(/\/$/, "")
    .toLowerCase()
    .replace(/\/providers\/provider\./g, "/providers/microsoft.");
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What is odd about a resource's `id`, or undefined when it is a usable ARM id: missing, empty, not
 * a string, or not of the shape `/subscriptions/…`. Such a resource is still handed on.
 */
export function oddResourceId(resource: object): string | undefined {
  const id = (resource as { id?: unknown }).id;
  if (id === undefined || id === null) return 'has no id (its "id" member is missing)';
  if (typeof id !== "string") return `has an id that is not a string (${typeof id})`;
  if (id.length === 0) return 'has an empty id (its "id" member is "")';
  if (!ARM_ID_START.test(id)) return `has the id '${id}', which is not an ARM resource id (/subscriptions/…)`;
  return undefined;
}

/**
 * What `parseResourceId` accepts, tested without taking the id apart: `subscriptions` (any case) as
 * the first non-empty segment and a second segment after it. Every item of every list is checked, so
 * the parse (a split, a filter, a decode per name) would be paid ten thousand times for nothing.
 */
const ARM_ID_START = /^\/*subscriptions\/+[^/]/i;
