import type { ArmRead } from "../../platform/arm/arm-read";
import { databaseLabel, sqlDatabaseId } from "../../platform/arm/resource-id";
import type { SourceLocation } from "../../platform/yaml/source-location";
import { unreadEntryOf, unreadProblem } from "../stack/unread-entry";
import { mapBoundedAcross } from "../../platform/bounded-map";
import type { TransparentDataEncryption } from "../../services/sql/types";
import { databaseSubscription, type StackConfig } from "../stack/stack-config";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { ComplianceFacts, FactOrigin } from "./model/compliance-facts";
import { carrierOf, resourcesOf } from "./carrier";
import { logicalName } from "./data-source";
import { defineFactKind, type GatherContext, type ResourceContext } from "./fact-kind";
import type { FactReads } from "./fact-reads";
import { databaseParamsOf } from "./read-params";
import { plannedDatabaseFacts } from "./programs/planned-facts";
import { programOf, PROGRAM_TYPES } from "./programs/program-of";
import { databasesInScope, databasesInScopeFacts } from "./databases-in-scope";

/** A database's TDE status, as the rules see it. */
export interface DatabaseFacts extends FactOrigin {
  /** The database's ARM id (`.../servers/S/databases/D`). */
  id: string;
  resourceGroup: string;
  server: string;
  database: string;
  liveTdeStatus: Maybe<string | undefined>;
  /**
   * Where `liveTdeStatus` came from: `live` (read from the API, the default) or `desired` (a Pulumi
   * preview, where the status the resource will have is the one the stack sets).
   */
  tdeStatusSource?: "live" | "desired";
}

declare module "./model/compliance-facts" {
  interface FactMap {
    databases: DatabaseFacts;
  }
}

/** The TDE status facts of a gathering, in the stack's order (as `gather` returns them): what a plan compares with the stack. */
export function databaseFactsIn(facts: ComplianceFacts): DatabaseFacts[] {
  return facts.databases;
}

/**
 * The facts with database `id`'s TDE status as a change to `status` leaves it: marked `desired`
 * (as the pack sees a planned status: what a repair is judged on), or, with `live`, as read once
 * the change converged (what a tick leaves behind after it applied).
 */
export function withTdeStatus(facts: ComplianceFacts, id: string, status: string, as: "desired" | "live" = "desired"): ComplianceFacts {
  const changed = (d: DatabaseFacts): DatabaseFacts =>
    as === "desired" ? { ...d, liveTdeStatus: status, tdeStatusSource: "desired" } : { ...d, liveTdeStatus: status };
  return { ...facts, databases: facts.databases.map((d) => (d.id === id ? changed(d) : d)) };
}

/** A database of the stack, as the SQL client names it. */
export interface DatabaseRef {
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  database: string;
}

/**
 * A database's TDE configuration, read once per gathering however many kinds ask (its status
 * here, its location for the placements).
 */
export function readTdeOnce(ctx: GatherContext, ref: DatabaseRef): Promise<TransparentDataEncryption> {
  return readTdeWithReceiptOnce(ctx, ref).then((r) => r.value);
}

/** The same shared read, with its receipt (when, and Resource Manager's request id): what the TDE status facts carry. */
export function readTdeWithReceiptOnce(ctx: GatherContext, ref: DatabaseRef): Promise<ArmRead<TransparentDataEncryption>> {
  const key = `tde:${[ref.subscriptionId, ref.resourceGroup, ref.server, ref.database].join("/").toLowerCase()}`;
  return ctx.once(key, () => ctx.clients.reads.read("TransparentDataEncryptions_Get", databaseParamsOf(ref), ctx.signal));
}

/** What a read about one database reports an unread one with: where to, and the read port's classification of a failure. */
export interface UnreadReporting {
  unread: GatherContext["unread"];
  failureOf: FactReads["failureOf"];
}

/**
 * One read about a database of the stack. The cloud's answer about that database alone (a 404:
 * it has no such database; `FactReads.failureOf` tells it from the rest) is reported through
 * `ctx.unread` at the stack's line and returned as `{ unread: why }`, so the others are still
 * judged; any other failure is thrown.
 */
export function readDatabase<T>(
  ctx: UnreadReporting,
  ref: DatabaseRef,
  source: SourceLocation | undefined,
  read: () => Promise<T>,
): Promise<T | { unread: string }> {
  // `then`, not an async function with try/await: one promise less on every database's read.
  let reading: Promise<T>;
  try {
    reading = read();
  } catch (e) {
    reading = Promise.reject(e as Error);
  }
  return reading.then(undefined, (e: unknown) => {
    const failed = ctx.failureOf(e);
    if (!failed) throw e;
    const entry = unreadEntryOf(failed, { kind: "database", id: sqlDatabaseId(ref), label: databaseLabel(ref), source });
    ctx.unread(entry);
    return { unread: unreadProblem(entry) };
  });
}

/**
 * The resource the stack manages for each database: its TDE configuration
 * (`TransparentDataEncryption`, providers/tde-provider.ts), whose outputs carry the status.
 */
export const tdeConfiguration = carrierOf("sql:TransparentDataEncryption");

