import { createHash } from "node:crypto";
import { armPage } from "../../../kit/arm-conventions";
import { Type, type Static } from "../../../kit/seed-types";
import { childId, sqlServerId, type ServerRef } from "../../../../platform/arm/resource-id";
import { parseKeyVaultKeyUri } from "../../../../services/keyvault/key-uri";
import {
  ENCRYPTION_PROTECTOR_NAME,
  SERVICE_MANAGED_KEY_NAME,
  SQL_KEY_CUSTODY_RESOURCE_TYPES,
  type EncryptionProtector,
  type EncryptionProtectorProperties,
  type ServerKey,
  type ServerKeyProperties,
} from "../../../../services/sql/key-custody-types";
import { dateTime, keyUri } from "../seed-formats";
import { notFound } from "../sql-estate";
import { sqlResource } from "../sql-resource";

/**
 * A server's key custody: its TDE protector (`servers/{server}/encryptionProtector/current`) and its
 * server keys (`servers/{server}/keys`), read-only: the seed says who holds each server's protector.
 * Seeded per server as `encryptionProtector: { keyUri, autoRotationEnabled }` and `keys: [{ uri }]`.
 */

/** A Key Vault key a server (or a database, database-key-custody.ts) knows besides its protector's. */
export const serverKeySeed = Type.Object(
  {
    uri: keyUri("Required: the key's identifier; the server key is named <vault>_<key>_<version> (<vault>_<key> without a version)."),
    thumbprint: Type.Optional(
      Type.String({
        pattern: "^[0-9A-Fa-f]{40}$",
        description: "Optional: 40 hex digits. Default: derived from the uri (stable across runs).",
      }),
    ),
    creationDate: Type.Optional(dateTime("Optional. Default: when the emulator's state was created.")),
  },
  { description: "A Key Vault key the server (or database) knows, besides its protector's." },
);
export type SqlServerKeySeed = Static<typeof serverKeySeed>;

const encryptionProtectorSeed = Type.Object(
  {
    keyUri: Type.Optional(
      keyUri(
        "Optional: a customer-managed protector, the Key Vault key https://<vault>.vault.azure.net/keys/<key>/<version> (serverKeyType AzureKeyVault; the key is added to the server's keys, named <vault>_<key>_<version>). Absent: service-managed.",
      ),
    ),
    autoRotationEnabled: Type.Optional(
      Type.Boolean({
        description: "Optional: reported as properties.autoRotationEnabled from api-version 2020-08-01-preview on. Default false.",
      }),
    ),
  },
  {
    description:
      "Optional: the server's TDE protector (EncryptionProtectors_Get of current). Default (or {}): service-managed (serverKeyType ServiceManaged).",
  },
);
export type SqlEncryptionProtectorSeed = Static<typeof encryptionProtectorSeed>;

/** A Key Vault key the server knows (the service-managed key is implicit). */
export interface SqlServerKeyState {
  /** `<vault>_<key>_<version>`, or `<vault>_<key>` for a versionless URI. */
  name: string;
  uri: string;
  thumbprint: string;
  creationDate: string;
}

/** Who holds the protector: a key of `keys` by name, or nobody (service-managed). */
export interface SqlProtectorState {
  keyName?: string;
  autoRotationEnabled: boolean;
}

/** The key-custody part of a server's state (absent in state saved before it existed: read as service-managed, no keys). */
export interface SqlKeyCustodyState {
  encryptionProtector?: SqlProtectorState;
  keys?: SqlServerKeyState[];
}

declare module "../sql-estate" {
  interface SqlServerState {
    encryptionProtector?: SqlProtectorState;
    keys?: SqlServerKeyState[];
  }
}

/** What the answers need of a server. */
export interface KeyCustodyServer extends SqlKeyCustodyState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
}

