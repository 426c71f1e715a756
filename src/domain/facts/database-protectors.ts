import { mapBounded } from "../../platform/bounded-map";
import { databaseSubscription } from "../stack/stack-config";
import { sqlDatabaseId, type DatabaseRef, type ServerRef } from "../../platform/arm/resource-id";
import type { SourceLocation } from "../../platform/yaml/source-location";
import { SQL_DATABASES_LIST_BY_SERVER, type Database, type DatabaseIdentity } from "../../services/sql/database-types";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import type { GatherContext } from "./fact-kind";
import {
  customerKeysOf,
  readOutcomeOf,
  readProtectorOnce,
  stackServers,
  type ProtectorKeyRef,
  type ReadOutcome,
  type StackServer,
} from "./key-custody-reads";
import type { ReadFailure } from "./read-failure";
import { serverParamsOf } from "./read-params";

/**
 * Database-level TDE protectors: Azure SQL lets a database carry its own customer-managed key (the
 * database resource's `properties.encryptionProtector`, with its own user-assigned identity), which
 * protects that database instead of the server's protector. Gathering lists each stack server's
 * databases once (Databases_ListByServer at 2023-02-01-preview, one request per page, shared through
 * `ctx.once`) rather than reading each database (Databases_Get): at fleet scale that is one request
 * per server page instead of one per database. A database with its own protector is judged on its
 * key, and the server's protector judges the server's others.
 */

/** One protector of the stack: a server's (for the stack databases without their own), or a database's own. */
export interface ProtectorRead {
  /** The server; its `databases` are the ones this protector protects. */
  server: StackServer;
  /** Set for a database's own protector: the database, its stack line and the identity it reaches its key with. */
  database?: { name: string; id: string; source?: SourceLocation; identity?: DatabaseIdentity };
  /** The protector (a database's as an `EncryptionProtector` of its key URI), or why it could not be read. */
  outcome: ReadOutcome<EncryptionProtector>;
}

/** A server's databases (Databases_ListByServer, every page), listed once per gathering. */
export function listServerDatabasesOnce(ctx: GatherContext, server: ServerRef): Promise<ReadOutcome<Database[]>> {
  const key = `databases:${[server.subscriptionId, server.resourceGroup, server.server].join("/").toLowerCase()}`;
  const reads = ctx.clients.reads;
  return ctx.once(key, () => readOutcomeOf(reads, () => reads.read("Databases_ListByServer", serverParamsOf(server), ctx.signal)));
}

/** A database's name as a list item gives it (its `name`, else its id's last segment), lower-cased. */
function listedName(db: Database): string | undefined {
  const name = typeof db.name === "string" && db.name ? db.name : typeof db.id === "string" ? db.id.split("/").pop() : undefined;
  return name?.toLowerCase();
}

/**
 * A server's list indexed by database name (`listedName`; the first item of a name wins, as a search
 * of the list would find it), built once per gathering: every stack database of the server is looked
 * up in it, so resolving a fleet's databases costs one pass over each list rather than a search of
 * its server's list per database.
 */
function indexedServerDatabasesOnce(ctx: GatherContext, server: ServerRef): Promise<ReadOutcome<Map<string, Database>>> {
  const key = `databases-by-name:${[server.subscriptionId, server.resourceGroup, server.server].join("/").toLowerCase()}`;
  return ctx.once(key, async () => {
    const listed = await listServerDatabasesOnce(ctx, server);
    if (listed.failure) return listed;
    const byName = new Map<string, Database>();
    for (const d of listed.read.value) {
      const name = listedName(d);
      if (name !== undefined && !byName.has(name)) byName.set(name, d);
    }
    return { read: { value: byName, receipt: listed.read.receipt } };
  });
}

/**
 * A stack database's resource out of its server's list, as Databases_Get answered it: the database
 * with the list's receipt; the list's failure (403, 404) for each of its databases; a database the
 * list does not hold is the 404 the single read gave (it stays with its server).
 */
function databaseResourceIn(listed: ReadOutcome<Map<string, Database>>, db: DatabaseRef): ReadOutcome<Database> {
  if (listed.failure) return listed;
  const value = listed.read.value.get(db.database.toLowerCase());
  if (!value) return { failure: notListed(db) };
  return { read: { value, receipt: listed.read.receipt } };
}

/** What a database missing from its server's list reads as: not found, as Databases_Get said it. */
function notListed(db: DatabaseRef): ReadFailure {
  return {
    status: 404,
    code: "ResourceNotFound",
    message: `Databases_ListByServer of SQL server '${db.server}' (resource group '${db.resourceGroup}') does not list database '${db.database}'.`,
    operation: SQL_DATABASES_LIST_BY_SERVER,
    readAt: new Date().toISOString(),
  };
}

