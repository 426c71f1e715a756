import { createHash } from "node:crypto";
import { childId, sqlServerId, type ServerRef } from "../../../platform/arm/resource-id";
import { parseKeyVaultKeyUri } from "../../../services/keyvault/key-uri";
import {
  ENCRYPTION_PROTECTOR_NAME,
  SERVICE_MANAGED_KEY_NAME,
  SQL_KEY_CUSTODY_RESOURCE_TYPES,
  type EncryptionProtector,
  type EncryptionProtectorProperties,
  type ServerKey,
  type ServerKeyProperties,
} from "../../../services/sql/key-custody-types";
import type { SqlEncryptionProtectorSeed, SqlServerKeySeed } from "./seed-schema";

/**
 * A SQL server's key custody as the emulator keeps it, and its answers in each api-version's shape:
 * the TDE protector (`servers/{server}/encryptionProtector/current`) and the server keys
 * (`servers/{server}/keys`). Read-only here: the seed says who holds each server's protector.
 */

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

/** What the handlers need of a server. */
export interface KeyCustodyServer extends SqlKeyCustodyState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
}

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

function serverRef(s: KeyCustodyServer): ServerRef {
  return { subscriptionId: s.subscriptionId, resourceGroup: s.resourceGroup, server: s.name };
}

/** The key the protector uses, or undefined when it is service-managed. */
function protectorKey(s: KeyCustodyServer): SqlServerKeyState | undefined {
  const name = s.encryptionProtector?.keyName;
  return name === undefined ? undefined : s.keys?.find((k) => k.name === name);
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
    id: childId(sqlServerId(serverRef(s)), "encryptionProtector", ENCRYPTION_PROTECTOR_NAME),
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
  const base = sqlServerId(serverRef(s));
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