/** The resource: its seed fragment on each server, its state, its four routes. */
export const serverKeyCustody = sqlResource({
  name: "server key custody (TDE protector and server keys)",
  seed: {
    server: {
      encryptionProtector: Type.Optional(encryptionProtectorSeed),
      keys: Type.Optional(
        Type.Array(serverKeySeed, {
          description:
            "Optional: further Key Vault keys of the server (unique by uri). Default: none. The service-managed key (ServiceManaged) is always listed.",
        }),
      ),
    },
  },
  state: { server: (f, c) => keyCustodyFromSeed(c.at, f.encryptionProtector, f.keys, c.now) },
  routes: [
    {
      at: "server",
      method: "GET",
      path: "encryptionProtector",
      operation: "EncryptionProtectors_ListByServer",
      // The one protector, `current`.
      handler: ({ req, ctx, server }) => armPage(req, [protectorResource(server)], ctx.settings.pageSize),
    },
    {
      at: "server",
      method: "GET",
      path: "encryptionProtector/:encryptionProtectorName",
      operation: "EncryptionProtectors_Get",
      // Only `current` exists (matched case-insensitively, as ARM names are).
      handler: ({ req, server }) => {
        const name = req.params.encryptionProtectorName;
        if (name.toLowerCase() !== ENCRYPTION_PROTECTOR_NAME) return notFound(req, `${req.params.serverName}/encryptionProtector/${name}`);
        return { status: 200, body: protectorResource(server) };
      },
    },
    {
      at: "server",
      method: "GET",
      path: "keys",
      operation: "ServerKeys_ListByServer",
      handler: ({ req, ctx, server }) => armPage(req, serverKeyResources(server), ctx.settings.pageSize),
    },
    {
      at: "server",
      method: "GET",
      path: "keys/:keyName",
      operation: "ServerKeys_Get",
      handler: ({ req, server }) => {
        const lower = req.params.keyName.toLowerCase();
        const key = serverKeyResources(server).find((k) => k.name!.toLowerCase() === lower);
        if (!key) return notFound(req, `${req.params.serverName}/keys/${req.params.keyName}`);
        return { status: 200, body: key };
      },
    },
  ],
});

/** The server key name Azure gives a Key Vault key: `<vault>_<key>_<version>`. */
export function serverKeyNameOf(uri: string): string {
  const parsed = parseKeyVaultKeyUri(uri);
  if (!parsed) throw new Error(`'${uri}' is not a Key Vault key identifier (https://<vault>.vault.azure.net/keys/<key>/<version>)`);
  return [parsed.vaultName, parsed.keyName, parsed.version].filter((p) => p !== undefined).join("_");
}

/**
 * Builds a server's key custody from its seed: the protector's key joins the keys; names (derived
 * from the URIs) must be unique. `at` locates errors (`sql.servers[2]`); `now` dates keys the seed
 * does not date.
 */
export function keyCustodyFromSeed(
  at: string,
  protector: SqlEncryptionProtectorSeed | undefined,
  keys: SqlServerKeySeed[] | undefined,
  now: number,
): Required<SqlKeyCustodyState> {
  const created = new Date(now).toISOString();
  const out: SqlServerKeyState[] = [];
  const byName = new Map<string, string>();
  const add = (seed: SqlServerKeySeed, where: string): SqlServerKeyState => {
    const name = serverKeyNameOf(seed.uri);
    const seen = byName.get(name.toLowerCase());
    if (seen) throw new Error(`${where}: the key ${seed.uri} is declared twice on this server (also at ${seen})`);
    byName.set(name.toLowerCase(), where);
    const key = { name, uri: seed.uri, thumbprint: seed.thumbprint ?? thumbprintOf(seed.uri), creationDate: seed.creationDate ?? created };
    out.push(key);
    return key;
  };
  (keys ?? []).forEach((k, i) => add(k, `${at}.keys[${i}].uri`));
  let keyName: string | undefined;
  if (protector?.keyUri) {
    const name = serverKeyNameOf(protector.keyUri);
    keyName =
      out.find((k) => k.name.toLowerCase() === name.toLowerCase())?.name ??
      add({ uri: protector.keyUri }, `${at}.encryptionProtector.keyUri`).name;
  }
  return {
    encryptionProtector: { ...(keyName ? { keyName } : {}), autoRotationEnabled: protector?.autoRotationEnabled ?? false },
    keys: out,
  };
}

