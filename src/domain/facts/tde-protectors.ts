import { mapBounded } from "../../platform/bounded-map";
import { childId, parseResourceId, sqlDatabaseId, sqlServerId } from "../../platform/arm/resource-id";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import type { Server } from "../../services/sql/server-types";
import { UNKNOWN, type Maybe } from "../../platform/unknown-value";
import type { FactOrigin } from "./model/compliance-facts";
import { carrierOf, resourcesOf } from "./carrier";
import { defineDataSource, logicalName, type DataSourceInputs } from "./data-source";
import { defineFactKind, type ResourceContext, type ResourceInput } from "./fact-kind";
import type { ReadReceipt } from "../../platform/arm/arm-read";
import { protectorKeyOf, stackServers, type ProtectorKeyRef, type StackServer } from "./key-custody-reads";
import { databaseProtectorOf, stackProtectorReads, type ProtectorRead } from "./database-protectors";
import { sqlDatabase } from "./sql-database-source";
import { databaseRefOf } from "./tde-status";
import type { Database, DatabaseIdentity } from "../../services/sql/database-types";
import { readServerIdentityOnce } from "./key-access-reads";
import { managedIdentityOf, type ManagedIdentity } from "./managed-identity";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { serverParamsOf } from "./read-params";
import { plannedProtectorFacts } from "./programs/planned-facts";
import { programOf } from "./programs/program-of";
import { readReference, subscriptionMissing } from "./programs/live-reference";
import { NOT_KNOWN_YET } from "./programs/program-estate";

/**
 * A TDE protector, as the key-custody rules see it: who holds the key that protects the database
 * encryption keys (Azure: `ServiceManaged`, or a customer-managed key in Key Vault, `AzureKeyVault`),
 * and which key that is. A server's protector protects its databases; a database may carry its own
 * (`level` `database`: the database resource's `encryptionProtector`), which then protects it instead.
 */
export interface ProtectorFacts extends FactOrigin {
  /** The server's ARM id, or the database's for a database's own protector: what findings are about (and what an exemption names). */
  id: string;
  /** `database` for a database's own protector; absent (or `server`) for a server's. */
  level?: "server" | "database";
  /** The database whose own protector this is (level `database`). */
  database?: string;
  subscriptionId: string;
  resourceGroup: string;
  server: string;
  /** The stack's databases this protector protects: the server's without their own, or the one database. */
  databases: string[];
  /** `ServiceManaged` or `AzureKeyVault` (open: a new value is carried through); UNKNOWN during a preview; undefined when not reported. */
  serverKeyType: Maybe<string | undefined>;
  /** `ServiceManaged`, or `<vault>_<key>_<version>`. */
  serverKeyName?: string;
  /** The Key Vault key's URI as the protector gives it (customer-managed only). */
  keyUri?: string;
  /** That key taken apart (when its URI parses): how its vault's and its own facts are found. */
  key?: ProtectorKeyRef;
  /** Whether the server follows the key's newest version by itself (api-versions from 2020-11-01-preview). */
  autoRotationEnabled?: boolean;
  /**
   * The identity the protector's owner uses to reach its key (customer-managed protectors only): a
   * server's from Servers_Get; a database-level protector's from its database.
   */
  identity?: ManagedIdentity;
  /** The protector could not be read (403, 404). */
  readFailure?: ReadFailure;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    tdeProtectors: ProtectorFacts;
  }
}

const serverOf = (i: DataSourceInputs) => ({ subscriptionId: i.subscriptionId, resourceGroup: i.resourceGroup, server: i.server });

/**
 * A SQL server's TDE protector (EncryptionProtectors_Get of `current`) as the API returns it
 * (`protector`), or why it could not be read (`readError`): one per server of the stack's databases.
 */
export const encryptionProtector = defineDataSource({
  token: "sql:EncryptionProtector",
  title: "the TDE protector of a SQL server",
  inputs: ["subscriptionId", "resourceGroup", "server"],
  output: "protector",
  unreadable: "reported",
  read: async (c, i, signal) => {
    const read = await readOrFailure(c.reads, () => c.reads.read("EncryptionProtectors_Get", serverParamsOf(serverOf(i)), signal));
    return {
      id: childId(sqlServerId(serverOf(i)), "encryptionProtector", "current"),
      ...(read.readError ? { readError: read.readError } : { value: read.value.value, receipt: read.value.receipt }),
    };
  },
  inputsFromId: (id) => {
    const p = parseResourceId(id);
    const server = p?.segments.find((s) => s.type.toLowerCase() === "servers")?.name;
    const protector = p?.segments.find((s) => s.type.toLowerCase() === "encryptionprotector");
    if (!p?.resourceGroup || !server || !protector) return undefined;
    return { subscriptionId: p.subscriptionId, resourceGroup: p.resourceGroup, server };
  },
  instances: (stack) =>
    stackServers(stack).map((s) => ({
      name: `tde-protector-${logicalName(s.resourceGroup, s.server)}`,
      inputs: { subscriptionId: s.subscriptionId, resourceGroup: s.resourceGroup, server: s.server },
    })),
});

