import type { ArmRead } from "../../platform/arm/arm-read";
import { sqlServerId, type ServerRef } from "../../platform/arm/resource-id";
import type { SourceLocation } from "../../platform/yaml/source-location";
import { parseKeyVaultKeyUri } from "../../services/keyvault/key-uri";
import type { Key, Vault, VaultKeyRef, VaultRef } from "../../services/keyvault/types";
import type { ManagedHsm, ManagedHsmKey, ManagedHsmKeyRef, ManagedHsmRef } from "../../services/keyvault/managed-hsm-types";
import { managedHsmRefOf, subscriptionManagedHsmsPath } from "../../services/keyvault/managed-hsm-ids";
import { subscriptionVaultsPath, vaultRefOf } from "../../services/keyvault/vault-ids";
import type { EncryptionProtector } from "../../services/sql/key-custody-types";
import { databaseSubscription, type StackConfig } from "../stack/stack-config";
import type { FactClients } from "./fact-clients";
import type { GatherContext } from "./fact-kind";
import { readOrFailure, type ReadFailure } from "./read-failure";
import type { FactReads } from "./fact-reads";
import { managedHsmParamsOf, serverParamsOf, vaultParamsOf } from "./read-params";

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
    const key = `${databaseSubscription(stack, d)}/${d.resourceGroup}/${d.server}`.toLowerCase();
    const known = servers.get(key);
    if (known) {
      known.databases.push(d.database);
      continue;
    }
    const ref = { subscriptionId: databaseSubscription(stack, d), resourceGroup: d.resourceGroup, server: d.server };
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

/** Turns a refused or missing read into its outcome (the port tells which failures those are); any other failure is thrown. */
export async function readOutcomeOf<T>(reads: Pick<FactReads, "failureOf">, read: () => Promise<ArmRead<T>>): Promise<ReadOutcome<T>> {
  const r = await readOrFailure(reads, read);
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
  const reads = ctx.clients.reads;
  return ctx.once(key, () => readOutcomeOf(reads, () => reads.read("EncryptionProtectors_Get", serverParamsOf(server), ctx.signal)));
}

/** The vaults of the subscription the identity may read, listed once per gathering (to find a vault's resource group by its name). */
export function listVaultsOnce(ctx: GatherContext, subscriptionId: string): Promise<Vault[]> {
  return ctx.once(
    `vaults:${subscriptionId.toLowerCase()}`,
    async () => (await ctx.clients.reads.read("Vaults_ListBySubscription", { subscriptionId }, ctx.signal)).value,
  );
}

/**
 * The subscriptions a protector's vault is looked for in, in order, each once: the stack's, then
 * `stackwarden:keyVaultSubscriptions` (Azure allows a server's key in a vault of any subscription
 * of the tenant; a subscription is listed only when the vault was not found in the ones before it).
 */
export function vaultSubscriptions(stack: Pick<StackConfig, "subscriptionId" | "keyVaultSubscriptions">): string[] {
  const out = new Map<string, string>();
  for (const s of [stack.subscriptionId, ...(stack.keyVaultSubscriptions ?? [])])
    if (!out.has(s.toLowerCase())) out.set(s.toLowerCase(), s);
  return [...out.values()];
}

/** Where a vault named in a key URI is in ARM: the first of `subscriptions` whose listing has it; undefined when none lists it. */
export async function locateVaultOnce(
  ctx: GatherContext,
  subscriptions: readonly string[],
  vaultName: string,
): Promise<VaultRef | undefined> {
  for (const subscriptionId of subscriptions) {
    const found = vaultNamed(await listVaultsOnce(ctx, subscriptionId), vaultName);
    if (found) return found;
  }
  return undefined;
}

/** A vault named by a protector's key URI, read once per gathering: found in the subscriptions' listings, then read (Vaults_Get) where it is. */
export function readVaultOnce(ctx: GatherContext, subscriptions: readonly string[], vaultName: string): Promise<ReadOutcome<Vault>> {
  return ctx.once(`vault:${subscriptions.join(",")}/${vaultName}`.toLowerCase(), async () => {
    const ref = await locateVaultOnce(ctx, subscriptions, vaultName);
    if (!ref) return { failure: vaultNotListed(subscriptions, vaultName) };
    return readOutcomeOf(ctx.clients.reads, () => ctx.clients.reads.read("Vaults_Get", vaultParamsOf(ref), ctx.signal));
  });
}

