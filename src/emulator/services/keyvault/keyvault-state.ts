import { createHash } from "node:crypto";
import {
  DEFAULT_LOCATION,
  DEFAULT_RETENTION_DAYS,
  DEFAULT_SUBSCRIPTION_ID,
  DEFAULT_TENANT_ID,
  type KeyRotationPolicySeed,
  type KeyVaultAccessPolicySeed,
  type KeyVaultNetworkAclsSeed,
  type KeyVaultKeySeed,
  type KeyVaultSeed,
  type ReadDeniedSeed,
} from "./seed-schema";

/* The Key Vault estate as the emulator keeps it: plain JSON, persisted with --state. */

export interface KeyVaultKeyState {
  name: string;
  /** The current version (32 hex digits). */
  version: string;
  kty: string;
  keySize?: number;
  curveName?: string;
  keyOps: string[];
  enabled: boolean;
  /** Seconds since the epoch, as the API carries them. */
  nbf?: number;
  exp?: number;
  created: number;
  exportable: boolean;
  rotationPolicy?: KeyRotationPolicySeed;
  tags?: Record<string, string>;
  readDenied?: ReadDeniedSeed;
}

export interface KeyVaultVaultState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  tenantId: string;
  sku: string;
  enableSoftDelete: boolean;
  softDeleteRetentionInDays: number;
  enablePurgeProtection: boolean;
  enableRbacAuthorization: boolean;
  publicNetworkAccess: string;
  /** Absent in state saved before access policies were seeded: none. */
  accessPolicies?: KeyVaultAccessPolicySeed[];
  networkAcls?: KeyVaultNetworkAclsSeed;
  /** RFC 3339: the vault's systemData.createdAt. */
  createdAt: string;
  tags?: Record<string, string>;
  readDenied?: ReadDeniedSeed;
  keys: KeyVaultKeyState[];
}

/** A Managed HSM pool: soft delete is always on (the spec: immutable), so only its retention is kept. */
export interface KeyVaultHsmState {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  tenantId: string;
  sku: string;
  softDeleteRetentionInDays: number;
  enablePurgeProtection: boolean;
  provisioningState: string;
  publicNetworkAccess: string;
  /** RFC 3339: the HSM's systemData.createdAt. */
  createdAt: string;
  tags?: Record<string, string>;
  readDenied?: ReadDeniedSeed;
  keys: KeyVaultKeyState[];
}

export interface KeyVaultState {
  vaults: KeyVaultVaultState[];
  /** Absent in a state file written before the emulator served Managed HSMs: none. */
  managedHsms?: KeyVaultHsmState[];
}

const RSA_OPS = ["encrypt", "decrypt", "sign", "verify", "wrapKey", "unwrapKey"];
const EC_OPS = ["sign", "verify"];

/** Seconds since the epoch of an RFC 3339 time. */
function seconds(time: string): number {
  return Math.floor(Date.parse(time) / 1000);
}

/** A version that stays the same for the same vault and key across runs (32 hex digits, like Azure's). */
export function derivedKeyVersion(vault: string, key: string): string {
  return createHash("sha1").update(`stackwarden/keyvault/${vault.toLowerCase()}/${key.toLowerCase()}`).digest("hex").slice(0, 32);
}

/**
 * Builds the state from a validated seed section, checking what the schema cannot: unique names,
 * key parameters that fit the key type, purge protection only with soft delete, HSM keys only in
 * premium vaults (or Managed HSMs), activation before expiry. `now` dates what the seed does not.
 */
export function keyVaultInitialState(seed: KeyVaultSeed | undefined, now: number = Date.now()): KeyVaultState {
  const sub = seed?.subscriptionId ?? DEFAULT_SUBSCRIPTION_ID;
  const tenant = seed?.tenantId ?? DEFAULT_TENANT_ID;
  const created = new Date(now).toISOString();
  const names = new Map<string, string>();
  const vaults = (seed?.vaults ?? []).map((v, vi): KeyVaultVaultState => {
    const at = `keyvault.vaults[${vi}]`;
    const seen = names.get(v.name.toLowerCase());
    if (seen) throw new Error(`${at}.name: vault "${v.name}" is declared twice (also at ${seen}); vault names are global`);
    names.set(v.name.toLowerCase(), at);
    const softDelete = v.enableSoftDelete ?? true;
    if (v.enablePurgeProtection && !softDelete) {
      throw new Error(
        `${at}.enablePurgeProtection: purge protection needs soft delete; set enableSoftDelete to true or drop enablePurgeProtection`,
      );
    }
    const sku = v.sku ?? "standard";
    const keys = keyStatesOf(v.keys, at, { name: v.name, kind: "vault", hsmBacked: sku === "premium" }, created);
    const vault: KeyVaultVaultState = {
      subscriptionId: v.subscriptionId ?? sub,
      resourceGroup: v.resourceGroup,
      name: v.name,
      location: v.location ?? DEFAULT_LOCATION,
      tenantId: v.tenantId ?? tenant,
      sku,
      enableSoftDelete: softDelete,
      softDeleteRetentionInDays: v.softDeleteRetentionInDays ?? DEFAULT_RETENTION_DAYS,
      enablePurgeProtection: v.enablePurgeProtection ?? false,
      enableRbacAuthorization: v.enableRbacAuthorization ?? false,
      publicNetworkAccess: v.publicNetworkAccess ?? "Enabled",
      createdAt: created,
      keys,
    };
    if (v.accessPolicies?.length) vault.accessPolicies = v.accessPolicies;
    if (v.networkAcls) vault.networkAcls = v.networkAcls;
    if (v.tags) vault.tags = v.tags;
    if (v.readDenied) vault.readDenied = v.readDenied;
    return vault;
  });
  return { vaults, managedHsms: managedHsmStatesOf(seed, sub, tenant, created) };
}

