import type { ArmRead } from "../../platform/arm/arm-read";
import { sqlServerId, type ServerRef } from "../../platform/arm/resource-id";
import type { SourceLocation } from "../../platform/yaml/source-location";
import { parseKeyVaultKeyUri } from "../../services/keyvault/key-uri";
import type { Key, Vault, VaultRef } from "../../services/keyvault/types";
import type { ManagedHsm, ManagedHsmRef } from "../../services/keyvault/managed-hsm-types";
import { managedHsmRefOf, subscriptionManagedHsmsPath } from "../../services/keyvault/managed-hsm-ids";
import { subscriptionVaultsPath, vaultRefOf } from "../../services/keyvault/vault-ids";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import type { StackConfig } from "../stack/stack-config";
import type { FactClients } from "./fact-clients";
import type { GatherContext } from "./fact-kind";
import { readOrFailure, type ReadFailure } from "./read-failure";

/**
 * The reads key custody shares between its three fact kinds (protectors, their vaults, their keys)
 * within one gathering, through `ctx.once`: one protector read per server, one listing of the
 * subscription's vaults (a protector names its vault only by its URI's host, so the listing is how
 * its resource group is found), one read per distinct vault and one per distinct key version.
 * A key in a Managed HSM (`https://<name>.managedhsm.azure.net/keys/…`) takes the same walk through
 * the HSM's management plane: one listing of the subscription's HSMs (only when a protector names
 * one), one read per distinct HSM (ManagedHsms_Get), one per distinct key version (ManagedHsmKeys_GetVersion).
 */

/** A read that answered, or one Resource Manager refused or could not find (403, 404). */
export type ReadOutcome<T> = { read: ArmRead<T>; failure?: undefined } | { read?: undefined; failure: ReadFailure };

/** The code of a vault that Resource Manager does not list: it cannot be named in a request, so it has no status. */
export const VAULT_NOT_LISTED = "VaultNotListed";
/** The code of a Managed HSM that Resource Manager does not list, as for a vault. */
export const MANAGED_HSM_NOT_LISTED = "ManagedHsmNotListed";

/** A SQL server of the stack, with its databases in the stack and the line of the first. */
export interface StackServer extends ServerRef {
  /** The server's ARM id. */
  id: string;
  /** `rg/server`. */
  label: string;
  /** The stack's databases on it, in stack order. */
  databases: string[];
  /** The stack-file line of its first database: where its findings point. */
  source?: SourceLocation;
}

/** The distinct servers of the stack's databases, in the order they first appear. */
export function stackServers(stack: Pick<StackConfig, "subscriptionId" | "databases">): StackServer[] {
  const servers = new Map<string, StackServer>();
  for (const d of stack.databases) {
    const key = `${d.resourceGroup}/${d.server}`.toLowerCase();
    const known = servers.get(key);
    if (known) {
      known.databases.push(d.database);
      continue;
    }
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: d.resourceGroup, server: d.server };
    servers.set(key, { ...ref, id: sqlServerId(ref), label: `${d.resourceGroup}/${d.server}`, databases: [d.database], source: d.source });
  }
  return [...servers.values()];
}

/** The key a customer-managed protector names, taken apart from its URI. */
export interface ProtectorKeyRef {
  /** The URI as the protector gives it. */
  uri: string;
  /** The vault's name (the first label of the URI's host), lower-cased. */
  vaultName: string;
  keyName: string;
  /** Absent for a versionless URI (the server follows the key's current version). */
  version?: string;
  /** The key is in a Managed HSM (its name is `vaultName`), read through `managedHSMs`, not `vaults`. */
  managedHsm: boolean;
  /** What facts about this key are joined on: `vault/key[/version]` (`managedhsm:hsm/key[/version]`), lower-cased. */
  identity: string;
}

/** `vault/key[/version]`, lower-cased (`managedhsm:` before an HSM's): how a protector's key and the key's facts are matched. */
export function keyIdentity(vaultName: string, keyName: string, version?: string, managedHsm = false): string {
  return `${managedHsm ? "managedhsm:" : ""}${vaultName}/${keyName}${version ? `/${version}` : ""}`.toLowerCase();
}

