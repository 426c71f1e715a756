import { MANAGED_HSM_RESOURCE_TYPES, type ManagedHsm, type ManagedHsmKey } from "../../../services/keyvault/managed-hsm-types";
import { managedHsmId, managedHsmKeyId } from "../../../services/keyvault/managed-hsm-ids";
import type { KeyProperties } from "../../../services/keyvault/types";
import type { KeyVaultHsmState, KeyVaultKeyState } from "./keyvault-state";
import { rotationPolicy } from "./vault-resources";

/**
 * Managed HSMs and their keys as Resource Manager answers them, in managedHsm.json's and
 * keysManagedHsm.json's shape (2023-07-01), after their published examples (ManagedHsm_Get.json,
 * managedHsmGetKey.json, managedHsmGetKeyVersion.json): an HSM reports `enableSoftDelete` and
 * `enablePurgeProtection` as true or false; a key carries no `location` or `systemData`
 * (`ProxyResourceWithoutSystemData`), its URIs carry `:443`, and its rotation policy (when seeded) has
 * a vault key's shape.
 */

/** Who `systemData` says created the estate's HSMs: an (invented) deployment application's id, as for vaults. */
const CREATED_BY = "5d0c4b3a-2f1e-4d6c-8b7a-9e0f1a2b3c4d";

function refOf(h: KeyVaultHsmState) {
  return { subscriptionId: h.subscriptionId, resourceGroup: h.resourceGroup, hsm: h.name };
}

/** `https://<name>.managedhsm.azure.net/`: the HSM's data-plane URI, whose host a key URI names. */
export function managedHsmUri(name: string): string {
  return `https://${name.toLowerCase()}.managedhsm.azure.net/`;
}

/** ManagedHsms_Get (and each item of the HSM lists). */
export function managedHsmResource(h: KeyVaultHsmState): ManagedHsm {
  const functional = h.provisioningState === "Succeeded" || h.provisioningState === "Activated";
  return {
    id: managedHsmId(refOf(h)),
    name: h.name,
    type: MANAGED_HSM_RESOURCE_TYPES.managedHsm,
    location: h.location,
    sku: { family: "B", name: h.sku },
    tags: h.tags ?? {},
    systemData: {
      createdBy: CREATED_BY,
      createdByType: "Application",
      createdAt: h.createdAt,
      lastModifiedBy: CREATED_BY,
      lastModifiedByType: "Application",
      lastModifiedAt: h.createdAt,
    },
    properties: {
      tenantId: h.tenantId,
      initialAdminObjectIds: [CREATED_BY],
      enableSoftDelete: true,
      softDeleteRetentionInDays: h.softDeleteRetentionInDays,
      enablePurgeProtection: h.enablePurgeProtection,
      hsmUri: managedHsmUri(h.name),
      provisioningState: h.provisioningState,
      statusMessage: functional ? "ManagedHsm is functional." : `ManagedHsm is ${h.provisioningState}.`,
      publicNetworkAccess: h.publicNetworkAccess,
    },
  };
}

/** ManagedHsmKeys_Get (`asVersion` false: the key as its current version) or ManagedHsmKeys_GetVersion (the version's own id and name). */
export function managedHsmKeyResource(h: KeyVaultHsmState, k: KeyVaultKeyState, asVersion: boolean): ManagedHsmKey {
  const uriBase = `${managedHsmUri(h.name).replace(/\/$/, "")}:443/keys/${encodeURIComponent(k.name)}`;
  const p: KeyProperties = {
    attributes: {
      enabled: k.enabled,
      ...(k.nbf !== undefined ? { nbf: k.nbf } : {}),
      ...(k.exp !== undefined ? { exp: k.exp } : {}),
      created: k.created,
      updated: k.created,
      // Soft delete is always on in an HSM; purge protection decides whether a deleted key can be purged.
      recoveryLevel: h.enablePurgeProtection ? "Recoverable" : "Recoverable+Purgeable",
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
  const ref = { ...refOf(h), key: k.name };
  return {
    id: asVersion ? managedHsmKeyId(ref, undefined, k.version) : managedHsmKeyId(ref),
    name: asVersion ? k.version : k.name,
    type: asVersion ? MANAGED_HSM_RESOURCE_TYPES.keyVersion : MANAGED_HSM_RESOURCE_TYPES.key,
    ...(k.tags ? { tags: k.tags } : {}),
    properties: p,
  };
}
