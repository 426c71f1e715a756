import type { ClientSet } from "../clients/client-set";
import { discoverDatabases } from "../domain/facts/discover-databases";
import { listedOnly, mayWrite, writableOnly } from "../domain/discovery/scope-coverage";
import { withDiscovered } from "../domain/stack/scope-discovered";
import { tdeWriteRuleId } from "../domain/compliance/registry";
import type { DesiredDatabase, StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { tagsInScope, type ScopedDatabase } from "../domain/stack/stack-scope";
import { parseResourceId } from "../platform/arm/resource-id";

/** A stack with its scope discovered, and the lists of the scope that could not be read. */
export interface ScopedStack {
  stack: StackConfig;
  /** A subscription, resource group or server whose list failed: what it holds is not judged (the run is incomplete). */
  unread: UnreadEntry[];
}

/**
 * The stack with every database of its `stackwarden:scope` (facts/discover-databases.ts, stack/scope-discovered.ts, discovery/scope-coverage.ts):
 * what check, drift and plan judge. A stack without a scope, or one discovered already, is returned as it is.
 */
export async function discoverScope(
  stack: StackConfig,
  clients: Pick<ClientSet, "reads">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ScopedStack> {
  if (!stack.scope || stack.coverage) return { stack, unread: [] };
  const found = await discoverDatabases(clients.reads, stack.scope, opts);
  return { stack: withDiscovered(stack, found), unread: found.unread };
}

/**
 * The stack `apply` and `watch --auto-remediate` may write to: the listed databases, and the
 * discovered ones only when the scope opts in (`scope.remediate`), but those a scope exemption
 * covers for the TDE rule. Without the opt-in nothing is discovered at all: a database the file
 * does not list is never written.
 */
export async function writableStack(
  stack: StackConfig,
  clients: Pick<ClientSet, "reads">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ScopedStack> {
  if (!stack.scope?.remediate) return { stack: listedOnly(stack), unread: [] };
  const scoped = await discoverScope(stack, clients, opts);
  return { ...scoped, stack: writableOnly(scoped.stack, tdeWriteRuleId(), Date.now()) };
}

/** Whether an apply may write to this database of the stack (scope-coverage.ts `mayWrite`, judged by the TDE rule's exemptions). */
export function mayWriteDatabase(stack: StackConfig, d: DesiredDatabase): boolean {
  return mayWrite(stack, d, tdeWriteRuleId(), Date.now());
}

/** Unlisted databases a change named, as one read of each found them: those in the scope, and those gone. */
export interface UnlistedRead {
  /** In scope (tags included), with their names as Azure spells them. */
  inScope: ScopedDatabase[];
  /** Deleted (404): lower-cased ids, as the change named them. */
  gone: string[];
}

/**
 * Reads each unlisted database a change named in the scope's subscriptions and groups (a watcher's
 * change record: created, written or deleted), instead of discovering the whole scope: Databases_Get
 * (404: gone), then its server (Servers_Get) when the scope filters by tags, since a database's tags
 * count over its server's. Any other failure is thrown: the next sweep reads it.
 */
export async function readUnlisted(
  stack: StackConfig,
  clients: Pick<ClientSet, "reads">,
  ids: readonly string[],
  signal?: AbortSignal,
): Promise<UnlistedRead> {
  const out: UnlistedRead = { inScope: [], gone: [] };
  const scope = stack.scope;
  if (!scope) return out;
  const byTags = Object.keys(scope.includeTags).length + Object.keys(scope.excludeTags).length > 0;
  for (const id of ids) {
    const p = parseResourceId(id);
    const server = p?.segments.find((s) => s.type.toLowerCase() === "servers")?.name;
    const database = p?.segments.find((s) => s.type.toLowerCase() === "databases")?.name;
    if (!p?.resourceGroup || !server || !database) continue;
    const params = { subscriptionId: p.subscriptionId, resourceGroupName: p.resourceGroup, serverName: server };
    let db;
    try {
      db = (await clients.reads.read("Databases_Get", { ...params, databaseName: database }, signal)).value;
    } catch (e) {
      if (clients.reads.failureOf(e)?.status === 404) {
        out.gone.push(id.toLowerCase());
        continue;
      }
      throw e;
    }
    const serverTags = byTags ? ((await clients.reads.read("Servers_Get", params, signal)).value.tags ?? {}) : {};
    const named = parseResourceId(db.id ?? "");
    const found: ScopedDatabase = {
      subscriptionId: named?.subscriptionId ?? p.subscriptionId,
      resourceGroup: named?.resourceGroup ?? p.resourceGroup,
      server: named?.segments.find((s) => s.type.toLowerCase() === "servers")?.name ?? server,
      database: db.name ?? database,
      tags: { ...serverTags, ...db.tags },
    };
    if (tagsInScope(scope, found.tags)) out.inScope.push(found);
  }
  return out;
}
