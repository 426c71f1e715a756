import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import { armError, armPage, resourceGroupNotFound, resourceNotFound } from "../../kit/arm-conventions";
import { bothNamespaces } from "../../../platform/arm/provider-namespace";
import {
  DATABASE_EDITIONS,
  DEFAULT_FAIL_AT_PERCENT,
  DEFAULT_LOCATION,
  DEFAULT_SCAN_DURATION_MS,
  DEFAULT_SUBSCRIPTION_ID,
  sqlSeedSchema,
  type SqlAdvisorSeed,
  type SqlScanSeed,
  type SqlSeed,
} from "./seed-schema";
import { scanPhase, type TdeScan } from "./tde-scan";
import { derivedUuid } from "./derived-uuid";
import {
  DEFAULT_SERVICE_TIER_ADVISOR_NAME,
  MASTER_DATABASE,
  SQL_RESOURCE_TYPES,
  TDE_CONFIGURATION_NAME,
  TDE_STATUSES,
  type ElasticPoolActivity,
  type ElasticPoolActivityProperties,
  type ElasticPoolDatabaseActivity,
  type ElasticPoolDatabaseActivityProperties,
  type ServiceTierAdvisor,
  type ServiceTierAdvisorProperties,
  type TransparentDataEncryption,
  type TransparentDataEncryptionActivity,
  type TransparentDataEncryptionStatus,
} from "../../../services/sql/types";
import { elasticPoolId, sqlDatabaseId, sqlServerId, tdeConfigurationId } from "../../../platform/arm/resource-id";
import { ENCRYPTION_PROTECTOR_NAME } from "../../../services/sql/key-custody-types";
import { databaseKeyCustodyFromSeed, databaseResource, type DatabaseView, type SqlDatabaseKeyCustodyState } from "./database-resource";
import { keyCustodyFromSeed, protectorResource, serverKeyResources, type SqlKeyCustodyState } from "./key-custody";
import { serverIdentityFromSeed, serverResource, type SqlServerIdentityState } from "./server-identity";
import { publishedOperation } from "../../kit/published-operations";
import { versionHas } from "../../kit/version-shape";

/* ------------------------------------------------------------------ state (plain JSON) */

export interface SqlDatabaseState {
  name: string;
  /** The status GET reports; a running scan that fails puts the old one back. */
  transparentDataEncryption: TransparentDataEncryptionStatus;
  serviceObjective: string;
  edition: string;
  elasticPool?: string;
  /** How this database's scans behave (from the seed). */
  scan?: SqlScanSeed;
  serviceTierAdvisors: SqlAdvisorSeed[];
  /** The scan in progress, if any. */
  tdeScan?: TdeScan;
  /** Its own TDE protector, keys and identity (absent: the server's protector, no identity). */
  keyCustody?: SqlDatabaseKeyCustodyState;
}

export interface SqlElasticPoolState {
  name: string;
  activities: ElasticPoolActivityProperties[];
  databaseActivities: ElasticPoolDatabaseActivityProperties[];
}

export interface SqlServerState extends SqlKeyCustodyState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  databases: SqlDatabaseState[];
  elasticPools: SqlElasticPoolState[];
  /** Absent: the server has no managed identity. */
  identity?: SqlServerIdentityState;
  /** Servers_Get's `minimalTlsVersion`, when seeded. */
  minimalTlsVersion?: string;
}

export interface SqlState {
  scanDurationMs: number;
  servers: SqlServerState[];
}

/* ------------------------------------------------------------------ seed → state */

