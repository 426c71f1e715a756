import type { EmulatorReply, EmulatorRequest, Method } from "../../kit/emulator-app";
import type { ServiceContext } from "../../kit/local-service";
import { resourceGroupNotFound } from "../../kit/arm-conventions";
import { publishedOperation } from "../../kit/published-operations";
import { Type, type StaticProperties, type TProperties, type TSchema } from "../../kit/seed-types";
import { bothNamespaces } from "../../../platform/arm/provider-namespace";
import type { DatabaseRef, ServerRef } from "../../../platform/arm/resource-id";
import {
  DATABASE_SEED,
  DEFAULT_LOCATION,
  DEFAULT_SUBSCRIPTION_ID,
  ESTATE_SEED,
  SERVER_SEED,
  groupKey,
  notFound,
  serverKey,
  serverRef,
  unique,
  type DatabaseEntry,
  type ServerEntry,
  type SqlDatabaseState,
  type SqlServerState,
  type SqlState,
} from "./sql-estate";

/**
 * One resource of the SQL emulator in one module: the keys its seed fragment adds to the `sql:`
 * section, to each server or to each database (declared once: the JSON Schema and the TypeScript
 * type come from the same declaration, kit/seed-types.ts), the state it builds from them, and its
 * routes. sql-resources.ts finds each module in resources/; this file composes them into the
 * service (seed schema, initial state, lookups, routes).
 */
export interface SqlResource<
  E extends TProperties = TProperties,
  S extends TProperties = TProperties,
  D extends TProperties = TProperties,
> {
  /** What it serves, for readers (e.g. "firewall rules"). */
  readonly name: string;
  /** Its seed fragment: the keys it adds to the section, to each `servers[]` item, to each `databases[]` item. */
  readonly seed?: { readonly estate?: E; readonly server?: S; readonly database?: D };
  /** Its state from its fragment of one seed object (what the schema cannot check, it checks here, located by `at`). */
  readonly state?: {
    estate?(fragment: StaticProperties<E>): Partial<SqlState>;
    server?(fragment: StaticProperties<S>, c: ServerSeedContext): Partial<SqlServerState>;
    database?(fragment: StaticProperties<D>, c: DatabaseSeedContext): Partial<SqlDatabaseState>;
  };
  /** Its routes: under a server's path or a database's. */
  readonly routes?: readonly SqlRoute[];
  /**
   * The modules whose part of a seed object its state functions read (`c.server`, `c.database`):
   * they come before it. Otherwise the modules of resources/ go in file-name order (sql-resources.ts).
   */
  readonly after?: readonly SqlResource[];
}

/** What a server's part of the state is built with. */
export interface ServerSeedContext {
  /** Where the server is in the seed (`sql.servers[2]`), for errors. */
  at: string;
  ref: ServerRef;
  /** The server's state so far (the modules registered before this one). */
  server: SqlServerState;
  /** When the state is built: dates keys the seed leaves undated. */
  now: number;
}

/** What a database's part of the state is built with. */
export interface DatabaseSeedContext {
  /** Where the database is in the seed (`sql.servers[2].databases[0]`); for master, its server's. */
  at: string;
  ref: DatabaseRef;
  /** Its server's state (every server module's part). */
  server: SqlServerState;
  /** The database's state so far. */
  database: SqlDatabaseState;
  /** The implicit `master` (built from an empty fragment), not a seeded database. */
  master: boolean;
  now: number;
}

/** A route of a resource: a method, a path under its server (`firewallRules`) or database (or the servers' list), its published operation and its handler. */
export type SqlRoute = ServerRoute | DatabaseRoute | ServersRoute;

interface RouteBase {
  method: Method;
  /** The path under the server's or database's (`transparentDataEncryption/:transparentDataEncryptionName`); "" for itself. */
  path: string;
  /** Its operationId in specs/api-versions/Microsoft.Sql.json: the api-versions it answers. */
  operation: string;
}

/** A route under `…/servers/:serverName`: the server is found (or 404) before the handler runs. */
export interface ServerRoute extends RouteBase {
  at: "server";
  handler(call: ServerCall): EmulatorReply;
}

