/**
 * Key Vault key identifiers (`https://<vault>.vault.azure.net/keys/<key>[/<version>]`): what a SQL
 * server's encryption protector and server keys point at. A protector names its vault only by this
 * URI's host, so the vault's name (and from it, its ARM resource) is read from here.
 */

/** A key identifier taken apart. */
export interface KeyVaultKeyUri {
  /** The vault's (or managed HSM's) name: the first label of the host, lower-cased (vault names are case-insensitive). */
  vaultName: string;
  /** The host, lower-cased, without a default port (`kv-prod.vault.azure.net`). */
  host: string;
  /** Whether the host is a managed HSM (`*.managedhsm.azure.net`) rather than a vault. */
  managedHsm: boolean;
  /** The key's name as written. */
  keyName: string;
  /** The version (32 hex digits in Azure), or undefined for a versionless identifier. */
  version?: string;
}

/** The DNS suffixes of Managed HSM; any other host (a sovereign cloud's, a private endpoint's alias) is read as a vault. */
const MANAGED_HSM_SUFFIXES = [".managedhsm.azure.net", ".managedhsm.azure.cn", ".managedhsm.usgovcloudapi.net"];

/** The public cloud's Key Vault DNS suffix. */
export const KEYVAULT_DNS_SUFFIX = "vault.azure.net";

/**
 * Parses a key identifier tolerantly: any case in the host, an explicit `:443`, a trailing slash,
 * no version. Undefined when it is not an https URL of the form `…/keys/<name>[/<version>]`.
 */
export function parseKeyVaultKeyUri(uri: string): KeyVaultKeyUri | undefined {
  if (typeof uri !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(uri.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" || !url.hostname) return undefined;
  const parts = url.pathname.split("/").filter((p) => p.length > 0);
  if (parts.length < 2 || parts.length > 3 || parts[0].toLowerCase() !== "keys") return undefined;
  const host = url.hostname.toLowerCase();
  const out: KeyVaultKeyUri = {
    vaultName: host.split(".")[0],
    host,
    managedHsm: MANAGED_HSM_SUFFIXES.some((s) => host.endsWith(s)),
    keyName: decode(parts[1]),
  };
  if (parts[2] !== undefined) out.version = decode(parts[2]);
  return out;
}

/** `https://<vault>.vault.azure.net/keys/<key>[/<version>]`: the identifier of a key (or of one version of it). */
export function keyVaultKeyUri(vaultName: string, keyName: string, version?: string, dnsSuffix = KEYVAULT_DNS_SUFFIX): string {
  const base = `https://${vaultName.toLowerCase()}.${dnsSuffix}/keys/${encodeURIComponent(keyName)}`;
  return version === undefined ? base : `${base}/${encodeURIComponent(version)}`;
}

/** `https://<vault>.vault.azure.net/`: a vault's URI as `properties.vaultUri` gives it. */
export function keyVaultUri(vaultName: string, dnsSuffix = KEYVAULT_DNS_SUFFIX): string {
  return `https://${vaultName.toLowerCase()}.${dnsSuffix}/`;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