/** Builds the state from a validated seed section; cross-references the schema cannot express are checked here. */
export function sqlInitialState(seed: SqlSeed | undefined): SqlState {
  const now = Date.now();
  const defaultSub = seed?.subscriptionId ?? DEFAULT_SUBSCRIPTION_ID;
  const serverNames = new Map<string, string>();
  const servers = (seed?.servers ?? []).map((s, si): SqlServerState => {
    const at = `sql.servers[${si}]`;
    const seen = serverNames.get(s.name.toLowerCase());
    if (seen) throw new Error(`${at}.name: server "${s.name}" is declared twice (also at ${seen}); server names are global`);
    serverNames.set(s.name.toLowerCase(), at);
    const subscriptionId = s.subscriptionId ?? defaultSub;

    const pools = (s.elasticPools ?? []).map((p): SqlElasticPoolState => {
      const poolRef = { subscriptionId, resourceGroup: s.resourceGroup, server: s.name, elasticPool: p.name };
      return {
        name: p.name,
        activities: (p.activities ?? []).map((a, ai) => ({
          operationId: derivedUuid(`${elasticPoolId(poolRef)}/elasticPoolActivity/${ai}`),
          serverName: s.name,
          elasticPoolName: p.name,
          ...(a as ElasticPoolActivityProperties),
        })),
        databaseActivities: (p.databaseActivities ?? []).map((a, ai) => ({
          operationId: derivedUuid(`${elasticPoolId(poolRef)}/elasticPoolDatabaseActivity/${ai}`),
          serverName: s.name,
          currentElasticPoolName: p.name,
          ...(a as ElasticPoolDatabaseActivityProperties),
        })),
      };
    });
    unique(
      pools.map((p) => p.name),
      (name, i) => `${at}.elasticPools[${i}].name: elastic pool "${name}" is declared twice on server "${s.name}"`,
    );
    const poolNames = new Set(pools.map((p) => p.name.toLowerCase()));

    const databases = (s.databases ?? []).map((d, di): SqlDatabaseState => {
      if (d.elasticPool && !poolNames.has(d.elasticPool.toLowerCase())) {
        throw new Error(
          `${at}.databases[${di}].elasticPool: server "${s.name}" has no elastic pool "${d.elasticPool}"; declare it under ${at}.elasticPools`,
        );
      }
      const advisors = (d.serviceTierAdvisors ?? []).map((a) => ({ ...a, name: a.name ?? DEFAULT_SERVICE_TIER_ADVISOR_NAME }));
      unique(
        advisors.map((a) => a.name),
        (name, i) => `${at}.databases[${di}].serviceTierAdvisors[${i}].name: advisor "${name}" is declared twice on database "${d.name}"`,
      );
      const serviceObjective = d.serviceObjective ?? (d.elasticPool ? "ElasticPool" : "S0");
      const db: SqlDatabaseState = {
        name: d.name,
        transparentDataEncryption: d.transparentDataEncryption ?? "Disabled",
        serviceObjective,
        edition: d.edition ?? editionOf(serviceObjective),
        serviceTierAdvisors: advisors,
      };
      if (d.elasticPool) db.elasticPool = d.elasticPool;
      if (d.scan) db.scan = { ...d.scan };
      const ref = { subscriptionId, resourceGroup: s.resourceGroup, server: s.name, database: d.name };
      const keyCustody = databaseKeyCustodyFromSeed(`${at}.databases[${di}]`, ref, d, now);
      if (keyCustody) db.keyCustody = keyCustody;
      return db;
    });
    unique(
      databases.map((d) => d.name),
      (name, i) => `${at}.databases[${i}].name: database "${name}" is declared twice on server "${s.name}"`,
    );

    const identity = serverIdentityFromSeed(
      at,
      sqlServerId({ subscriptionId, resourceGroup: s.resourceGroup, server: s.name }),
      s.identity,
    );
    return {
      subscriptionId,
      resourceGroup: s.resourceGroup,
      name: s.name,
      location: s.location ?? DEFAULT_LOCATION,
      databases,
      elasticPools: pools,
      ...keyCustodyFromSeed(at, s.encryptionProtector, s.keys, now),
      ...(identity ? { identity } : {}),
      ...(s.minimalTlsVersion ? { minimalTlsVersion: s.minimalTlsVersion } : {}),
    };
  });
  return { scanDurationMs: seed?.scanDurationMs ?? DEFAULT_SCAN_DURATION_MS, servers };
}

function unique(names: string[], message: (name: string, index: number) => string): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    const k = n.toLowerCase();
    if (seen.has(k)) throw new Error(message(n, i));
    seen.add(k);
  });
}