/** A route under `…/servers/:serverName/databases/:databaseName`: the database is found (or 404) first. */
export interface DatabaseRoute extends RouteBase {
  at: "database";
  handler(call: DatabaseCall): EmulatorReply;
}

/**
 * A route over the servers of a subscription (`…/providers/Microsoft.Sql/servers`) or of a resource
 * group (`at: "resourceGroup"`, 404 ResourceGroupNotFound for a group no server is in): the handler
 * gets those servers, in the estate's order.
 */
export interface ServersRoute extends RouteBase {
  at: "subscription" | "resourceGroup";
  handler(call: ServersCall): EmulatorReply;
}

/** What a servers route's handler gets. */
export interface ServersCall {
  req: EmulatorRequest;
  ctx: ServiceContext<SqlState>;
  servers: ServerEntry[];
}

/** What a server route's handler gets. */
export interface ServerCall {
  req: EmulatorRequest;
  ctx: ServiceContext<SqlState>;
  server: SqlServerState;
  entry: ServerEntry;
  /** Creates and deletes this server's databases at run time (Databases_CreateOrUpdate, Databases_Delete). */
  estate: ServerDatabases;
}

/** A server's databases as a run-time write changes them: each module's state for a new one, journaled, looked up at once. */
export interface ServerDatabases {
  /** Adds a database built as a seeded one is, from `seed` (each module's fragment of a database's seed, validated by the caller). */
  create(name: string, seed: Record<string, unknown>): DatabaseEntry;
  /** Removes a database (never master); false when the server has none of that name. */
  remove(name: string): boolean;
}

/** What a database route's handler gets. */
export interface DatabaseCall extends ServerCall {
  database: DatabaseEntry;
}

/** Marks a declaration, so that the folder's loader (sql-resources.ts) tells it from a module's other exports. */
const DECLARED = Symbol.for("stackwarden.emulator.sqlResource");

/** Declares a resource module: its fragments keep their own types for its state functions, and the declaration is marked as one. */
export function sqlResource<E extends TProperties = TProperties, S extends TProperties = TProperties, D extends TProperties = TProperties>(
  r: SqlResource<E, S, D>,
): SqlResource<E, S, D> {
  return Object.defineProperty(r, DECLARED, { value: true, enumerable: false });
}

/** Whether a value is a declaration made with `sqlResource`. */
export function isSqlResource(value: unknown): value is SqlResource {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[DECLARED] === true;
}

/* ------------------------------------------------------------------ the seed schema */

/** The `sql:` section's JSON Schema: the hierarchy's keys and every module's fragment, each at its level. */
export function sqlSeedSchema(resources: readonly SqlResource[]): TSchema {
  const of = (level: "estate" | "server" | "database") => Object.assign({}, ...resources.map((r) => r.seed?.[level] ?? {})) as TProperties;
  const database = Type.Object({ ...DATABASE_SEED, ...of("database") });
  const server = Type.Object({
    ...SERVER_SEED,
    ...of("server"),
    databases: Type.Optional(
      Type.Array(database, { description: "Optional: the user databases. Default: none (master is always there)." }),
    ),
  });
  return Type.Object(
    { ...ESTATE_SEED, ...of("estate"), servers: Type.Optional(Type.Array(server, { description: "Optional. Default: none." })) },
    {
      description:
        "The Azure SQL estate the emulator serves (servers, databases, pools, TDE, advisors, each server's encryption protector and keys), at every api-version Azure publishes for each operation (specs/api-versions/Microsoft.Sql.json).",
    },
  );
}

/* ------------------------------------------------------------------ seed → state */

type SeedObject = Record<string, unknown> & { name?: string };

/**
 * Only the keys a module declared, from a seed object the schema has validated. Typed `never` so it
 * goes to each module's state function as that module's own fragment type: the schema checked it.
 */
function fragment(seed: SeedObject, keys: TProperties | undefined): never {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(keys ?? {})) if (seed[k] !== undefined) out[k] = seed[k];
  return out as never;
}

