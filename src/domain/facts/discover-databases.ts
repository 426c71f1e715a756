import { mapBounded } from "../../platform/bounded-map";
import { sqlDatabaseId } from "../../platform/arm/resource-id";
import type { Database } from "../../services/sql/database-types";
import type { Server } from "../../services/sql/server-types";
import type { FactReads } from "./fact-reads";
import { tagsInScope, type ScopedDatabase, type StackScope } from "../stack/stack-scope";
import { unreadEntryOf, type UnreadEntry } from "../stack/unread-entry";

/**
 * Every database of a stack's scope, through Azure's own lists, as Azure Policy and Prowler start
 * from the estate: per subscription, its servers (Servers_List, or Servers_ListByResourceGroup per
 * group the scope names), then each server's databases (Databases_ListByServer), every page. The
 * subscriptions are read at once, each in its own throttling budget (the client set's pacer keeps
 * one lane per subscription), and within one, `concurrency` servers at a time. `master` (a
 * server's system database) is never in scope; tag filters take a database's tags over its server's.
 * A resource group the scope names may be missing from some of its subscriptions; one missing from
 * all of them is reported (a misspelt group would otherwise judge nothing, silently).
 */

/** What discovery found: every database in scope, and the lists the cloud refused (the scope is then incomplete). */
export interface Discovery {
  /** In scope, in subscription, server and list order (listed databases included: the caller tells them apart). */
  databases: ScopedDatabase[];
  /** Servers read, per subscription: what the counts and the bench report. */
  servers: number;
  /** A subscription or resource group whose list failed (403, 404 …): its databases could not be judged. */
  unread: UnreadEntry[];
}

/** Lists every database in the scope. */
export async function discoverDatabases(
  reads: FactReads,
  scope: StackScope,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<Discovery> {
  const perSubscription = await Promise.all(
    scope.subscriptions.map((subscriptionId) => discoverSubscription(reads, scope, subscriptionId, opts.concurrency ?? 16, opts.signal)),
  );
  // A group the scope names need not be in every subscription; one in none of them is a mistake to report.
  const missing = new Map<string, UnreadEntry>();
  for (const s of perSubscription) for (const [group, entry] of s.missingGroups) if (!missing.has(group)) missing.set(group, entry);
  for (const s of perSubscription) for (const group of s.foundGroups) missing.delete(group);
  return {
    databases: perSubscription.flatMap((s) => s.databases),
    servers: perSubscription.reduce((n, s) => n + s.servers, 0),
    unread: [...perSubscription.flatMap((s) => s.unread), ...missing.values()],
  };
}

interface SubscriptionDiscovery extends Discovery {
  /** Resource groups of the scope this subscription does not have (lower-case), with the entry reporting it. */
  missingGroups: Map<string, UnreadEntry>;
  /** Resource groups of the scope it has. */
  foundGroups: Set<string>;
}

async function discoverSubscription(
  reads: FactReads,
  scope: StackScope,
  subscriptionId: string,
  concurrency: number,
  signal?: AbortSignal,
): Promise<SubscriptionDiscovery> {
  const unread: UnreadEntry[] = [];
  const missingGroups = new Map<string, UnreadEntry>();
  const foundGroups = new Set<string>();
  const listed = async (kind: string, id: string, label: string, read: () => Promise<Server[]>, group?: string): Promise<Server[]> => {
    try {
      const servers = await read();
      if (group) foundGroups.add(group.toLowerCase());
      return servers;
    } catch (e) {
      const failed = reads.failureOf(e);
      if (!failed) throw e;
      const entry = unreadEntryOf(failed, { kind, id, label, source: scope.source });
      if (group && failed.code === "ResourceGroupNotFound") missingGroups.set(group.toLowerCase(), entry);
      else unread.push(entry);
      return [];
    }
  };
  const subscriptionPath = `/subscriptions/${subscriptionId}`;
  const servers = scope.resourceGroups
    ? (
        await Promise.all(
          scope.resourceGroups.map((resourceGroupName) =>
            listed(
              "resource group",
              `${subscriptionPath}/resourceGroups/${resourceGroupName}`,
              `${subscriptionId}/${resourceGroupName}`,
              async () => (await reads.read("Servers_ListByResourceGroup", { subscriptionId, resourceGroupName }, signal)).value,
              resourceGroupName,
            ),
          ),
        )
      ).flat()
    : await listed(
        "subscription",
        subscriptionPath,
        subscriptionId,
        async () => (await reads.read("Servers_List", { subscriptionId }, signal)).value,
      );
  const perServer = await mapBounded(servers, concurrency, async (server) => {
    const at = serverPlace(server);
    if (!at) return [];
    const databases = await (async (): Promise<Database[]> => {
      try {
        return (
          await reads.read("Databases_ListByServer", { subscriptionId, resourceGroupName: at.resourceGroup, serverName: at.server }, signal)
        ).value;
      } catch (e) {
        const failed = reads.failureOf(e);
        if (!failed) throw e;
        unread.push(
          unreadEntryOf(failed, { kind: "SQL server", id: server.id, label: `${at.resourceGroup}/${at.server}`, source: scope.source }),
        );
        return [];
      }
    })();
    return databases.flatMap((d): ScopedDatabase[] => {
      const name = d.name ?? d.id.split("/").pop() ?? "";
      if (isSystemDatabase(name, d)) return [];
      const found: ScopedDatabase = {
        subscriptionId,
        resourceGroup: at.resourceGroup,
        server: at.server,
        database: name,
        tags: { ...server.tags, ...d.tags },
      };
      return tagsInScope(scope, found.tags) ? [found] : [];
    });
  });
  return { databases: perServer.flat(), servers: servers.length, unread, missingGroups, foundGroups };
}

/** `master` (by name, or a database the service marks as its system one): never in scope. */
function isSystemDatabase(name: string, d: Database): boolean {
  return name.toLowerCase() === "master" || /(^|,)\s*system\s*(,|$)/i.test(String(d.kind ?? ""));
}

/** A listed server's resource group and name, from its id (tolerant: a server without a readable id is skipped). */
function serverPlace(server: Server): { resourceGroup: string; server: string } | undefined {
  const m = /\/resourceGroups\/([^/]+)\/providers\/[^/]+\/servers\/([^/]+)$/i.exec(server.id ?? "");
  return m ? { resourceGroup: decodeURIComponent(m[1]), server: decodeURIComponent(m[2]) } : undefined;
}

/** The ARM id of a scoped database. */
export function scopedDatabaseId(d: ScopedDatabase): string {
  return sqlDatabaseId(d);
}