/**
 * A database's own TDE protector as the server's protector is shaped (`AzureKeyVault`, its key URI,
 * its auto-rotation), so that its key is taken apart as a server's is (`protectorKeyOf`); undefined
 * when the database has none (its server's protector protects it).
 */
export function databaseProtectorOf(db: Database | undefined): EncryptionProtector | undefined {
  const uri = db?.properties?.encryptionProtector;
  if (typeof uri !== "string" || !uri) return undefined;
  const rotation = db?.properties?.encryptionProtectorAutoRotation;
  return {
    id: db!.id,
    properties: { serverKeyType: "AzureKeyVault", uri, ...(typeof rotation === "boolean" ? { autoRotationEnabled: rotation } : {}) },
  };
}

/**
 * Every protector of the stack, servers first in stack order, each followed by its databases' own:
 * one protector read and one database list per server. A database that cannot be read for lack of
 * rights (a 403 on its server's list) is an entry of its own that says so (whether it has its own
 * key is not known); one that is not there (not listed, or a 404 on the list) stays with its server
 * (the TDE status reports it).
 */
export function stackProtectorReads(ctx: GatherContext): Promise<ProtectorRead[]> {
  // Every key custody kind starts from these (protectors, keys, vaults, role assignments): worked out once.
  return ctx.once("stack-protector-reads", () => readStackProtectors(ctx));
}

async function readStackProtectors(ctx: GatherContext): Promise<ProtectorRead[]> {
  const servers = stackServers(ctx.stack);
  // Both bounded by the stack's concurrency; the databases' reads share their server's one list.
  const [protectors, lists] = await Promise.all([
    mapBounded(servers, ctx.concurrency, (s) => readProtectorOnce(ctx, s)),
    mapBounded(servers, ctx.concurrency, (s) => indexedServerDatabasesOnce(ctx, s)),
  ]);
  const serverAt = new Map(servers.map((s, i) => [s.label.toLowerCase(), i]));
  const own = new Map<string, ProtectorRead[]>();
  for (const d of ctx.stack.databases) {
    const at = serverAt.get(`${d.resourceGroup}/${d.server}`.toLowerCase())!;
    const read = databaseResourceIn(lists[at], {
      subscriptionId: databaseSubscription(ctx.stack, d),
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
    });
    const protector = databaseProtectorOf(read.read?.value);
    if (!protector && read.failure?.status !== 403) continue;
    const server = servers[at];
    const identity = read.read?.value.identity;
    const entry: ProtectorRead = {
      server,
      database: {
        name: d.database,
        id: sqlDatabaseId({ ...server, database: d.database }),
        ...(d.source ? { source: d.source } : {}),
        ...(identity ? { identity } : {}),
      },
      outcome: read.failure ? { failure: read.failure } : { read: { value: protector!, receipt: read.read!.receipt } },
    };
    const theirs = own.get(server.id);
    if (theirs) theirs.push(entry);
    else own.set(server.id, [entry]);
  }
  return servers.flatMap((server, i) => {
    const theirs = own.get(server.id) ?? [];
    if (theirs.length === 0) return [{ server, outcome: protectors[i] }];
    const names = new Set(theirs.map((o) => o.database!.name));
    const rest = server.databases.filter((d) => !names.has(d));
    // The server's findings point at the first database it still protects (else its first, as before).
    const onServer = (d: { resourceGroup: string; server: string }) =>
      `${d.resourceGroup}/${d.server}`.toLowerCase() === server.label.toLowerCase();
    const first = ctx.stack.databases.find((d) => onServer(d) && d.database === rest[0]);
    const source = first?.source ?? server.source;
    return [{ server: { ...server, databases: rest, ...(source ? { source } : {}) }, outcome: protectors[i] }, ...theirs];
  });
}

/** The keys the stack's customer-managed protectors (servers' and databases' own) name, each with the ids of what they protect. */
export async function protectorKeysOfStack(ctx: GatherContext): Promise<{ key: ProtectorKeyRef; holders: string[] }[]> {
  const reads = await stackProtectorReads(ctx);
  return customerKeysOf(reads.map((r) => r.outcome.read?.value)).map(({ key, named }) => ({
    key,
    holders: named.map((i) => reads[i].database?.id ?? reads[i].server.id),
  }));
}

/**
 * The protectors the Pulumi program's protector and database sources read (their outputs, in
 * order), each database's as its own protector (`databaseProtectorOf`): what the vault and key
 * sources that follow them take the keys from.
 */
export function protectorsOfOutputs(values: readonly unknown[]): (EncryptionProtector | undefined)[] {
  return values.map((v) => databaseProtectorOf(v as Database | undefined) ?? (v as EncryptionProtector | undefined));
}