/** Builds the state from a validated `sql:` section: the hierarchy, then each module's part in registration order. */
export function sqlStateFromSeed(resources: readonly SqlResource[], seed: Record<string, unknown> | undefined): SqlState {
  const now = Date.now();
  const section = (seed ?? {}) as SeedObject & { subscriptionId?: string; servers?: SeedObject[] };
  // The hierarchy's part; each module's state function fills in its own keys.
  const state = { servers: [] } as unknown as SqlState;
  for (const r of resources) Object.assign(state, r.state?.estate?.(fragment(section, r.seed?.estate)));
  const defaultSub = section.subscriptionId ?? DEFAULT_SUBSCRIPTION_ID;
  const serverNames = new Map<string, string>();
  state.servers = (section.servers ?? []).map((s, si) => {
    const at = `sql.servers[${si}]`;
    const name = s.name!;
    const seen = serverNames.get(name.toLowerCase());
    if (seen) throw new Error(`${at}.name: server "${name}" is declared twice (also at ${seen}); server names are global`);
    serverNames.set(name.toLowerCase(), at);
    const ref = {
      subscriptionId: (s.subscriptionId as string | undefined) ?? defaultSub,
      resourceGroup: s.resourceGroup as string,
      server: name,
    };
    const server = {
      subscriptionId: ref.subscriptionId,
      resourceGroup: ref.resourceGroup,
      name,
      location: (s.location as string | undefined) ?? DEFAULT_LOCATION,
      databases: [],
    } as unknown as SqlServerState;
    for (const r of resources) Object.assign(server, r.state?.server?.(fragment(s, r.seed?.server), { at, ref, server, now }));
    server.databases = ((s.databases as SeedObject[] | undefined) ?? []).map((d, di) =>
      databaseState(resources, d, { at: `${at}.databases[${di}]`, ref: { ...ref, database: d.name! }, server, master: false, now }),
    );
    unique(
      server.databases.map((d) => d.name),
      (n, i) => `${at}.databases[${i}].name: database "${n}" is declared twice on server "${name}"`,
    );
    return server;
  });
  return state;
}

/** A database's state: its name, then each module's part. */
function databaseState(resources: readonly SqlResource[], seed: SeedObject, c: Omit<DatabaseSeedContext, "database">): SqlDatabaseState {
  const database = { name: c.ref.database } as SqlDatabaseState;
  for (const r of resources) Object.assign(database, r.state?.database?.(fragment(seed, r.seed?.database), { ...c, database }));
  return database;
}

/** The implicit system database of a server: every module's part from an empty fragment, frozen (nothing may change it). */
function masterOf(resources: readonly SqlResource[], server: SqlServerState): SqlDatabaseState {
  const ref = { subscriptionId: server.subscriptionId, resourceGroup: server.resourceGroup, server: server.name, database: MASTER };
  return Object.freeze(databaseState(resources, {}, { at: "master", ref, server, master: true, now: 0 }));
}

const MASTER = "master";

/* ------------------------------------------------------------------ lookups and routes */

/**
 * Case-insensitive lookups over the state, built once per state object (the estate's shape never
 * changes at run time; only resources' fields do, in place).
 */
class SqlIndex {
  readonly groups = new Set<string>();
  readonly servers = new Map<string, ServerEntry>();

  constructor(
    readonly state: SqlState,
    resources: readonly SqlResource[],
  ) {
    state.servers.forEach((server, si) => {
      this.groups.add(groupKey(server.subscriptionId, server.resourceGroup));
      const databases = new Map<string, DatabaseEntry>();
      databases.set(MASTER, { server, db: masterOf(resources, server), master: true, path: [] });
      server.databases.forEach((db, di) => {
        databases.set(db.name.toLowerCase(), { server, db, master: false, path: ["servers", si, "databases", di] });
      });
      this.servers.set(serverKey(server.subscriptionId, server.resourceGroup, server.name), { server, databases, path: ["servers", si] });
    });
  }
}

