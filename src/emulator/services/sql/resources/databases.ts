import { armPage } from "../../../kit/arm-conventions";
import { Type } from "../../../kit/seed-types";
import { elasticPoolId, sqlDatabaseId } from "../../../../platform/arm/resource-id";
import { SQL_DATABASE_RESOURCE_TYPE, type Database } from "../../../../services/sql/database-types";
import { SERVICE_OBJECTIVE_NAMES } from "../../../../services/sql/types";
import { derivedUuid } from "../derived-uuid";
import { dbRef, type DatabaseEntry } from "../sql-estate";
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
      at: "database",
      method: "GET",
      path: "",
      operation: "Databases_Get",
      handler: ({ req, database }) => ({ status: 200, body: databaseResource(database, req.query.get("$expand")) }),
    },
  ],
});

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
