import { armError, armPage } from "../../../kit/arm-conventions";
import type { EmulatorReply } from "../../../kit/emulator-app";
import { Type } from "../../../kit/seed-types";
import { elasticPoolId, sqlDatabaseId } from "../../../../platform/arm/resource-id";
import { SQL_DATABASE_RESOURCE_TYPE, type Database } from "../../../../services/sql/database-types";
import { SERVICE_OBJECTIVE_NAMES } from "../../../../services/sql/types";
import { derivedUuid } from "../derived-uuid";
import { dbRef, type DatabaseEntry } from "../sql-estate";
import type { ServerCall } from "../sql-resource";
import { sqlResource } from "../sql-resource";
import { databaseKeyOf } from "./database-key-custody";
import { poolsOf } from "./elastic-pools";
import { resourceTagsSeed } from "./servers";

/**
 * The database resource itself (Databases_Get, and each item of Databases_ListByServer): its service
 * objective, edition and pool from the seed (`serviceObjective`, `edition`, `elasticPool` on each
 * database), its key custody from database-key-custody.ts, answered with the fields of every
 * published version (the front door keeps the request's version's own).
 */

/** Editions of api-version 2014-04-01 (`DatabaseEdition`). */
export const DATABASE_EDITIONS = [
  "Web",
  "Business",
  "Basic",
  "Standard",
  "Premium",
  "PremiumRS",
  "Free",
  "Stretch",
  "DataWarehouse",
  "System",
  "System2",
] as const;

declare module "../sql-estate" {
  interface SqlDatabaseState {
    serviceObjective: string;
    edition: string;
    /** The elastic pool it is in (one of its server's `elasticPools`). */
    elasticPool?: string;
    /** Its tags, when seeded. */
    tags?: Record<string, string>;
  }
}

/** The resource: its seed fragment on each database, its state, Databases_Get and Databases_ListByServer. */
export const databases = sqlResource({
  name: "databases (Databases_Get, Databases_ListByServer)",
  seed: {
    database: {
      tags: resourceTagsSeed("database"),
      serviceObjective: Type.Optional(
        Type.Enum(SERVICE_OBJECTIVE_NAMES, {
          description:
            "Optional: the database's service objective (a ServiceObjectiveName). Default: ElasticPool when elasticPool is set, else S0.",
        }),
      ),
      edition: Type.Optional(
        Type.Enum(DATABASE_EDITIONS, {
          description:
            "Optional. Default: derived from serviceObjective (Basic, S* Standard, P* Premium, PRS* PremiumRS, DW*/DS* DataWarehouse, Free, System*; Standard in a pool).",
        }),
      ),
      elasticPool: Type.Optional(
        Type.String({
          minLength: 1,
          description: "Optional: the elastic pool the database is in; it must be declared under this server's elasticPools.",
        }),
      ),
    },
  },
  state: {
    database: (f, c) => {
      // The implicit master is the system database of its server.
      if (c.master) return { serviceObjective: "System0", edition: "System" };
      if (f.elasticPool && !poolsOf(c.server).some((p) => p.name.toLowerCase() === f.elasticPool!.toLowerCase())) {
        const serverAt = c.at.slice(0, c.at.lastIndexOf(".databases["));
        throw new Error(
          `${c.at}.elasticPool: server "${c.server.name}" has no elastic pool "${f.elasticPool}"; declare it under ${serverAt}.elasticPools`,
        );
      }
      const serviceObjective = f.serviceObjective ?? (f.elasticPool ? "ElasticPool" : "S0");
      return {
        serviceObjective,
        edition: f.edition ?? editionOf(serviceObjective),
        ...(f.elasticPool ? { elasticPool: f.elasticPool } : {}),
        ...(f.tags ? { tags: { ...f.tags } } : {}),
      };
    },
  },
  routes: [
    {
      at: "server",
      method: "GET",
      path: "databases",
      operation: "Databases_ListByServer",
      // `master` and the server's databases, each as Databases_Get answers it (the list takes no `$expand`: no `properties.keys`), paged.
      handler: ({ req, ctx, entry }) =>
        armPage(
          req,
          [...entry.databases.values()].map((d) => databaseResource(d, null)),
          ctx.settings.pageSize,
        ),
    },
    {
      at: "server",
      method: "PUT",
      path: "databases/:databaseName",
      operation: "Databases_CreateOrUpdate",
      handler: createOrUpdate,
    },
    {
      at: "server",
      method: "DELETE",
      path: "databases/:databaseName",
      operation: "Databases_Delete",
      handler: deleteDatabase,
    },
    {
      at: "database",
      method: "GET",
      path: "",
      operation: "Databases_Get",
      handler: ({ req, database }) => ({ status: 200, body: databaseResource(database, req.query.get("$expand")) }),
    },
  ],
});