function isServersRoute(route: SqlRoute): route is ServersRoute {
  return route.at === "subscription" || route.at === "resourceGroup";
}

/** Mounts every module's routes under both namespace spellings, each with its published operation's api-versions. */
export function mountSqlResources(ctx: ServiceContext<SqlState>, resources: readonly SqlResource[]): void {
  let index: SqlIndex | undefined;
  const lookup = (): SqlIndex => {
    const s = ctx.state();
    if (!index || index.state !== s) index = new SqlIndex(s, resources);
    return index;
  };
  const findServer = (req: EmulatorRequest): ServerEntry | EmulatorReply => {
    const { subscriptionId, resourceGroupName, serverName } = req.params;
    const idx = lookup();
    const entry = idx.servers.get(serverKey(subscriptionId, resourceGroupName, serverName));
    if (entry) return entry;
    if (!idx.groups.has(groupKey(subscriptionId, resourceGroupName))) return resourceGroupNotFound(resourceGroupName);
    return notFound(req, serverName);
  };
  const serveList =
    (route: ServersRoute) =>
    (req: EmulatorRequest): EmulatorReply => {
      const { subscriptionId, resourceGroupName } = req.params;
      const idx = lookup();
      if (route.at === "resourceGroup" && !idx.groups.has(groupKey(subscriptionId, resourceGroupName)))
        return resourceGroupNotFound(resourceGroupName);
      const within = (e: ServerEntry) =>
        e.server.subscriptionId.toLowerCase() === subscriptionId.toLowerCase() &&
        (route.at === "subscription" || e.server.resourceGroup.toLowerCase() === resourceGroupName.toLowerCase());
      return route.handler({ req, ctx, servers: [...idx.servers.values()].filter(within) });
    };
  const estateOf = (entry: ServerEntry): ServerDatabases => ({
    create: (name, seed) => {
      const server = entry.server;
      const ref = { ...serverRef(server), database: name };
      const at = `${ref.server}/databases/${name}`;
      server.databases.push(databaseState(resources, seed as SeedObject, { at, ref, server, master: false, now: Date.now() }));
      // The estate's shape changed: the lookups are built again at the next request.
      index = undefined;
      ctx.changed(...entry.path, "databases");
      return lookup()
        .servers.get(serverKey(server.subscriptionId, server.resourceGroup, server.name))!
        .databases.get(name.toLowerCase())!;
    },
    remove: (name) => {
      const server = entry.server;
      const i = server.databases.findIndex((d) => d.name.toLowerCase() === name.toLowerCase());
      if (i < 0) return false;
      server.databases.splice(i, 1);
      index = undefined;
      ctx.changed(...entry.path, "databases");
      return true;
    },
  });
  const serve =
    (route: ServerRoute | DatabaseRoute) =>
    (req: EmulatorRequest): EmulatorReply => {
      const entry = findServer(req);
      if (!("databases" in entry)) return entry;
      const call = { req, ctx, server: entry.server, entry, estate: estateOf(entry) };
      if (route.at === "server") return route.handler(call);
      const database = entry.databases.get(req.params.databaseName.toLowerCase());
      if (!database) return notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}`);
      return route.handler({ ...call, database });
    };
  for (const ns of bothNamespaces("Sql")) {
    const server = `/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName/providers/${ns}/servers/:serverName`;
    const database = `${server}/databases/:databaseName`;
    const lists = {
      subscription: `/subscriptions/:subscriptionId/providers/${ns}/servers`,
      resourceGroup: `/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName/providers/${ns}/servers`,
    };
    for (const r of resources) {
      for (const route of r.routes ?? []) {
        const op = publishedOperation("Microsoft.Sql", route.operation);
        if (isServersRoute(route)) {
          ctx.arm(route.method, route.path ? `${lists[route.at]}/${route.path}` : lists[route.at], op, serveList(route));
        } else {
          const base = route.at === "server" ? server : database;
          ctx.arm(route.method, route.path ? `${base}/${route.path}` : base, op, serve(route));
        }
      }
    }
  }
}