/** The key a protector names (its `uri`, else its `keyVersion` beside a versionless one), when it names one that parses. */
export function protectorKeyOf(p: EncryptionProtector | undefined): ProtectorKeyRef | undefined {
  const uri = p?.properties?.uri;
  if (typeof uri !== "string" || !uri) return undefined;
  const parsed = parseKeyVaultKeyUri(uri);
  if (!parsed) return undefined;
  const version = parsed.version ?? (typeof p?.properties?.keyVersion === "string" ? p.properties.keyVersion : undefined);
  return {
    uri,
    vaultName: parsed.vaultName,
    keyName: parsed.keyName,
    ...(version ? { version } : {}),
    managedHsm: parsed.managedHsm,
    identity: keyIdentity(parsed.vaultName, parsed.keyName, version, parsed.managedHsm),
  };
}

/** Turns a refused or missing read into its outcome; any other failure is thrown. */
async function outcome<T>(read: () => Promise<ArmRead<T>>): Promise<ReadOutcome<T>> {
  const r = await readOrFailure(read);
  return r.readError ? { failure: r.readError } : { read: r.value };
}

/**
 * The distinct customer-managed keys (in a vault or a Managed HSM) that protectors name, in the
 * order first named, each with the indexes of the protectors that name it: the walk from
 * protectors to their vaults (or HSMs) and keys that gathering and the Pulumi program share.
 */
export function customerKeysOf(protectors: readonly (EncryptionProtector | undefined)[]): { key: ProtectorKeyRef; named: number[] }[] {
  const keys = new Map<string, { key: ProtectorKeyRef; named: number[] }>();
  protectors.forEach((p, i) => {
    const key = protectorKeyOf(p);
    if (!key) return;
    const known = keys.get(key.identity);
    if (known) known.named.push(i);
    else keys.set(key.identity, { key, named: [i] });
  });
  return [...keys.values()];
}

/** A server's TDE protector, read once per gathering (EncryptionProtectors_Get of `current`). */
export function readProtectorOnce(ctx: GatherContext, server: ServerRef): Promise<ReadOutcome<EncryptionProtector>> {
  const key = `protector:${[server.subscriptionId, server.resourceGroup, server.server].join("/").toLowerCase()}`;
  return ctx.once(key, () => outcome(() => ctx.clients.sql.readEncryptionProtector(server, ctx.signal)));
}

/** The keys the stack's customer-managed protectors name, each with the servers that use it (protectors read once, shared). */
export async function protectorKeysOfStack(ctx: GatherContext): Promise<{ key: ProtectorKeyRef; servers: StackServer[] }[]> {
  const servers = stackServers(ctx.stack);
  const protectors = await Promise.all(servers.map((s) => readProtectorOnce(ctx, s)));
  return customerKeysOf(protectors.map((p) => p.read?.value)).map(({ key, named }) => ({ key, servers: named.map((i) => servers[i]) }));
}

/** The vaults of the subscription the identity may read, listed once per gathering (to find a vault's resource group by its name). */
export function listVaultsOnce(ctx: GatherContext, subscriptionId: string): Promise<Vault[]> {
  return ctx.once(`vaults:${subscriptionId.toLowerCase()}`, () =>
    ctx.clients.keyVault.listVaultsBySubscription(subscriptionId, ctx.signal),
  );
}

/** Where a vault named in a key URI is in ARM, from the subscription's listing; undefined when it is not listed. */
export async function locateVaultOnce(ctx: GatherContext, subscriptionId: string, vaultName: string): Promise<VaultRef | undefined> {
  const vaults = await listVaultsOnce(ctx, subscriptionId);
  const name = vaultName.toLowerCase();
  const found = vaults.find((v) => (v.name ?? "").toLowerCase() === name || vaultHostName(v.properties?.vaultUri) === name);
  return found?.id ? vaultRefOf(found.id) : undefined;
}

