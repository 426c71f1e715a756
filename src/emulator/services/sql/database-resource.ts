import { since } from "../../../services/keyvault/api-versions";
import { sqlDatabaseId, type DatabaseRef } from "../../../platform/arm/resource-id";
import { SQL_DATABASE_RESOURCE_TYPE, type Database, type DatabaseIdentity, type DatabaseKey } from "../../../services/sql/database-types";
import { serverKeyNameOf, thumbprintOf, type SqlServerKeyState } from "./key-custody";
import type { SqlDatabaseSeed } from "./seed-schema";
import { derivedUuid } from "./derived-uuid";

/**
 * A database's own resource (Databases_Get, and each item of Databases_ListByServer) as the emulator
 * answers it, with the database-level key custody the seed gives it: its own TDE protector
 * (`properties.encryptionProtector`), its keys (`properties.keys`, with `$expand=keys` on the GET)
 * and its identity (`identity`, user-assigned only).
 */

/**
 * The api-versions of Databases_Get and Databases_ListByServer the emulator accepts, each answered
 * in its shape (from each version's
 * specification/sql/resource-manager/Microsoft.Sql/{stable,preview}/<version>/Databases.json in
 * Azure/azure-rest-api-specs at a977c730fda43ab19c05373b32c7159d6f265e9a): 2021-11-01 (stable,
 * `identity` but no database-level keys), 2022-08-01-preview (+ `encryptionProtector`, `keys`),
 * 2023-02-01-preview (+ `encryptionProtectorAutoRotation`; what the client sends), and the previews
 * between and after it that carry the same fields.
 */
export const SQL_DATABASE_API_VERSIONS = [
  "2021-11-01",
  "2022-08-01-preview",
  "2022-11-01-preview",
  "2023-02-01-preview",
  "2023-05-01-preview",
  "2023-08-01-preview",
] as const;

/** A database's key custody, kept in its state (absent: the server's protector, no identity). */
export interface SqlDatabaseKeyCustodyState {
  /** Its own protector's key URI, and whether it follows the key's newest version. */
  encryptionProtector?: { uri: string; autoRotationEnabled: boolean };
  /** Its database-level keys (the protector's included). */
  keys: SqlServerKeyState[];
  identity?: DatabaseIdentity;
}

/**
 * Builds a database's key custody from its seed: the protector's key joins its keys (unique by
 * URI); a protector needs a user-assigned identity, as Azure requires one to reach the key. `at`
 * locates errors (`sql.servers[0].databases[1]`); `now` dates keys the seed does not date.
 */
export function databaseKeyCustodyFromSeed(
  at: string,
  ref: DatabaseRef,
  d: SqlDatabaseSeed,
  now: number,
): SqlDatabaseKeyCustodyState | undefined {
  if (!d.encryptionProtector && !d.keys && !d.identity) return undefined;
  const created = new Date(now).toISOString();
  const keys: SqlServerKeyState[] = [];
  const add = (uri: string, where: string, seed?: { thumbprint?: string; creationDate?: string }) => {
    if (keys.some((k) => k.uri.toLowerCase() === uri.toLowerCase())) {
      if (seed) throw new Error(`${where}: the key ${uri} is declared twice on this database`);
      return;
    }
    keys.push({
      name: serverKeyNameOf(uri),
      uri,
      thumbprint: seed?.thumbprint ?? thumbprintOf(uri),
      creationDate: seed?.creationDate ?? created,
    });
  };
  (d.keys ?? []).forEach((k, i) => add(k.uri, `${at}.keys[${i}].uri`, k));
  const identity = identityOf(ref, d);
  if (d.encryptionProtector) {
    if (identity?.type !== "UserAssigned")
      throw new Error(
        `${at}.encryptionProtector: a database's own TDE protector needs a user-assigned identity to reach its key; set ${at}.identity.userAssignedIdentities`,
      );
    add(d.encryptionProtector.keyUri, `${at}.encryptionProtector.keyUri`);
  }
  return {
    ...(d.encryptionProtector
      ? {
          encryptionProtector: {
            uri: d.encryptionProtector.keyUri,
            autoRotationEnabled: d.encryptionProtector.autoRotationEnabled ?? false,
          },
        }
      : {}),
    keys,
    ...(identity ? { identity } : {}),
  };
}

/** The seed's identity with what the service fills in (principal and client ids, tenant). */
function identityOf(ref: DatabaseRef, d: SqlDatabaseSeed): DatabaseIdentity | undefined {
  const seed = d.identity;
  if (!seed) return undefined;
  const users = Object.entries(seed.userAssignedIdentities ?? {});
  const type = seed.type ?? (users.length > 0 ? "UserAssigned" : "None");
  if (type === "None") return { type };
  return {
    type,
    tenantId: seed.tenantId ?? derivedUuid(`tenant/${ref.subscriptionId.toLowerCase()}`),
    userAssignedIdentities: Object.fromEntries(
      users.map(([id, u]) => [
        id,
        {
          principalId: u.principalId ?? derivedUuid(`identity-principal/${id.toLowerCase()}`),
          clientId: u.clientId ?? derivedUuid(`identity-client/${id.toLowerCase()}`),
        },
      ]),
    ),
  };
}

/** What a database looks like to Databases_Get, besides its key custody. */
export interface DatabaseView {
  ref: DatabaseRef;
  location: string;
  serviceObjective: string;
  edition: string;
  elasticPoolId?: string;
  master: boolean;
  custody?: SqlDatabaseKeyCustodyState;
}

/** Databases_Get in `version`'s shape; `properties.keys` only when `$expand` asks for keys, as the service lists them. */
export function databaseResource(v: DatabaseView, version: string, expand: string | null): Database {
  const c = v.custody;
  const perDatabaseKeys = since(version, "2022-08-01-preview");
  const properties: NonNullable<Database["properties"]> = {
    collation: "SQL_Latin1_General_CP1_CI_AS",
    status: "Online",
    databaseId: derivedUuid(`database/${sqlDatabaseId(v.ref).toLowerCase()}`),
    currentServiceObjectiveName: v.serviceObjective,
    requestedServiceObjectiveName: v.serviceObjective,
    currentSku: { name: v.serviceObjective, tier: v.edition },
    ...(v.elasticPoolId ? { elasticPoolId: v.elasticPoolId } : {}),
  };
  if (perDatabaseKeys && c?.encryptionProtector) properties.encryptionProtector = c.encryptionProtector.uri;
  if (since(version, "2023-02-01-preview") && c?.encryptionProtector)
    properties.encryptionProtectorAutoRotation = c.encryptionProtector.autoRotationEnabled;
  const wantsKeys = (expand ?? "").split(",").some((e) => e.trim().toLowerCase() === "keys");
  if (perDatabaseKeys && wantsKeys && c) properties.keys = Object.fromEntries(c.keys.map((k) => [k.uri, databaseKeyOf(k)]));
  return {
    id: sqlDatabaseId(v.ref),
    name: v.ref.database,
    type: SQL_DATABASE_RESOURCE_TYPE,
    location: v.location,
    sku: { name: v.serviceObjective, tier: v.edition },
    kind: v.master ? "v12.0,system" : "v12.0,user",
    ...(c?.identity ? { identity: c.identity } : {}),
    properties,
  };
}

function databaseKeyOf(k: SqlServerKeyState): DatabaseKey {
  return { type: "AzureKeyVault", thumbprint: k.thumbprint, creationDate: k.creationDate };
}