/**
 * The TDE protector of each server of the stack's databases (one read per server,
 * EncryptionProtectors_Get), and each stack database's own protector when it has one (one read per
 * database, Databases_Get, which also gives the database's identity): see database-protectors.ts.
 */
export const tdeProtectors = defineFactKind<ProtectorFacts>({
  key: "tdeProtectors",
  title: "TDE protector of each SQL server, and of each database with its own",
  scope: "server",
  carrier: encryptionProtector,
  gather: async (ctx) =>
    mapBounded(await stackProtectorReads(ctx), ctx.concurrency, async (r) => {
      const facts = protectorFactsOfRead(r);
      // Only a customer-managed key is reached through the server's identity: one Servers_Get for those servers alone
      // (a database's own protector is reached with the database's identity, which its read gave).
      if (r.database || !isCustomerManagedKey(facts)) return facts;
      const { identity, receipt } = await readServerIdentityOnce(ctx, r.server);
      return { ...facts, identity, ...(receipt ? { reads: [...(facts.reads ?? []), receipt] } : {}) };
    }),
  fromResources: async (resources, ctx) => [
    ...resourcesOf(encryptionProtector, resources).map((r): ProtectorFacts => {
      const p = r.props;
      const ref = { subscriptionId: String(p.subscriptionId), resourceGroup: String(p.resourceGroup), server: String(p.server) };
      const server: StackServer = { ...ref, id: sqlServerId(ref), label: `${ref.resourceGroup}/${ref.server}`, databases: [] };
      const protector = ctx.known(() => p.protector as EncryptionProtector | undefined);
      const failure = ctx.known(() => p.readError as ReadFailure | undefined);
      // Neither read nor failed: the data source has not been read yet (a preview of a new stack).
      if (protector === UNKNOWN || failure === UNKNOWN || (!protector && !failure))
        return { ...subjectOf(server), serverKeyType: UNKNOWN, origin: r.urn };
      const facts = protectorFactsOf(server, { protector, failure });
      const identity = identityFromResources(resources, server.id, ctx);
      return { ...facts, ...(identity ? { identity } : {}), origin: r.urn };
    }),
    ...resourcesOf(sqlDatabase, resources).flatMap((r) => databaseProtectorFactsOfResource(r, ctx)),
    ...(await programProtectorFacts(resources, ctx)),
  ],
});

/**
 * The protectors a user's own program sets (azure-native, azure): a customer-managed one on a
 * server the program does not create is judged with that server's identity read live (Servers_Get).
 */
async function programProtectorFacts(resources: readonly ResourceInput[], ctx: ResourceContext): Promise<ProtectorFacts[]> {
  const { estate, subscriptionId } = programOf(resources, ctx);
  return Promise.all(
    plannedProtectorFacts(estate).map(async ({ facts, liveIdentity }) => {
      if (!liveIdentity || !isCustomerManagedKey(facts)) return facts;
      // A server named by another resource's output the pack could not follow: its identity is not known (so neither judged).
      if (facts.server === NOT_KNOWN_YET || facts.resourceGroup === NOT_KNOWN_YET) return facts;
      const missing = subscriptionMissing(subscriptionId);
      if (missing) return { ...facts, identity: { type: "None", readFailure: missing } };
      const ref = { subscriptionId: facts.subscriptionId, resourceGroup: facts.resourceGroup, server: facts.server };
      const read = await readReference(ctx.clients, `server:${facts.id}`, () =>
        readOrFailure(ctx.clients.reads, async () => (await ctx.clients.reads.read("Servers_Get", serverParamsOf(ref))).value),
      );
      const identity: ManagedIdentity = read.readError
        ? { type: "None", readFailure: read.readError }
        : managedIdentityOf(read.value.identity, read.value.properties?.primaryUserAssignedIdentityId);
      return { ...facts, identity };
    }),
  );
}

/**
 * A database's own protector from its `sql:Database` source, when it has one (or cannot be read
 * for lack of rights: 403); none while the source is not read yet (a preview of a new stack: its
 * server's entry stands for it), when it has no protector of its own, or is not there (404).
 */
