import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import { resourceNotFound } from "../../kit/arm-conventions";
import { Type } from "../../kit/seed-types";
import type { DatabaseRef, ServerRef } from "../../../platform/arm/resource-id";
import { uuid } from "./seed-formats";

/**
 * The Azure SQL estate the emulator serves: servers in resource groups of subscriptions, databases
 * on servers (and the implicit `master` of each). This is the hierarchy every SQL resource module
 * (sql-resources.ts) hangs its seed fragment, state and routes on; what a server or database carries
 * beyond its place in it, each module declares in its own file (it adds its keys to the interfaces
 * below by declaration merging, beside its seed fragment).
 */

/** The state of the `sql:` section (plain JSON, persisted with `--state`). */
export interface SqlState {
  servers: SqlServerState[];
}

/** A server: where it is, and its databases; its resources' modules add the rest. */
export interface SqlServerState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  databases: SqlDatabaseState[];
}

/** A database: its name; its resources' modules add the rest. */
export interface SqlDatabaseState {
  name: string;
}

export const DEFAULT_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";
export const DEFAULT_LOCATION = "East US";

/** The hierarchy's own keys of the seed: the section's, a server's and a database's. */
export const ESTATE_SEED = {
  subscriptionId: Type.Optional(uuid(`Optional: the subscription of servers that name none. Default ${DEFAULT_SUBSCRIPTION_ID}.`)),
};
export const SERVER_SEED = {
  name: Type.String({
    pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$",
    description:
      "Required: 1-63 lower-case letters, digits and hyphens, not starting or ending with a hyphen; unique across the estate (server names are global DNS names).",
  }),
  resourceGroup: Type.String({
    pattern: "^[-\\w.()]{0,89}[-\\w()]$",
    description:
      "Required: 1-90 letters, digits, underscores, hyphens, periods and parentheses, not ending with a period. The group exists because the server is in it.",
  }),
  subscriptionId: Type.Optional(uuid("Optional. Default: sql.subscriptionId.")),
  location: Type.Optional(
    Type.String({
      minLength: 1,
      description: "Optional: reported as `location` of the server's resources. Default: East US (2014-04-01 reports display names).",
    }),
  ),
};
export const DATABASE_SEED = {
  name: Type.String({
    minLength: 1,
    maxLength: 128,
    // Azure's reserved characters; `master` is implicit on every server and cannot be declared.
    pattern: "^(?![Mm][Aa][Ss][Tt][Ee][Rr]$)[^<>*%&:\\\\/?#]+$",
    description:
      "Required: 1-128 characters without <>*%&:\\/?#; unique per server case-insensitively; not master (every server has an implicit master whose TDE is Disabled and cannot be changed).",
  }),
};

/** A server as the routes find it: its state, its databases by lower-case name (master included), its place in the state. */
export interface ServerEntry {
  server: SqlServerState;
  databases: Map<string, DatabaseEntry>;
  /** `servers`, i: where the server lives in the service state (for the state journal). */
  path: (string | number)[];
}

/** A database as the routes find it. */
export interface DatabaseEntry {
  server: SqlServerState;
  db: SqlDatabaseState;
  /** The implicit system database (read-only). */
  master: boolean;
  /** Where the database lives in the service state (`servers`, i, `databases`, j), for the state journal; empty for master. */
  path: (string | number)[];
}

/** The case-insensitive key of a resource group. */
export function groupKey(sub: string, rg: string): string {
  return `${sub.toLowerCase()}\u0000${rg.toLowerCase()}`;
}

/** The case-insensitive key of a server. */
export function serverKey(sub: string, rg: string, server: string): string {
  return `${groupKey(sub, rg)}\u0000${server.toLowerCase()}`;
}

/** The server's ARM reference. */
export function serverRef(server: SqlServerState): ServerRef {
  return { subscriptionId: server.subscriptionId, resourceGroup: server.resourceGroup, server: server.name };
}

/** The database's ARM reference. */
export function dbRef(server: SqlServerState, db: SqlDatabaseState): DatabaseRef {
  return { ...serverRef(server), database: db.name };
}

/** ARM's 404 for `Microsoft.Sql/servers/<path>`, naming the resource as it was asked for. */
export function notFound(req: EmulatorRequest, path: string): EmulatorReply {
  return resourceNotFound("Microsoft.Sql/servers", path, req.params.resourceGroupName);
}

/** The request's api-version (the ARM front door has checked that it is one the route accepts). */
export function apiVersionOf(req: EmulatorRequest): string {
  return req.query.get("api-version")!;
}

/** A 2014-04-01 list: `{ value }`, never paged (no nextLink). */
export function unpagedList<T>(value: T[]): EmulatorReply {
  return { status: 200, body: { value } };
}

/** Throws `message(name, i)` for the first name that repeats one before it, case-insensitively. */
export function unique(names: string[], message: (name: string, index: number) => string): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    const k = n.toLowerCase();
    if (seen.has(k)) throw new Error(message(n, i));
    seen.add(k);
  });
}