/**
 * A protector's key, read once per gathering (Keys_GetVersion, or Keys_Get for a versionless URI)
 * in the vault the listings place it in; in a Managed HSM, ManagedHsmKeys_GetVersion (or _Get).
 */
export function readKeyOnce(ctx: GatherContext, subscriptions: readonly string[], key: ProtectorKeyRef): Promise<ReadOutcome<Key>> {
  return ctx.once(`key:${subscriptions.join(",").toLowerCase()}/${key.identity}`, async () => {
    if (key.managedHsm) {
      const hsm = await locateManagedHsmOnce(ctx, subscriptions, key.vaultName);
      if (!hsm) return { failure: managedHsmNotListed(subscriptions, key.vaultName) };
      return readOutcomeOf(ctx.clients.reads, () =>
        readManagedHsmKey(ctx.clients.reads, { ...hsm, key: key.keyName }, key.version, ctx.signal),
      );
    }
    const ref = await locateVaultOnce(ctx, subscriptions, key.vaultName);
    if (!ref) return { failure: vaultNotListed(subscriptions, key.vaultName) };
    return readOutcomeOf(ctx.clients.reads, () => readVaultKey(ctx.clients.reads, { ...ref, key: key.keyName }, key.version, ctx.signal));
  });
}

/** Keys_GetVersion (Keys_Get for a versionless URI): a vault's key as a protector names it, with the receipt of the read. */
export function readVaultKey(reads: FactReads, ref: VaultKeyRef, version: string | undefined, signal?: AbortSignal): Promise<ArmRead<Key>> {
  const key = { ...vaultParamsOf(ref), keyName: ref.key };
  return version ? reads.read("Keys_GetVersion", { ...key, keyVersion: version }, signal) : reads.read("Keys_Get", key, signal);
}

/** ManagedHsmKeys_GetVersion (ManagedHsmKeys_Get for a versionless URI): an HSM's key as a protector names it, with the receipt. */
export function readManagedHsmKey(
  reads: FactReads,
  ref: ManagedHsmKeyRef,
  version: string | undefined,
  signal?: AbortSignal,
): Promise<ArmRead<ManagedHsmKey>> {
  const key = { ...managedHsmParamsOf(ref), keyName: ref.key };
  return version
    ? reads.read("ManagedHsmKeys_GetVersion", { ...key, keyVersion: version }, signal)
    : reads.read("ManagedHsmKeys_Get", key, signal);
}

/** The vault of a listing that a key URI's vault name names (by its name, or its `vaultUri`'s host). */
function vaultNamed(vaults: readonly Vault[], vaultName: string): VaultRef | undefined {
  const name = vaultName.toLowerCase();
  const found = vaults.find((v) => (v.name ?? "").toLowerCase() === name || vaultHostName(v.properties?.vaultUri) === name);
  return found?.id ? vaultRefOf(found.id) : undefined;
}

/** The Managed HSMs of the subscription the identity may read, listed once per gathering (to find an HSM's resource group by its name). */
export function listManagedHsmsOnce(ctx: GatherContext, subscriptionId: string): Promise<ManagedHsm[]> {
  return ctx.once(
    `managedhsms:${subscriptionId.toLowerCase()}`,
    async () => (await ctx.clients.reads.read("ManagedHsms_ListBySubscription", { subscriptionId }, ctx.signal)).value,
  );
}

/** Where a Managed HSM named in a key URI is in ARM: the first of `subscriptions` whose listing has it (as for vaults); undefined when none lists it. */
export async function locateManagedHsmOnce(
  ctx: GatherContext,
  subscriptions: readonly string[],
  name: string,
): Promise<ManagedHsmRef | undefined> {
  for (const subscriptionId of subscriptions) {
    const found = managedHsmIn(await listManagedHsmsOnce(ctx, subscriptionId), name);
    if (found) return found;
  }
  return undefined;
}