/** The logical name of a database's TDE resource in the Pulumi program (what reads after its change name). */
export function tdeResourceName(d: Pick<DatabaseRef, "resourceGroup" | "server" | "database">): string {
  return `tde-${logicalName(d.resourceGroup, d.server, d.database)}`;
}

/**
 * Each managed database's TDE status: live from its TDE configuration, or the one a plan leads to.
 * Gathered by its own reads: its carrier is the TDE resource (a provider of its own, no data
 * source), and the read is shared with the placements (`readTdeOnce`).
 */
export const tdeStatus = defineFactKind<DatabaseFacts>({
  key: "databases",
  title: "TDE status of each database",
  scope: "database",
  carrier: tdeConfiguration,
  gather: (ctx) => {
    const reporting: UnreadReporting = { unread: ctx.unread, failureOf: (e) => ctx.clients.reads.failureOf(e) };
    // In turn across subscriptions: each has its own throttling budget (a scope spans several).
    const subscriptionOf = (d: (typeof ctx.stack.databases)[number]) => databaseSubscription(ctx.stack, d).toLowerCase();
    return mapBoundedAcross(ctx.stack.databases, ctx.concurrency, subscriptionOf, (d): Promise<DatabaseFacts> => {
      const ref = {
        subscriptionId: databaseSubscription(ctx.stack, d),
        resourceGroup: d.resourceGroup,
        server: d.server,
        database: d.database,
      };
      // `then`, not async/await: one promise less for each of the stack's databases.
      return readDatabase(reporting, ref, d.source, () => readTdeWithReceiptOnce(ctx, ref)).then((tde) =>
        "unread" in tde
          ? { ...subjectOf(ref), source: d.source, liveTdeStatus: undefined, unread: tde.unread }
          : { ...subjectOf(ref), source: d.source, liveTdeStatus: tde.value.properties?.status, reads: [tde.receipt] },
      );
    });
  },
  planned: async (ctx, live) => plannedDatabases(await live(), ctx.stack),
  fromResources: async (resources, ctx) => [
    ...resourcesOf(tdeConfiguration, resources).map((r) => tdeFactsOf(r.props, ctx, r.urn)),
    // A user's own program: the TDE its azure-native or azure resources set.
    ...plannedDatabaseFacts(programOf(resources, ctx).estate),
    // The databases of the stack's scope it does not list, as the program's sql:DatabasesInScope read them
    // (or, given its inputs only, as the pack reads them: databases-in-scope.ts inScopeOf).
    ...(await databasesInScopeFacts(resources, ctx)),
  ],
  resourceTypes: [tdeConfiguration.type, ...PROGRAM_TYPES, databasesInScope.type],
});

/**
 * The databases as they will be once the stack is applied: each one's TDE status becomes the one
 * the stack sets (marked `desired`, as the policy pack sees it during `pulumi preview`). A
 * pull-request gate judges this state, so a change that would disable TDE fails before merge, and
 * a change that will encrypt a database that is unencrypted today passes. `facts` must be in the
 * stack's order (as `gather` returns them).
 */
export function plannedDatabases(facts: readonly DatabaseFacts[], stack: Pick<StackConfig, "databases" | "scope">): DatabaseFacts[] {
  return facts.map((f, i) => {
    const listedOrWritten = !stack.databases[i]?.discovered || stack.scope?.remediate === true;
    const desired = listedOrWritten ? stack.databases[i]?.transparentDataEncryption : undefined;
    // A database that could not be read stays unread: the plan cannot change what is not there. A
    // discovered one stays as it is without scope.remediate: apply will not write it, so a
    // pull-request gate must not judge it as repaired.
    if (!desired || f.unread || (f.liveTdeStatus !== UNKNOWN && f.liveTdeStatus === desired)) return f;
    return { ...f, liveTdeStatus: desired, tdeStatusSource: "desired" as const };
  });
}

/** A database's facts from a TDE resource: the status it will have (desired during a preview, live after). */
export function tdeFactsOf(props: Record<string, unknown>, ctx: Pick<ResourceContext, "known">, origin?: string): DatabaseFacts {
  const subject = subjectOf(databaseRefOf(props));
  const live = ctx.known(() => props.status as string | undefined);
  if (live !== UNKNOWN && live !== undefined) return { ...subject, liveTdeStatus: live, origin };
  // Before the resource is created or updated (a preview, or Analyze on inputs), judge the status it will have.
  const desired = ctx.known(() => props.transparentDataEncryption as string | undefined);
  return { ...subject, liveTdeStatus: desired, tdeStatusSource: "desired", origin };
}

/** The inputs that name a database, in id order: the TDE resource's and the SQL data sources'. */
export const DATABASE_INPUTS = ["subscriptionId", "resourceGroup", "server", "database"] as const;

/** The database a resource's properties name (TDE resources and the SQL data sources share these inputs). */
export function databaseRefOf(props: Record<string, unknown>): DatabaseRef {
  return {
    subscriptionId: String(props.subscriptionId),
    resourceGroup: String(props.resourceGroup),
    server: String(props.server),
    database: String(props.database),
  };
}

/** The identity every database fact carries. */
export function subjectOf(ref: DatabaseRef): Pick<DatabaseFacts, "id" | "resourceGroup" | "server" | "database"> {
  return { id: sqlDatabaseId(ref), resourceGroup: ref.resourceGroup, server: ref.server, database: ref.database };
}