/** The edition a service objective belongs to. */
export function editionOf(serviceObjective: string): (typeof DATABASE_EDITIONS)[number] {
  const so = serviceObjective;
  if (so === "Basic") return "Basic";
  if (so === "Free") return "Free";
  if (/^PRS/.test(so)) return "PremiumRS";
  if (/^P\d/.test(so)) return "Premium";
  if (/^D[WS]\d/.test(so)) return "DataWarehouse";
  if (/^System/.test(so)) return "System";
  return "Standard";
}

/* ------------------------------------------------------------------ lookups */

interface DatabaseEntry {
  server: SqlServerState;
  db: SqlDatabaseState;
  master: boolean;
  /** Where the database lives in the service state (`servers`, i, `databases`, j), for the state journal. */
  path: (string | number)[];
}

interface ServerEntry {
  server: SqlServerState;
  databases: Map<string, DatabaseEntry>;
  pools: Map<string, SqlElasticPoolState>;
}

/**
 * Case-insensitive lookups over the state, built once per state object (the estate's shape never
 * changes at run time; only the databases' TDE fields do, in place).
 */
class SqlIndex {
  readonly groups = new Set<string>();
  readonly servers = new Map<string, ServerEntry>();

  constructor(readonly state: SqlState) {
    state.servers.forEach((server, si) => {
      this.groups.add(groupKey(server.subscriptionId, server.resourceGroup));
      const databases = new Map<string, DatabaseEntry>();
      databases.set(MASTER_DATABASE, { server, db: masterOf(), master: true, path: [] });
      server.databases.forEach((db, di) => {
        databases.set(db.name.toLowerCase(), { server, db, master: false, path: ["servers", si, "databases", di] });
      });
      const pools = new Map<string, SqlElasticPoolState>();
      for (const p of server.elasticPools) pools.set(p.name.toLowerCase(), p);
      this.servers.set(serverKey(server.subscriptionId, server.resourceGroup, server.name), { server, databases, pools });
    });
  }
}

/** What Databases_Get and Databases_ListByServer show of a database. */
function databaseView({ server, db, master }: DatabaseEntry): DatabaseView {
  const ref = dbRef(server, db);
  return {
    ref,
    location: server.location,
    serviceObjective: db.serviceObjective,
    edition: db.edition,
    master,
    ...(db.elasticPool ? { elasticPoolId: elasticPoolId({ ...ref, elasticPool: db.elasticPool }) } : {}),
    ...(db.keyCustody ? { custody: db.keyCustody } : {}),
  };
}

function groupKey(sub: string, rg: string): string {
  return `${sub.toLowerCase()}\u0000${rg.toLowerCase()}`;
}
function serverKey(sub: string, rg: string, server: string): string {
  return `${groupKey(sub, rg)}\u0000${server.toLowerCase()}`;
}

/** The implicit system database: TDE Disabled for ever, no advisors, no scans. */
function masterOf(): SqlDatabaseState {
  return Object.freeze({
    name: MASTER_DATABASE,
    transparentDataEncryption: "Disabled",
    serviceObjective: "System0",
    edition: "System",
    serviceTierAdvisors: Object.freeze([]) as unknown as SqlAdvisorSeed[],
  }) as SqlDatabaseState;
}

/* ------------------------------------------------------------------ the service */

/**
 * Azure SQL management, under both namespace spellings: the seven operations of the SQL slice (TDE,
 * advisors, pool activities), a server and its encryption protector and keys (read-only), and the
 * database resource itself (Databases_Get and Databases_ListByServer, read-only: its own TDE
 * protector, keys and identity; database-resource.ts), each at every api-version Azure publishes for
 * it (specs/api-versions/Microsoft.Sql.json) and answered in that version's shape.
 */