/** A vault named by a protector's key URI, read once per gathering: found in the subscription's listing, then read (Vaults_Get). */
export function readVaultOnce(ctx: GatherContext, subscriptionId: string, vaultName: string): Promise<ReadOutcome<Vault>> {
  return ctx.once(`vault:${subscriptionId}/${vaultName}`.toLowerCase(), async () => {
    const ref = await locateVaultOnce(ctx, subscriptionId, vaultName);
    if (!ref) return { failure: vaultNotListed(subscriptionId, vaultName) };
    return outcome(() => ctx.clients.keyVault.readVault(ref, ctx.signal));
  });
}

/**
 * A protector's key, read once per gathering (Keys_GetVersion, or Keys_Get for a versionless URI)
 * in the vault the listing places it in; in a Managed HSM, ManagedHsmKeys_GetVersion (or _Get).
 */
export function readKeyOnce(ctx: GatherContext, subscriptionId: string, key: ProtectorKeyRef): Promise<ReadOutcome<Key>> {
  return ctx.once(`key:${subscriptionId.toLowerCase()}/${key.identity}`, async () => {
    if (key.managedHsm) {
      const hsm = await locateManagedHsmOnce(ctx, subscriptionId, key.vaultName);
      if (!hsm) return { failure: managedHsmNotListed(subscriptionId, key.vaultName) };
      return outcome(() => ctx.clients.keyVault.readManagedHsmKey({ ...hsm, key: key.keyName }, key.version, ctx.signal));
    }
    const ref = await locateVaultOnce(ctx, subscriptionId, key.vaultName);
    if (!ref) return { failure: vaultNotListed(subscriptionId, key.vaultName) };
    return outcome(() => ctx.clients.keyVault.readKey({ ...ref, key: key.keyName }, key.version, ctx.signal));
  });
}

/** The Managed HSMs of the subscription the identity may read, listed once per gathering (to find an HSM's resource group by its name). */
export function listManagedHsmsOnce(ctx: GatherContext, subscriptionId: string): Promise<ManagedHsm[]> {
  return ctx.once(`managedhsms:${subscriptionId.toLowerCase()}`, () =>
    ctx.clients.keyVault.listManagedHsmsBySubscription(subscriptionId, ctx.signal),
  );
}

/** Where a Managed HSM named in a key URI is in ARM, from the subscription's listing; undefined when it is not listed. */
export async function locateManagedHsmOnce(ctx: GatherContext, subscriptionId: string, name: string): Promise<ManagedHsmRef | undefined> {
  return managedHsmIn(await listManagedHsmsOnce(ctx, subscriptionId), name);
}

/** A Managed HSM named by a protector's key URI, read once per gathering: found in the subscription's listing, then read (ManagedHsms_Get). */
export function readManagedHsmOnce(ctx: GatherContext, subscriptionId: string, name: string): Promise<ReadOutcome<ManagedHsm>> {
  return ctx.once(`managedhsm:${subscriptionId}/${name}`.toLowerCase(), async () => {
    const ref = await locateManagedHsmOnce(ctx, subscriptionId, name);
    if (!ref) return { failure: managedHsmNotListed(subscriptionId, name) };
    return outcome(() => ctx.clients.keyVault.readManagedHsm(ref, ctx.signal));
  });
}

/** The HSM of a listing named `name` (by its name, or its `hsmUri`'s first label), as an ARM reference. */
function managedHsmIn(hsms: readonly ManagedHsm[], name: string): ManagedHsmRef | undefined {
  const wanted = name.toLowerCase();
  const found = hsms.find((h) => (h.name ?? "").toLowerCase() === wanted || vaultHostName(h.properties?.hsmUri) === wanted);
  return found?.id ? managedHsmRefOf(found.id) : undefined;
}

/** How long a provider plugin shares one listing of a subscription's vaults between vault and key data sources, in ms. */
const SHARE_LISTING_MS = 30_000;