/** A Managed HSM named by a protector's key URI, read once per gathering: found in the subscriptions' listings, then read (ManagedHsms_Get) where it is. */
export function readManagedHsmOnce(ctx: GatherContext, subscriptions: readonly string[], name: string): Promise<ReadOutcome<ManagedHsm>> {
  return ctx.once(`managedhsm:${subscriptions.join(",")}/${name}`.toLowerCase(), async () => {
    const ref = await locateManagedHsmOnce(ctx, subscriptions, name);
    if (!ref) return { failure: managedHsmNotListed(subscriptions, name) };
    return readOutcomeOf(ctx.clients.reads, () => ctx.clients.reads.read("ManagedHsms_Get", managedHsmParamsOf(ref), ctx.signal));
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
 * Where a vault named in a key URI is, for a data source: found by name in the first of
 * `subscriptions` whose listing has it (each listing shared by the client set for a short while: one
 * listing for every vault and key the plugin reads at once); undefined when none lists it.
 */
export async function locateVaultShared(
  clients: FactClients,
  subscriptions: readonly string[],
  vault: string,
): Promise<VaultRef | undefined> {
  for (const subscriptionId of subscriptions) {
    const vaults = await clients.remember<Vault[]>(
      `keyvault-listing:${subscriptionId.toLowerCase()}`,
      SHARE_LISTING_MS,
      async () => (await clients.reads.read("Vaults_ListBySubscription", { subscriptionId })).value,
    );
    const found = vaultNamed(vaults, vault);
    if (found) return found;
  }
  return undefined;
}

/** Where a Managed HSM named in a key URI is, for a data source: the first of `subscriptions` whose listing (shared as the vaults' is) has it. */
export async function locateManagedHsmShared(
  clients: FactClients,
  subscriptions: readonly string[],
  name: string,
): Promise<ManagedHsmRef | undefined> {
  for (const subscriptionId of subscriptions) {
    const hsms = await clients.remember<ManagedHsm[]>(
      `managedhsm-listing:${subscriptionId.toLowerCase()}`,
      SHARE_LISTING_MS,
      async () => (await clients.reads.read("ManagedHsms_ListBySubscription", { subscriptionId })).value,
    );
    const found = managedHsmIn(hsms, name);
    if (found) return found;
  }
  return undefined;
}

/** `subscription 'a'` or `subscriptions 'a', 'b'`: where a container was looked for. */
function searchedWhere(subscriptions: string | readonly string[]): string {
  const subs = typeof subscriptions === "string" ? [subscriptions] : subscriptions;
  return `${subs.length === 1 ? "subscription" : "subscriptions"} ${subs.map((s) => `'${s}'`).join(", ")}`;
}

/** The failure of a Managed HSM Resource Manager does not list in any of the subscriptions searched, as for a vault. */
export function managedHsmNotListed(subscriptions: string | readonly string[], name: string): ReadFailure {
  return {
    code: MANAGED_HSM_NOT_LISTED,
    message: `Resource Manager lists no managed HSM named '${name}' in ${searchedWhere(subscriptions)} (searched) that this identity may read: no role grants it Microsoft.KeyVault/managedHSMs/read on the HSM (Resource Manager leaves such HSMs out of lists), or the HSM is in a subscription not searched (add it to stackwarden:keyVaultSubscriptions), or it was deleted`,
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

/** A data source's `searchSubscriptions` input: the further subscriptions (comma-separated) searched after its own. */
export const SEARCH_SUBSCRIPTIONS = "searchSubscriptions";

/** The subscriptions a vault or key data source searches: its `subscriptionId`, then its `searchSubscriptions`. */
export function searchedSubscriptions(inputs: Record<string, string>): string[] {
  const more = (inputs[SEARCH_SUBSCRIPTIONS] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return vaultSubscriptions({ subscriptionId: inputs.subscriptionId, keyVaultSubscriptions: more });
}

/** The `searchSubscriptions` input a stack gives its vault and key data sources (none when it names no further subscription). */
export function searchInputOf(stack: Pick<StackConfig, "keyVaultSubscriptions">): Record<string, string> {
  return stack.keyVaultSubscriptions?.length ? { [SEARCH_SUBSCRIPTIONS]: stack.keyVaultSubscriptions.join(",") } : {};
}

/**
 * The failure of a vault Resource Manager does not list in any of the subscriptions searched (it
 * leaves out what the identity may not read): the message names them, so the stack can add the one
 * the vault is in to `stackwarden:keyVaultSubscriptions`.
 */
export function vaultNotListed(subscriptions: string | readonly string[], vaultName: string): ReadFailure {
  const where = searchedWhere(subscriptions);
  return {
    code: VAULT_NOT_LISTED,
    message: `Resource Manager lists no vault named '${vaultName}' in ${where} (searched) that this identity may read: no role grants it Microsoft.KeyVault/vaults/read on the vault (Resource Manager leaves such vaults out of lists), or the vault is in a subscription not searched (add it to stackwarden:keyVaultSubscriptions), or it was deleted`,
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
