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

/**
 * Databases_Get with the fields of every published version (the front door keeps the request's
 * version's own, version-shape.ts): 2014-04-01's `edition`, `serviceLevelObjective` and
 * `elasticPoolName`; the `sku`, `currentSku` and `elasticPoolId` of 2017-03-01-preview on; the
 * database-level key custody of 2022-08-01-preview on (`encryptionProtector`, and `keys` when
 * `$expand` asks for them, as the service lists them) and `encryptionProtectorAutoRotation` of
 * 2023-02-01-preview on.
 */
export function databaseResource(v: DatabaseView, expand: string | null): Database {
  const c = v.custody;
  const properties: NonNullable<Database["properties"]> = {
    collation: "SQL_Latin1_General_CP1_CI_AS",
    status: "Online",
    databaseId: derivedUuid(`database/${sqlDatabaseId(v.ref).toLowerCase()}`),
    edition: v.edition,
    serviceLevelObjective: v.serviceObjective,
    currentServiceObjectiveName: v.serviceObjective,
    requestedServiceObjectiveName: v.serviceObjective,
    currentSku: { name: v.serviceObjective, tier: v.edition },
    ...(v.elasticPoolId
      ? { elasticPoolId: v.elasticPoolId, elasticPoolName: v.elasticPoolId.slice(v.elasticPoolId.lastIndexOf("/") + 1) }
      : {}),
  };
  if (c?.encryptionProtector) {
    properties.encryptionProtector = c.encryptionProtector.uri;
    properties.encryptionProtectorAutoRotation = c.encryptionProtector.autoRotationEnabled;
  }
  const wantsKeys = (expand ?? "").split(",").some((e) => e.trim().toLowerCase() === "keys");
  if (wantsKeys && c) properties.keys = Object.fromEntries(c.keys.map((k) => [k.uri, databaseKeyOf(k)]));
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
