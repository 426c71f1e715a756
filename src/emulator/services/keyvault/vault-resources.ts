import { keyVaultKeyUri, keyVaultUri } from "../../../services/keyvault/key-uri";
import {
  KEYVAULT_RESOURCE_TYPES,
  type Key,
  type KeyProperties,
  type RotationPolicy,
  type Vault,
  type VaultProperties,
} from "../../../services/keyvault/types";
import { keyVaultId, vaultKeyId } from "../../../services/keyvault/vault-ids";
import type { KeyVaultKeyState, KeyVaultVaultState } from "./keyvault-state";

/**
 * Vaults and keys as Resource Manager answers them, with the fields of every published version (the
 * front door keeps the request's version's own: version-shape.ts). Settings a vault does not have
 * are absent rather than false, as Azure leaves them (`enableSoftDelete` of an old vault,
 * `enablePurgeProtection` never turned on).
 */

/** Who `systemData` says created the estate's vaults and keys: an (invented) deployment application's id. */
const CREATED_BY = "5d0c4b3a-2f1e-4d6c-8b7a-9e0f1a2b3c4d";

function vaultRef(v: KeyVaultVaultState) {
  return { subscriptionId: v.subscriptionId, resourceGroup: v.resourceGroup, vault: v.name };
}

/** Vaults_Get (and each item of the vault lists). */
export function vaultResource(v: KeyVaultVaultState): Vault {
  const p: VaultProperties = {
    sku: { family: "A", name: v.sku },
    tenantId: v.tenantId,
    accessPolicies: (v.accessPolicies ?? []).map((a) => ({
      tenantId: a.tenantId ?? v.tenantId,
      objectId: a.objectId,
      ...(a.applicationId ? { applicationId: a.applicationId } : {}),
      permissions: { keys: a.permissions.keys ?? [], secrets: a.permissions.secrets ?? [], certificates: a.permissions.certificates ?? [] },
    })),
    enabledForDeployment: false,
    enabledForDiskEncryption: false,
    enabledForTemplateDeployment: false,
    vaultUri: keyVaultUri(v.name),
  };
  if (v.enableSoftDelete) {
    p.enableSoftDelete = true;
    p.softDeleteRetentionInDays = v.softDeleteRetentionInDays;
  }
  if (v.enablePurgeProtection) p.enablePurgeProtection = true;
  p.enableRbacAuthorization = v.enableRbacAuthorization;
  p.provisioningState = "Succeeded";
  p.publicNetworkAccess = v.publicNetworkAccess;
  if (v.networkAcls) {
    p.networkAcls = {
      bypass: v.networkAcls.bypass ?? "AzureServices",
      defaultAction: v.networkAcls.defaultAction,
      ipRules: (v.networkAcls.ipRules ?? []).map((value) => ({ value })),
      virtualNetworkRules: [],
    };
  }
  const out: Vault = {
    id: keyVaultId(vaultRef(v)),
    name: v.name,
    type: KEYVAULT_RESOURCE_TYPES.vault,
    location: v.location,
    tags: v.tags ?? {},
    systemData: {
      createdBy: CREATED_BY,
      createdByType: "Application",
      createdAt: v.createdAt,
      lastModifiedBy: CREATED_BY,
      lastModifiedByType: "Application",
      lastModifiedAt: v.createdAt,
    },
  };
  out.properties = p;
  return out;
}

/**
 * The recovery level a vault gives its keys: purgeable without soft delete, recoverable but purgeable
 * with it, recoverable only (no purge before the retention ends) with purge protection as well.
 */
function recoveryLevel(v: KeyVaultVaultState): string {
  if (!v.enableSoftDelete) return "Purgeable";
  return v.enablePurgeProtection ? "Recoverable" : "Recoverable+Purgeable";
}

/** A key's rotation policy as Resource Manager answers it (a Managed HSM key's has the same shape: ManagedHsmRotationPolicy). */
export function rotationPolicy(k: KeyVaultKeyState): RotationPolicy | undefined {
  const seed = k.rotationPolicy;
  if (!seed) return undefined;
  const policy: RotationPolicy = { attributes: { created: k.created, updated: k.created } };
  if (seed.expiryTime) policy.attributes!.expiryTime = seed.expiryTime;
  policy.lifetimeActions = (seed.lifetimeActions ?? []).map((a) => ({
    trigger: {
      ...(a.timeAfterCreate ? { timeAfterCreate: a.timeAfterCreate } : {}),
      ...(a.timeBeforeExpiry ? { timeBeforeExpiry: a.timeBeforeExpiry } : {}),
    },
    action: { type: a.action },
  }));
  return policy;
}

/**
 * Keys_Get (`asVersion` false: the key as its current version) or Keys_GetVersion (`asVersion`
 * true: the version's own id and name). `keyUri` carries the `:443` that the published example shows.
 */
export function keyResource(v: KeyVaultVaultState, k: KeyVaultKeyState, asVersion = false): Key {
  const uriBase = keyVaultKeyUri(v.name, k.name).replace(".vault.azure.net/", ".vault.azure.net:443/");
  const p: KeyProperties = {
    attributes: {
      enabled: k.enabled,
      ...(k.nbf !== undefined ? { nbf: k.nbf } : {}),
      ...(k.exp !== undefined ? { exp: k.exp } : {}),
      created: k.created,
      updated: k.created,
      recoveryLevel: recoveryLevel(v),
      exportable: k.exportable,
    },
    kty: k.kty,
    keyOps: k.keyOps,
    ...(k.keySize !== undefined ? { keySize: k.keySize } : { curveName: k.curveName }),
    keyUri: uriBase,
    keyUriWithVersion: `${uriBase}/${k.version}`,
  };
  const policy = rotationPolicy(k);
  if (policy) p.rotationPolicy = policy;
  const ref = { ...vaultRef(v), key: k.name };
  const out: Key = {
    id: asVersion ? vaultKeyId(ref, undefined, k.version) : vaultKeyId(ref),
    name: asVersion ? k.version : k.name,
    type: asVersion ? KEYVAULT_RESOURCE_TYPES.keyVersion : KEYVAULT_RESOURCE_TYPES.key,
    location: v.location,
  };
  if (k.tags) out.tags = k.tags;
  const at = new Date(k.created * 1000).toISOString();
  out.systemData = {
    createdBy: CREATED_BY,
    createdByType: "Application",
    createdAt: at,
    lastModifiedBy: CREATED_BY,
    lastModifiedByType: "Application",
    lastModifiedAt: at,
  };
  out.properties = p;
  return out;
}