function databaseProtectorFactsOfResource(r: ResourceInput, ctx: Pick<ResourceContext, "known">): ProtectorFacts[] {
  const ref = databaseRefOf(r.props);
  const database = ctx.known(() => r.props.databaseResource as Database | undefined);
  const failure = ctx.known(() => r.props.readError as ReadFailure | undefined);
  if (database === UNKNOWN || failure === UNKNOWN) return [];
  const protector = databaseProtectorOf(database);
  if (!protector && failure?.status !== 403) return [];
  const server: StackServer = { ...ref, id: sqlServerId(ref), label: `${ref.resourceGroup}/${ref.server}`, databases: [] };
  const facts = protectorFactsOf(server, failure ? { failure } : { protector });
  const identity = database?.identity;
  return [{ ...ofDatabase(facts, { name: ref.database, id: sqlDatabaseId(ref), ...(identity ? { identity } : {}) }), origin: r.urn }];
}

/** A protector's facts from its read: a server's, or a database's own (named by the database, with its identity). */
export function protectorFactsOfRead(r: ProtectorRead): ProtectorFacts {
  const o = r.outcome;
  const facts = protectorFactsOf(r.server, o.failure ? { failure: o.failure } : { protector: o.read.value, receipt: o.read.receipt });
  return r.database ? ofDatabase(facts, r.database) : facts;
}

/** Protector facts as a database's own: about the database (its id, its stack line), with its identity. */
function ofDatabase(facts: ProtectorFacts, d: NonNullable<ProtectorRead["database"]>): ProtectorFacts {
  return {
    ...facts,
    id: d.id,
    level: "database",
    database: d.name,
    databases: [d.name],
    ...(d.source ? { source: d.source } : {}),
    ...(d.identity && isCustomerManagedKey(facts) ? { identity: databaseIdentityOf(d.identity) } : {}),
  };
}

/**
 * A database's identity as the protector's owner's: a database has no system-assigned identity and
 * at most one user-assigned one (Azure: MultipleIdentitiesOnDatabase), which is the one it reaches its key with.
 */
function databaseIdentityOf(i: DatabaseIdentity): ManagedIdentity {
  const users = i.userAssignedIdentities && typeof i.userAssignedIdentities === "object" ? Object.keys(i.userAssignedIdentities) : [];
  return managedIdentityOf(i, users.length === 1 ? users[0] : undefined);
}

/** A server's protector facts from what its read gave: the protector (with the read's receipt), a failure, or nothing. */
export function protectorFactsOf(
  server: StackServer,
  read: { protector?: EncryptionProtector; failure?: ReadFailure; receipt?: ReadReceipt },
): ProtectorFacts {
  const base = subjectOf(server);
  if (read.failure) return { ...base, serverKeyType: undefined, readFailure: read.failure };
  const props = read.protector?.properties ?? {};
  const key = protectorKeyOf(read.protector);
  return {
    ...base,
    serverKeyType: typeof props.serverKeyType === "string" ? props.serverKeyType : undefined,
    ...(typeof props.serverKeyName === "string" ? { serverKeyName: props.serverKeyName } : {}),
    ...(typeof props.uri === "string" && props.uri ? { keyUri: props.uri } : {}),
    ...(key ? { key } : {}),
    ...(typeof props.autoRotationEnabled === "boolean" ? { autoRotationEnabled: props.autoRotationEnabled } : {}),
    ...(read.receipt ? { reads: [read.receipt] } : {}),
  };
}

function subjectOf(
  server: StackServer,
): Pick<ProtectorFacts, "id" | "subscriptionId" | "resourceGroup" | "server" | "databases" | "source"> {
  return {
    id: server.id,
    subscriptionId: server.subscriptionId,
    resourceGroup: server.resourceGroup,
    server: server.server,
    databases: [...server.databases],
    ...(server.source ? { source: server.source } : {}),
  };
}

/** Whether the protector is a customer-managed key (`AzureKeyVault`, compared without regard to case). */
function isCustomerManagedKey(p: ProtectorFacts): boolean {
  return typeof p.serverKeyType === "string" && p.serverKeyType.toLowerCase() === "azurekeyvault";
}

/** The SQL servers' data source (server-identity-source.ts), by its token: that module follows this one's protector. */
const SQL_SERVERS = carrierOf("sql:ServerIdentity");

/** A server's identity from its data source in the pack, when it was read (or why it could not be). */
function identityFromResources(resources: readonly ResourceInput[], serverId: string, ctx: ResourceContext): ManagedIdentity | undefined {
  const r = resourcesOf(SQL_SERVERS, resources).find(
    (x) =>
      sqlServerId({
        subscriptionId: String(x.props.subscriptionId),
        resourceGroup: String(x.props.resourceGroup),
        server: String(x.props.server),
      }).toLowerCase() === serverId.toLowerCase(),
  );
  if (!r) return undefined;
  const server = ctx.known(() => r.props.serverResource as Server | undefined);
  const failure = ctx.known(() => r.props.readError as ReadFailure | undefined);
  if (server === UNKNOWN || failure === UNKNOWN || (!server && !failure)) return undefined;
  if (failure) return { type: "None", readFailure: failure };
  return managedIdentityOf(server!.identity, server!.properties?.primaryUserAssignedIdentityId);
}