export const sqlLocal: LocalService<SqlState, SqlSeed> = {
  name: "sql",
  seedSchema: sqlSeedSchema,
  initialState: sqlInitialState,

  mount(ctx) {
    let index: SqlIndex | undefined;
    const lookup = (): SqlIndex => {
      const s = ctx.state();
      if (!index || index.state !== s) index = new SqlIndex(s);
      return index;
    };
    const h = new SqlHandlers(ctx, lookup);

    const op = (operationId: string) => publishedOperation("Microsoft.Sql", operationId);
    for (const ns of bothNamespaces("Sql")) {
      const server = `/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName/providers/${ns}/servers/:serverName`;
      const db = `${server}/databases/:databaseName`;
      const pool = `${server}/elasticPools/:elasticPoolName`;
      const tde = `${db}/transparentDataEncryption/:transparentDataEncryptionName`;
      ctx.arm("GET", `${server}/databases`, op("Databases_ListByServer"), (req) => h.listDatabases(req));
      ctx.arm("GET", db, op("Databases_Get"), (req) => h.getDatabase(req));
      ctx.arm("GET", `${db}/serviceTierAdvisors`, op("ServiceTierAdvisors_ListByDatabase"), (req) => h.listAdvisors(req));
      ctx.arm("GET", `${db}/serviceTierAdvisors/:serviceTierAdvisorName`, op("ServiceTierAdvisors_Get"), (req) => h.getAdvisor(req));
      ctx.arm("GET", `${pool}/elasticPoolActivity`, op("ElasticPoolActivities_ListByElasticPool"), (req) => h.listPoolActivities(req));
      ctx.arm("GET", `${pool}/elasticPoolDatabaseActivity`, op("ElasticPoolDatabaseActivities_ListByElasticPool"), (req) =>
        h.listPoolDatabaseActivities(req),
      );
      ctx.arm("GET", tde, op("TransparentDataEncryptions_Get"), (req) => h.getTde(req));
      ctx.arm("PUT", tde, op("TransparentDataEncryptions_CreateOrUpdate"), (req) => h.putTde(req));
      ctx.arm("GET", `${tde}/operationResults`, op("TransparentDataEncryptionActivities_ListByConfiguration"), (req) =>
        h.listTdeActivities(req),
      );
      ctx.arm("GET", `${server}/encryptionProtector`, op("EncryptionProtectors_ListByServer"), (req) => h.listProtectors(req));
      ctx.arm("GET", `${server}/encryptionProtector/:encryptionProtectorName`, op("EncryptionProtectors_Get"), (req) =>
        h.getProtector(req),
      );
      ctx.arm("GET", `${server}/keys`, op("ServerKeys_ListByServer"), (req) => h.listServerKeys(req));
      ctx.arm("GET", `${server}/keys/:keyName`, op("ServerKeys_Get"), (req) => h.getServerKey(req));
      ctx.arm("GET", server, op("Servers_Get"), (req) => h.getServer(req));
    }
  },
};

type Found<T> = { ok: true; value: T } | { ok: false; reply: EmulatorReply };

class SqlHandlers {
  constructor(
    private readonly ctx: ServiceContext<SqlState>,
    private readonly lookup: () => SqlIndex,
  ) {}

  /** Databases_Get, in the api-version's shape (its own TDE protector and identity, its keys with `$expand=keys`). */
  getDatabase(req: EmulatorRequest): EmulatorReply {
    const f = this.database(req);
    if (!f.ok) return f.reply;
    return { status: 200, body: databaseResource(databaseView(f.value), req.query.get("$expand")) };
  }

  /**
   * Databases_ListByServer: `master` and the server's databases, each as Databases_Get answers it in
   * the api-version's shape (the list takes no `$expand`, so no `properties.keys`), paged.
   */
  listDatabases(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    const items = [...f.value.databases.values()].map((entry) => databaseResource(databaseView(entry), null));
    return armPage(req, items, this.ctx.settings.pageSize);
  }

  /** ServiceTierAdvisors_ListByDatabase */
  listAdvisors(req: EmulatorRequest): EmulatorReply {
    const f = this.database(req);
    if (!f.ok) return f.reply;
    const { server, db } = f.value;
    return list(db.serviceTierAdvisors.map((a) => advisorResource(server, db, a, req.now)));
  }