/** A stable 40-hex-digit thumbprint for a key URI (real ones are the key's SHA-1 thumbprint; this one only has to be stable). */
export function thumbprintOf(uri: string): string {
  return createHash("sha1").update(`stackwarden/sql/server-key/${uri.toLowerCase()}`).digest("hex").toUpperCase();
}

function refOf(s: KeyCustodyServer): ServerRef {
  return { subscriptionId: s.subscriptionId, resourceGroup: s.resourceGroup, server: s.name };
}

/** The key the protector uses, or undefined when it is service-managed. */
function protectorKey(s: SqlKeyCustodyState): SqlServerKeyState | undefined {
  const name = s.encryptionProtector?.keyName;
  return name === undefined ? undefined : s.keys?.find((k) => k.name === name);
}

/** The customer-managed protector's key URI (Servers_Get's `properties.keyId`), or undefined when service-managed. */
export function protectorKeyUri(s: SqlKeyCustodyState): string | undefined {
  return protectorKey(s)?.uri;
}

/**
 * EncryptionProtectors_Get of `current`, with the fields of every version (`autoRotationEnabled`,
 * and `keyVersion` when the key URI names one; the front door keeps the request's version's own).
 */
export function protectorResource(s: KeyCustodyServer): EncryptionProtector {
  const key = protectorKey(s);
  const p: EncryptionProtectorProperties = key
    ? { serverKeyName: key.name, serverKeyType: "AzureKeyVault", uri: key.uri, thumbprint: key.thumbprint }
    : { serverKeyName: SERVICE_MANAGED_KEY_NAME, serverKeyType: "ServiceManaged" };
  p.autoRotationEnabled = s.encryptionProtector?.autoRotationEnabled ?? false;
  const keyVersion = key && parseKeyVaultKeyUri(key.uri)?.version;
  if (keyVersion) p.keyVersion = keyVersion;
  return {
    id: childId(sqlServerId(refOf(s)), "encryptionProtector", ENCRYPTION_PROTECTOR_NAME),
    name: ENCRYPTION_PROTECTOR_NAME,
    type: SQL_KEY_CUSTODY_RESOURCE_TYPES.encryptionProtector,
    kind: key ? "azurekeyvault" : "servicemanaged",
    location: s.location,
    properties: p,
  };
}

/**
 * ServerKeys_ListByServer, with the fields of every version (as protectorResource): the
 * service-managed key first, then the Key Vault keys in seed order.
 */
export function serverKeyResources(s: KeyCustodyServer): ServerKey[] {
  const base = sqlServerId(refOf(s));
  const protector = s.encryptionProtector;
  const serviceManaged: ServerKeyProperties = { serverKeyType: "ServiceManaged", autoRotationEnabled: false };
  const out: ServerKey[] = [
    {
      id: childId(base, "keys", SERVICE_MANAGED_KEY_NAME),
      name: SERVICE_MANAGED_KEY_NAME,
      type: SQL_KEY_CUSTODY_RESOURCE_TYPES.serverKey,
      kind: "servicemanaged",
      location: s.location,
      properties: serviceManaged,
    },
  ];
  for (const k of s.keys ?? []) {
    const p: ServerKeyProperties = { serverKeyType: "AzureKeyVault", uri: k.uri, thumbprint: k.thumbprint, creationDate: k.creationDate };
    // A key rotates by itself only while it is the protector of a server that opted in.
    p.autoRotationEnabled = protector?.keyName === k.name && protector.autoRotationEnabled;
    const keyVersion = parseKeyVaultKeyUri(k.uri)?.version;
    if (keyVersion) p.keyVersion = keyVersion;
    out.push({
      id: childId(base, "keys", k.name),
      name: k.name,
      type: SQL_KEY_CUSTODY_RESOURCE_TYPES.serverKey,
      kind: "azurekeyvault",
      location: s.location,
      properties: p,
    });
  }
  return out;
}