/**
 * The keys of a vault or HSM (`at` is its seed path), checked: unique names, key parameters that
 * fit the key type, -HSM keys only where `hsmBacked` (a premium vault, any HSM), activation before expiry.
 */
function keyStatesOf(
  seeds: KeyVaultKeySeed[] | undefined,
  at: string,
  container: { name: string; kind: "vault" | "managed HSM"; hsmBacked: boolean },
  created: string,
): KeyVaultKeyState[] {
  const keyNames = new Set<string>();
  return (seeds ?? []).map((k, ki) => {
    const kat = `${at}.keys[${ki}]`;
    if (keyNames.has(k.name.toLowerCase()))
      throw new Error(`${kat}.name: key "${k.name}" is declared twice in ${container.kind} "${container.name}"`);
    keyNames.add(k.name.toLowerCase());
    const kty = k.kty ?? "RSA";
    const ec = kty.startsWith("EC");
    if (ec && k.keySize !== undefined) throw new Error(`${kat}.keySize: an ${kty} key has no keySize; give its curveName`);
    if (!ec && k.curveName !== undefined) throw new Error(`${kat}.curveName: an ${kty} key has no curve; give its keySize`);
    if (kty.endsWith("-HSM") && !container.hsmBacked)
      throw new Error(`${kat}.kty: ${kty} keys need a premium vault; set ${at}.sku to premium`);
    const key: KeyVaultKeyState = {
      name: k.name,
      version: (k.version ?? derivedKeyVersion(container.name, k.name)).toLowerCase(),
      kty,
      keyOps: k.keyOps ?? (ec ? EC_OPS : RSA_OPS),
      enabled: k.enabled ?? true,
      created: seconds(k.creationDate ?? created),
      exportable: k.exportable ?? false,
    };
    if (ec) key.curveName = k.curveName ?? "P-256";
    else key.keySize = k.keySize ?? 2048;
    if (k.activationDate) key.nbf = seconds(k.activationDate);
    if (k.expirationDate) key.exp = seconds(k.expirationDate);
    if (key.nbf !== undefined && key.exp !== undefined && key.nbf >= key.exp) {
      throw new Error(`${kat}.expirationDate: the key would expire before it becomes active (activationDate ${k.activationDate})`);
    }
    if (k.rotationPolicy) key.rotationPolicy = k.rotationPolicy;
    if (k.tags) key.tags = k.tags;
    if (k.readDenied) key.readDenied = k.readDenied;
    return key;
  });
}

/** The Managed HSMs of a validated seed section: unique names (global, as DNS names), keys checked as a vault's. */
function managedHsmStatesOf(seed: KeyVaultSeed | undefined, sub: string, tenant: string, created: string): KeyVaultHsmState[] {
  const names = new Map<string, string>();
  return (seed?.managedHsms ?? []).map((h, hi): KeyVaultHsmState => {
    const at = `keyvault.managedHsms[${hi}]`;
    const seen = names.get(h.name.toLowerCase());
    if (seen) throw new Error(`${at}.name: managed HSM "${h.name}" is declared twice (also at ${seen}); HSM names are global`);
    names.set(h.name.toLowerCase(), at);
    const hsm: KeyVaultHsmState = {
      subscriptionId: h.subscriptionId ?? sub,
      resourceGroup: h.resourceGroup,
      name: h.name,
      location: h.location ?? DEFAULT_LOCATION,
      tenantId: h.tenantId ?? tenant,
      sku: h.sku ?? "Standard_B1",
      softDeleteRetentionInDays: h.softDeleteRetentionInDays ?? DEFAULT_RETENTION_DAYS,
      enablePurgeProtection: h.enablePurgeProtection ?? true,
      provisioningState: h.provisioningState ?? "Succeeded",
      publicNetworkAccess: h.publicNetworkAccess ?? "Enabled",
      createdAt: created,
      keys: keyStatesOf(h.keys, at, { name: h.name, kind: "managed HSM", hsmBacked: true }, created),
    };
    if (h.tags) hsm.tags = h.tags;
    if (h.readDenied) hsm.readDenied = h.readDenied;
    return hsm;
  });
}

/** Whether a principal (a token's `oid`) may not read a vault or key. */
export function readDeniedTo(denied: ReadDeniedSeed | undefined, objectId: string | undefined): boolean {
  if (denied === undefined || denied === false) return false;
  if (denied === true) return true;
  return objectId !== undefined && denied.some((d) => d.toLowerCase() === objectId.toLowerCase());
}