/** A database name Azure accepts: 1-128 characters without <>*%&:\\/?# (the seed's rule). */
const DATABASE_NAME = /^[^<>*%&:\\/?#]{1,128}$/;

/**
 * Databases_CreateOrUpdate: a new database (201) built as a seeded one is, with the body's tags and
 * service objective (`sku.name`), and TDE Enabled, as Azure turns it on for every new database; an
 * existing one (200) takes the body's tags and service objective. Recorded in the Activity Log and
 * published to Event Grid as every ARM write is (change-recorder.ts).
 */
function createOrUpdate(call: ServerCall): EmulatorReply {
  const { req, entry, estate } = call;
  const name = req.params.databaseName;
  const invalid = (message: string) => armError(400, "InvalidRequestContent", message);
  if (!DATABASE_NAME.test(name)) return armError(400, "InvalidResourceName", `The database name '${name}' is not valid.`);
  if (name.toLowerCase() === "master")
    return armError(400, "InvalidDatabaseOperation", "The database 'master' is a system database and cannot be created or updated.");
  const body = req.body as { location?: unknown; tags?: unknown; sku?: { name?: unknown } } | null | undefined;
  if (!body || typeof body !== "object")
    return invalid("The request content was invalid and could not be deserialized: a Database body is required.");
  if (typeof body.location !== "string" || !body.location) return invalid("The request content was invalid: 'location' is required.");
  const tags = body.tags;
  if (tags !== undefined && (typeof tags !== "object" || tags === null || Object.values(tags).some((v) => typeof v !== "string")))
    return invalid("The request content was invalid: 'tags' must map names to strings.");
  const sku = body.sku?.name;
  if (sku !== undefined && !(SERVICE_OBJECTIVE_NAMES as readonly unknown[]).includes(sku))
    return armError(400, "InvalidSkuName", `The sku name '${String(sku)}' is not a service objective this server offers.`);
  const existing = entry.databases.get(name.toLowerCase());
  if (existing) {
    const db = existing.db;
    if (tags !== undefined) db.tags = { ...(tags as Record<string, string>) };
    if (typeof sku === "string" && !db.elasticPool) {
      db.serviceObjective = sku;
      db.edition = editionOf(sku);
    }
    call.ctx.changed(...existing.path);
    return { status: 200, body: databaseResource(existing, null) };
  }
  const created = estate.create(name, {
    transparentDataEncryption: "Enabled",
    ...(tags !== undefined ? { tags } : {}),
    ...(typeof sku === "string" ? { serviceObjective: sku } : {}),
  });
  return { status: 201, body: databaseResource(created, null) };
}

/** Databases_Delete: 200 once removed, 204 when the server has no such database; master cannot be deleted. */
function deleteDatabase(call: ServerCall): EmulatorReply {
  const name = call.req.params.databaseName;
  if (name.toLowerCase() === "master")
    return armError(400, "InvalidDatabaseOperation", "The database 'master' is a system database and cannot be deleted.");
  return call.estate.remove(name) ? { status: 200, body: undefined } : { status: 204, body: undefined };
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

/**
 * Databases_Get with the fields of every published version: 2014-04-01's `edition`,
 * `serviceLevelObjective` and `elasticPoolName`; the `sku`, `currentSku` and `elasticPoolId` of
 * 2017-03-01-preview on; the database-level key custody of 2022-08-01-preview on
 * (`encryptionProtector`, and `keys` when `$expand` asks for them, as the service lists them) and
 * `encryptionProtectorAutoRotation` of 2023-02-01-preview on.
 */
export function databaseResource({ server, db, master }: DatabaseEntry, expand: string | null): Database {
  const ref = dbRef(server, db);
  const c = db.keyCustody;
  const properties: NonNullable<Database["properties"]> = {
    collation: "SQL_Latin1_General_CP1_CI_AS",
    status: "Online",
    databaseId: derivedUuid(`database/${sqlDatabaseId(ref).toLowerCase()}`),
    edition: db.edition,
    serviceLevelObjective: db.serviceObjective,
    currentServiceObjectiveName: db.serviceObjective,
    requestedServiceObjectiveName: db.serviceObjective,
    currentSku: { name: db.serviceObjective, tier: db.edition },
    ...(db.elasticPool ? { elasticPoolId: elasticPoolId({ ...ref, elasticPool: db.elasticPool }), elasticPoolName: db.elasticPool } : {}),
  };
  if (c?.encryptionProtector) {
    properties.encryptionProtector = c.encryptionProtector.uri;
    properties.encryptionProtectorAutoRotation = c.encryptionProtector.autoRotationEnabled;
  }
  const wantsKeys = (expand ?? "").split(",").some((e) => e.trim().toLowerCase() === "keys");
  if (wantsKeys && c) properties.keys = Object.fromEntries(c.keys.map((k) => [k.uri, databaseKeyOf(k)]));
  return {
    id: sqlDatabaseId(ref),
    name: db.name,
    type: SQL_DATABASE_RESOURCE_TYPE,
    location: server.location,
    ...(db.tags ? { tags: { ...db.tags } } : {}),
    sku: { name: db.serviceObjective, tier: db.edition },
    kind: master ? "v12.0,system" : "v12.0,user",
    ...(c?.identity ? { identity: c.identity } : {}),
    properties,
  };
}