  /** ServiceTierAdvisors_Get */
  getAdvisor(req: EmulatorRequest): EmulatorReply {
    const f = this.database(req);
    if (!f.ok) return f.reply;
    const { server, db } = f.value;
    const name = req.params.serviceTierAdvisorName;
    const lower = name.toLowerCase();
    const advisor = db.serviceTierAdvisors.find((a) => a.name!.toLowerCase() === lower);
    if (!advisor) return notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}/serviceTierAdvisors/${name}`);
    return { status: 200, body: advisorResource(server, db, advisor, req.now) };
  }

  /** ElasticPoolActivities_ListByElasticPool */
  listPoolActivities(req: EmulatorRequest): EmulatorReply {
    const f = this.pool(req);
    if (!f.ok) return f.reply;
    const { server, pool } = f.value;
    const base = `${elasticPoolId(poolRef(server, pool))}/elasticPoolActivity`;
    return list(
      pool.activities.map((p): ElasticPoolActivity => ({
        id: `${base}/${p.operationId}`,
        name: p.operationId,
        type: SQL_RESOURCE_TYPES.elasticPoolActivity,
        location: server.location,
        properties: p,
      })),
    );
  }

  /** ElasticPoolDatabaseActivities_ListByElasticPool */
  listPoolDatabaseActivities(req: EmulatorRequest): EmulatorReply {
    const f = this.pool(req);
    if (!f.ok) return f.reply;
    const { server, pool } = f.value;
    const base = `${elasticPoolId(poolRef(server, pool))}/elasticPoolDatabaseActivity`;
    return list(
      pool.databaseActivities.map((p): ElasticPoolDatabaseActivity => ({
        id: `${base}/${p.operationId}`,
        name: p.operationId,
        type: SQL_RESOURCE_TYPES.elasticPoolDatabaseActivity,
        location: server.location,
        properties: p,
      })),
    );
  }

  /** TransparentDataEncryptions_Get */
  getTde(req: EmulatorRequest): EmulatorReply {
    const f = this.tde(req);
    if (!f.ok) return f.reply;
    const { server, db } = f.value;
    this.settle(f.value, req.now);
    return { status: 200, body: tdeResource(server, db) };
  }

  /**
   * TransparentDataEncryptions_CreateOrUpdate. The configuration always exists, so the answer is 200
   * (the spec allows 200 and 201; 201 would claim it was created). A change starts a scan and is
   * reported at once; the same status again is a no-op; reversing a running scan is a conflict.
   */
  putTde(req: EmulatorRequest): EmulatorReply {
    const f = this.tde(req);
    if (!f.ok) return f.reply;
    const { server, db, master } = f.value;
    const parsed = parseTdeBody(req, tdeStatusField(apiVersionOf(req)));
    if (!parsed.ok) return parsed.reply;
    const status = parsed.value;
    if (master) {
      return armError(
        400,
        "OperationNotSupportedOnMasterDatabase",
        `Transparent data encryption cannot be changed on the system database 'master' of server '${server.name}'; it is managed by Azure and always Disabled. Set it on user databases only.`,
      );
    }
    this.settle(f.value, req.now);
    if (db.transparentDataEncryption === status) return { status: 200, body: tdeResource(server, db) };
    if (db.tdeScan) {
      const running = db.tdeScan.to === "Enabled" ? "encryption" : "decryption";
      return armError(
        409,
        "ConflictingDatabaseOperation",
        `An ${running} scan of database '${db.name}' on server '${server.name}' is in progress; the status cannot be set to '${status}' until it has finished. Poll transparentDataEncryption/current/operationResults and try again.`,
      );
    }
    // How the scan behaves: an injected scan fault (the fault injector's `scan`) wins over the database's seed.
    const injected = req.fault?.scan;
    const scan = injected ? { ...db.scan, ...injected } : (db.scan ?? {});
    db.tdeScan = {
      from: db.transparentDataEncryption,
      to: status,
      startedAt: req.now,
      durationMs: scan.durationMs ?? this.ctx.state().scanDurationMs,
      outcome: scan.outcome ?? "succeed",
      failAtPercent: scan.failAtPercent ?? DEFAULT_FAIL_AT_PERCENT,
      ...(scan.stallMs !== undefined ? { stallMs: scan.stallMs } : {}),
    };
    db.transparentDataEncryption = status;
    this.settle(f.value, req.now); // a zero-length scan is over at once
    this.ctx.changed(...f.value.path);
    return { status: 200, body: tdeResource(server, db) };
  }

  /** TransparentDataEncryptionActivities_ListByConfiguration: the running scan, or nothing. */
  listTdeActivities(req: EmulatorRequest): EmulatorReply {
    const f = this.tde(req);
    if (!f.ok) return f.reply;
    const { server, db } = f.value;
    this.settle(f.value, req.now);
    if (!db.tdeScan) return list([]);
    const phase = scanPhase(db.tdeScan, req.now);
    if (!phase.running) return list([]); // unreachable after settle; kept for the type
    const ref = dbRef(server, db);
    const activity: TransparentDataEncryptionActivity = {
      id: `${tdeConfigurationId(ref)}/operationResults/${TDE_CONFIGURATION_NAME}`,
      name: TDE_CONFIGURATION_NAME,
      type: SQL_RESOURCE_TYPES.transparentDataEncryptionActivity,
      location: server.location,
      properties: { status: phase.activity, percentComplete: phase.percentComplete },
    };
    return list([activity]);
  }

  /** EncryptionProtectors_ListByServer: the one protector, `current`. */
  listProtectors(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    return armPage(req, [protectorResource(f.value.server)], this.ctx.settings.pageSize);
  }

  /** EncryptionProtectors_Get: only `current` exists (matched case-insensitively, as ARM names are). */
  getProtector(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    const name = req.params.encryptionProtectorName;
    if (name.toLowerCase() !== ENCRYPTION_PROTECTOR_NAME) return notFound(req, `${req.params.serverName}/encryptionProtector/${name}`);
    return { status: 200, body: protectorResource(f.value.server) };
  }

  /** Servers_Get (2021-11-01 on): the server with its managed identities. */
  getServer(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    const s = f.value.server;
    const keyUri = s.encryptionProtector?.keyName ? s.keys?.find((k) => k.name === s.encryptionProtector!.keyName)?.uri : undefined;
    return { status: 200, body: serverResource({ ...s, ...(keyUri ? { keyUri } : {}) }) };
  }

  /** ServerKeys_ListByServer */
  listServerKeys(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    return armPage(req, serverKeyResources(f.value.server), this.ctx.settings.pageSize);
  }

  /** ServerKeys_Get */
  getServerKey(req: EmulatorRequest): EmulatorReply {
    const f = this.server(req);
    if (!f.ok) return f.reply;
    const lower = req.params.keyName.toLowerCase();
    const key = serverKeyResources(f.value.server).find((k) => k.name!.toLowerCase() === lower);
    if (!key) return notFound(req, `${req.params.serverName}/keys/${req.params.keyName}`);
    return { status: 200, body: key };
  }

  /** Folds a finished scan into the database: its final status stays, the scan record goes. */
  private settle(entry: DatabaseEntry, now: number): void {
    const db = entry.db;
    if (!db.tdeScan) return;
    const phase = scanPhase(db.tdeScan, now);
    if (phase.running) return;
    db.transparentDataEncryption = phase.status;
    delete db.tdeScan;
    this.ctx.changed(...entry.path);
  }

  private server(req: EmulatorRequest): Found<ServerEntry> {
    const { subscriptionId, resourceGroupName, serverName } = req.params;
    const idx = this.lookup();
    const entry = idx.servers.get(serverKey(subscriptionId, resourceGroupName, serverName));
    if (entry) return { ok: true, value: entry };
    if (!idx.groups.has(groupKey(subscriptionId, resourceGroupName))) return { ok: false, reply: resourceGroupNotFound(resourceGroupName) };
    return { ok: false, reply: notFound(req, serverName) };
  }

  private database(req: EmulatorRequest): Found<DatabaseEntry> {
    const s = this.server(req);
    if (!s.ok) return s;
    const entry = s.value.databases.get(req.params.databaseName.toLowerCase());
    if (!entry) return { ok: false, reply: notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}`) };
    return { ok: true, value: entry };
  }

  private tde(req: EmulatorRequest): Found<DatabaseEntry> {
    const d = this.database(req);
    if (!d.ok) return d;
    const name = req.params.transparentDataEncryptionName;
    if (name.toLowerCase() !== TDE_CONFIGURATION_NAME) {
      return {
        ok: false,
        reply: notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}/transparentDataEncryption/${name}`),
      };
    }
    return d;
  }

  private pool(req: EmulatorRequest): Found<{ server: SqlServerState; pool: SqlElasticPoolState }> {
    const s = this.server(req);
    if (!s.ok) return s;
    const pool = s.value.pools.get(req.params.elasticPoolName.toLowerCase());
    if (!pool) return { ok: false, reply: notFound(req, `${req.params.serverName}/elasticPools/${req.params.elasticPoolName}`) };
    return { ok: true, value: { server: s.value.server, pool } };
  }
}

/* ------------------------------------------------------------------ replies */

/** The request's api-version (the ARM front door has checked that it is one the route accepts). */
function apiVersionOf(req: EmulatorRequest): string {
  return req.query.get("api-version")!;
}

function list<T>(value: T[]): EmulatorReply {
  return { status: 200, body: { value } }; // 2014-04-01 lists never page: no nextLink
}

/** ARM's 404 for `Microsoft.Sql/servers/<path>`, naming the resource as it was asked for. */
function notFound(req: EmulatorRequest, path: string): EmulatorReply {
  return resourceNotFound("Microsoft.Sql/servers", path, req.params.resourceGroupName);
}

function dbRef(server: SqlServerState, db: SqlDatabaseState) {
  return { subscriptionId: server.subscriptionId, resourceGroup: server.resourceGroup, server: server.name, database: db.name };
}

function poolRef(server: SqlServerState, pool: SqlElasticPoolState) {
  return { subscriptionId: server.subscriptionId, resourceGroup: server.resourceGroup, server: server.name, elasticPool: pool.name };
}

/**
 * The TDE configuration in every version's fields: 2014-04-01 has `location` and `properties.status`,
 * 2020-02-02-preview on `properties.state` (LogicalDatabaseTransparentDataEncryption, no location);
 * the front door keeps the request's version's own (version-shape.ts).
 */
function tdeResource(server: SqlServerState, db: SqlDatabaseState): TdeInEveryVersion {
  return {
    id: tdeConfigurationId(dbRef(server, db)),
    name: TDE_CONFIGURATION_NAME,
    type: SQL_RESOURCE_TYPES.transparentDataEncryption,
    location: server.location,
    properties: { status: db.transparentDataEncryption, state: db.transparentDataEncryption },
  };
}

type TdeInEveryVersion = Omit<TransparentDataEncryption, "properties"> & {
  properties: { status: TransparentDataEncryptionStatus; state: TransparentDataEncryptionStatus };
};

/** The field a version's TDE PUT carries its status in: `status` (2014-04-01) or `state` (2020-02-02-preview on). */
function tdeStatusField(version: string): "status" | "state" {
  return versionHas("Microsoft.Sql", SQL_RESOURCE_TYPES.transparentDataEncryption, version, "properties.state") ? "state" : "status";
}

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A service tier advisor with the published example's shape: every field present, ids for every objective named. */
function advisorResource(server: SqlServerState, db: SqlDatabaseState, a: SqlAdvisorSeed, now: number): ServiceTierAdvisor {
  const end = a.observationPeriodEnd ?? new Date(Math.floor(now / HOUR_MS) * HOUR_MS).toISOString();
  const start = a.observationPeriodStart ?? new Date(Date.parse(end) - 14 * DAY_MS).toISOString();
  const current = a.currentServiceLevelObjective ?? db.serviceObjective;
  const p: ServiceTierAdvisorProperties = {
    observationPeriodStart: start,
    observationPeriodEnd: end,
    activeTimeRatio: a.activeTimeRatio ?? 0,
    minDtu: a.minDtu ?? 0,
    avgDtu: a.avgDtu ?? 0,
    maxDtu: a.maxDtu ?? 0,
    maxSizeInGB: a.maxSizeInGB ?? 0,
    serviceLevelObjectiveUsageMetrics: (a.serviceLevelObjectiveUsageMetrics ?? [{ serviceLevelObjective: db.serviceObjective }]).map(
      (m) => ({
        serviceLevelObjective: m.serviceLevelObjective,
        serviceLevelObjectiveId: m.serviceLevelObjectiveId ?? serviceObjectiveId(m.serviceLevelObjective),
        inRangeTimeRatio: m.inRangeTimeRatio ?? 1,
      }),
    ),
    currentServiceLevelObjective: current,
    currentServiceLevelObjectiveId: a.currentServiceLevelObjectiveId ?? serviceObjectiveId(current),
  };
  for (const kind of ["usageBased", "databaseSizeBased", "disasterPlanBased", "overall"] as const) {
    const key = `${kind}RecommendationServiceLevelObjective` as const;
    const slo = a[key];
    if (slo === undefined) continue;
    p[key] = slo;
    p[`${key}Id`] = a[`${key}Id`] ?? serviceObjectiveId(slo);
  }
  p.confidence = a.confidence ?? 1;
  return {
    id: `${sqlDatabaseId(dbRef(server, db))}/serviceTierAdvisors/${a.name}`,
    name: a.name,
    type: SQL_RESOURCE_TYPES.serviceTierAdvisor,
    properties: p,
  };
}

/** The ids the published example gives; other objectives get a stable id derived from their name. */
const KNOWN_OBJECTIVE_IDS: Record<string, string> = {
  Basic: "dd6d99bb-f193-4ec1-86f2-43d3bccbc49c",
  S0: "f1173c43-91bd-4aaa-973c-54e79e15235b",
};

function serviceObjectiveId(name: string): string {
  return KNOWN_OBJECTIVE_IDS[name] ?? derivedUuid(`serviceObjective/${name}`);
}

/** Reads `{ "properties": { "<field>": "Enabled" | "Disabled" } }`; the status matches case-insensitively, as ARM enums do. */
function parseTdeBody(req: EmulatorRequest, field: "status" | "state"): Found<TransparentDataEncryptionStatus> {
  const fail = (status: number, code: string, message: string) => ({ ok: false as const, reply: armError(status, code, message) });
  if (req.body === undefined) {
    if (req.rawBody.length > 0)
      return fail(415, "UnsupportedMediaType", "The content media type is not supported. Send the body as application/json.");
    return fail(
      400,
      "InvalidRequestContent",
      `The request content is missing. Send { "properties": { "${field}": "Enabled" | "Disabled" } }.`,
    );
  }
  const body = req.body as { properties?: Record<string, unknown> } | null;
  if (!body || typeof body !== "object" || Array.isArray(body) || !body.properties || typeof body.properties !== "object") {
    return fail(
      400,
      "InvalidRequestContent",
      `The request content must be an object with 'properties', e.g. { "properties": { "${field}": "Enabled" } }.`,
    );
  }
  const raw = body.properties[field];
  if (raw === undefined || raw === null) {
    return fail(400, "MissingRequiredParameter", `The 'properties.${field}' field is required: 'Enabled' or 'Disabled'.`);
  }
  const status = typeof raw === "string" ? TDE_STATUSES.find((s) => s.toLowerCase() === raw.toLowerCase()) : undefined;
  if (!status) {
    return fail(
      400,
      "InvalidParameterValue",
      `The value ${JSON.stringify(raw)} of 'properties.${field}' is not valid; use 'Enabled' or 'Disabled'.`,
    );
  }
  return { ok: true, value: status };
}