/**
 * Where a vault named in a key URI is, for a data source: found by name in the subscription's
 * listing, which the client set shares for a short while (one listing for every vault and key
 * the plugin reads at once); undefined when it is not listed.
 */
export async function locateVaultShared(clients: FactClients, subscriptionId: string, vault: string): Promise<VaultRef | undefined> {
  const vaults = await clients.remember<Vault[]>(`keyvault-listing:${subscriptionId.toLowerCase()}`, SHARE_LISTING_MS, () =>
    clients.keyVault.listVaultsBySubscription(subscriptionId),
  );
  const found = vaults.find((v) => (v.name ?? "").toLowerCase() === vault.toLowerCase());
  return found?.id ? vaultRefOf(found.id) : undefined;
}

/** Where a Managed HSM named in a key URI is, for a data source: found by name in the subscription's listing, shared as the vaults' is. */
export async function locateManagedHsmShared(
  clients: FactClients,
  subscriptionId: string,
  name: string,
): Promise<ManagedHsmRef | undefined> {
  const hsms = await clients.remember<ManagedHsm[]>(`managedhsm-listing:${subscriptionId.toLowerCase()}`, SHARE_LISTING_MS, () =>
    clients.keyVault.listManagedHsmsBySubscription(subscriptionId),
  );
  return managedHsmIn(hsms, name);
}

/** The failure of a Managed HSM Resource Manager does not list (it leaves out what the identity may not read). */
export function managedHsmNotListed(subscriptionId: string, name: string): ReadFailure {
  return {
    code: MANAGED_HSM_NOT_LISTED,
    message: `Resource Manager lists no managed HSM named '${name}' in subscription '${subscriptionId}' that this identity may read: no role grants it Microsoft.KeyVault/managedHSMs/read on the HSM (Resource Manager leaves such HSMs out of lists), or the HSM is in another subscription, or it was deleted`,
    readAt: new Date().toISOString(),
  };
}

/** The id of a Managed HSM known only by name (not listed): the subscription's collection of HSMs plus its name. */
export function unlistedManagedHsmId(subscriptionId: string, name: string): string {
  return `${subscriptionManagedHsmsPath(subscriptionId)}/${name}`;
}

/** The subscription and name of an unlisted HSM's id (`unlistedManagedHsmId`), or undefined. */
export function unlistedManagedHsmRef(id: string): { subscriptionId: string; hsm: string } | undefined {
  const m = /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/managedHSMs\/([^/]+)$/i.exec(id);
  return m ? { subscriptionId: m[1], hsm: m[2] } : undefined;
}

/** The failure of a vault Resource Manager does not list (it leaves out what the identity may not read). */
export function vaultNotListed(subscriptionId: string, vaultName: string): ReadFailure {
  return {
    code: VAULT_NOT_LISTED,
    message: `Resource Manager lists no vault named '${vaultName}' in subscription '${subscriptionId}' that this identity may read: no role grants it Microsoft.KeyVault/vaults/read on the vault (Resource Manager leaves such vaults out of lists), or the vault is in another subscription, or it was deleted`,
    readAt: new Date().toISOString(),
  };
}

/** The id of a vault known only by name (not listed): the subscription's collection of vaults plus its name. */
export function unlistedVaultId(subscriptionId: string, vault: string): string {
  return `${subscriptionVaultsPath(subscriptionId)}/${vault}`;
}

/** The subscription and name of an unlisted vault's id (`unlistedVaultId`), or undefined. */
export function unlistedVaultRef(id: string): { subscriptionId: string; vault: string } | undefined {
  const m = /^\/subscriptions\/([^/]+)\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)$/i.exec(id);
  return m ? { subscriptionId: m[1], vault: m[2] } : undefined;
}

/** The vault (or HSM) name a `vaultUri` (`https://<name>.vault.azure.net/`) or `hsmUri` starts with, lower-cased. */
function vaultHostName(uri: unknown): string | undefined {
  if (typeof uri !== "string") return undefined;
  try {
    return new URL(uri).hostname.split(".")[0].toLowerCase();
  } catch {
    return undefined;
  }
}
