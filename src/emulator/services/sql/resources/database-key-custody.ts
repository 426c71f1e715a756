import { Type, type StaticProperties } from "../../../kit/seed-types";
import type { DatabaseRef } from "../../../../platform/arm/resource-id";
import type { DatabaseIdentity, DatabaseKey } from "../../../../services/sql/database-types";
import { derivedUuid } from "../derived-uuid";
import { keyUri, uuid } from "../seed-formats";
import { sqlResource } from "../sql-resource";
import { serverKeyNameOf, serverKeySeed, thumbprintOf, type SqlServerKeyState } from "./server-key-custody";

/**
 * A database's own key custody (database-level customer-managed keys): its TDE protector, its keys
 * and its user-assigned identity, seeded per database as `encryptionProtector`, `keys` and
 * `identity`. Databases_Get (databases.ts) reports them: `properties.encryptionProtector` and
 * `encryptionProtectorAutoRotation`, `properties.keys` with `$expand=keys`, and `identity`.
 */

const databaseProtectorSeed = Type.Object(
  {
    keyUri: keyUri("Required: the Key Vault key https://<vault>.vault.azure.net/keys/<key>/<version> (it joins the database's keys)."),
    autoRotationEnabled: Type.Optional(
      Type.Boolean({
        description:
          "Optional: reported as properties.encryptionProtectorAutoRotation from api-version 2023-02-01-preview on. Default false.",
      }),
    ),
  },
  {
    description:
      "Optional: the database's own TDE protector (a database-level customer-managed key): Databases_Get reports it as properties.encryptionProtector from api-version 2022-08-01-preview on. It needs identity with one user-assigned identity (Azure requires one to reach the key). Absent: the server's protector protects the database.",
  },
);

const USER_ASSIGNED_IDENTITY_ID =
  "^/subscriptions/[0-9a-fA-F-]{36}/resource[Gg]roups/[-\\w.()]+/providers/Microsoft\\.ManagedIdentity/userAssignedIdentities/[-\\w]+$";

/** A database's identity: `DatabaseIdentity` (type None or UserAssigned, and the user-assigned identities by ARM id). */
const databaseIdentitySeed = Type.Object(
  {
    type: Type.Optional(
      Type.Enum(["None", "UserAssigned"], {
        description: "Optional. Default: UserAssigned when userAssignedIdentities is set, else None.",
      }),
    ),
    tenantId: Type.Optional(
      uuid(
        "Optional: the identity's tenant, reported when the database has a user-assigned identity. Default: a uuid derived from the subscription.",
      ),
    ),
    userAssignedIdentities: Type.Optional(
      Type.Record(
        Type.Object({
          principalId: Type.Optional(uuid("Optional. Default: a uuid derived from the identity's id.")),
          clientId: Type.Optional(uuid("Optional. Default: a uuid derived from the identity's id.")),
        }),
        {
          maxProperties: 1,
          propertyNames: { pattern: USER_ASSIGNED_IDENTITY_ID },
          description:
            "Optional: at most one user-assigned identity (Azure: MultipleIdentitiesOnDatabase), keyed by its ARM id /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>.",
        },
      ),
    ),
  },
  {
    description:
      "Optional: the database's identity (DatabaseIdentity: a database has no system-assigned identity). Default: none (no identity reported).",
  },
);

const seed = {
  encryptionProtector: Type.Optional(databaseProtectorSeed),
  keys: Type.Optional(
    Type.Array(serverKeySeed, {
      description:
        "Optional: further database-level Key Vault keys (unique by uri), listed in properties.keys by Databases_Get with $expand=keys. Default: none.",
    }),
  ),
  identity: Type.Optional(databaseIdentitySeed),
};
type DatabaseKeyCustodySeed = StaticProperties<typeof seed>;

/** A database's key custody, kept in its state (absent: the server's protector, no identity). */
export interface SqlDatabaseKeyCustodyState {
  /** Its own protector's key URI, and whether it follows the key's newest version. */
  encryptionProtector?: { uri: string; autoRotationEnabled: boolean };
  /** Its database-level keys (the protector's included). */
  keys: SqlServerKeyState[];
  identity?: DatabaseIdentity;
}

declare module "../sql-estate" {
  interface SqlDatabaseState {
    /** Its own TDE protector, keys and identity (absent: the server's protector, no identity). */
    keyCustody?: SqlDatabaseKeyCustodyState;
  }
}

/** The resource: its seed fragment on each database and its state; Databases_Get answers it. */
export const databaseKeyCustody = sqlResource({
  name: "database key custody (its own TDE protector, keys and identity)",
  seed: { database: seed },
  state: {
    database: (f, c) => {
      const keyCustody = c.master ? undefined : databaseKeyCustodyFromSeed(c.at, c.ref, f, c.now);
      return keyCustody ? { keyCustody } : {};
    },
  },
});

/**
 * Builds a database's key custody from its seed: the protector's key joins its keys (unique by
 * URI); a protector needs a user-assigned identity, as Azure requires one to reach the key. `at`
 * locates errors (`sql.servers[0].databases[1]`); `now` dates keys the seed does not date.
 */
export function databaseKeyCustodyFromSeed(
  at: string,
  ref: DatabaseRef,
  d: DatabaseKeyCustodySeed,
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
function identityOf(ref: DatabaseRef, d: DatabaseKeyCustodySeed): DatabaseIdentity | undefined {
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

/** A database-level key as Databases_Get lists it (`properties.keys`). */
export function databaseKeyOf(k: SqlServerKeyState): DatabaseKey {
  return { type: "AzureKeyVault", thumbprint: k.thumbprint, creationDate: k.creationDate };
}
