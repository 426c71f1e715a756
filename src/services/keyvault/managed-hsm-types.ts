import type { KeyProperties, SystemData } from "./types";

/**
 * Types of Key Vault's Managed HSM on the management plane (Microsoft.KeyVault `managedHSMs`) at
 * api-version 2023-07-01, from specs/keyvault/2023-07-01/managedHsm.json (the HSM pools) and
 * keysManagedHsm.json (their keys). Only what the read operations return is modelled, typed as
 * the vaults' are (src/services/keyvault/types.ts): the ARM envelope with the fields under
 * `properties`, every field optional except `id`, index signatures, open enums.
 */

/** The HSM pools document (ManagedHsms_Get, ManagedHsms_ListBySubscription, ManagedHsms_ListByResourceGroup). */
export const MANAGED_HSM_SPEC = "keyvault/2023-07-01/managedHsm.json";
/** The HSM keys document (ManagedHsmKeys_Get, ManagedHsmKeys_GetVersion, ManagedHsmKeys_List, ManagedHsmKeys_ListVersions). */
export const MANAGED_HSM_KEYS_SPEC = "keyvault/2023-07-01/keysManagedHsm.json";

/** The spec's operationIds: the operation names in errors and logs. */
export const MANAGED_HSM_OPERATIONS = {
  getManagedHsm: "ManagedHsms_Get",
  listManagedHsmsBySubscription: "ManagedHsms_ListBySubscription",
  listManagedHsmsByResourceGroup: "ManagedHsms_ListByResourceGroup",
  getKey: "ManagedHsmKeys_Get",
  getKeyVersion: "ManagedHsmKeys_GetVersion",
  listKeys: "ManagedHsmKeys_List",
  listKeyVersions: "ManagedHsmKeys_ListVersions",
} as const;

/** ARM resource types, as the service writes them in `type`. */
export const MANAGED_HSM_RESOURCE_TYPES = {
  managedHsm: "Microsoft.KeyVault/managedHSMs",
  key: "Microsoft.KeyVault/managedHSMs/keys",
  keyVersion: "Microsoft.KeyVault/managedHSMs/keys/versions",
} as const;

type Open<T extends string> = T | (string & {});

/** A Managed HSM pool's place in ARM. */
export interface ManagedHsmRef {
  subscriptionId: string;
  resourceGroup: string;
  hsm: string;
}

/** A key's place in ARM: its HSM and its name. */
export interface ManagedHsmKeyRef extends ManagedHsmRef {
  key: string;
}

/** `ManagedHsmSku` */
export interface ManagedHsmSku {
  family?: Open<"B">;
  name?: Open<"Standard_B1" | "Custom_B32" | "Custom_B6">;
  [extra: string]: unknown;
}

/**
 * `ManagedHsmProperties`. The recoverability settings are what key custody reads, as for a vault:
 * - `enableSoftDelete`: on for every HSM (the spec: "enabled by default for all managed HSMs and
 *   is immutable"), with `softDeleteRetentionInDays` (7-90, default 90);
 * - `enablePurgeProtection`: nobody can purge a soft-deleted HSM or key before the retention ends;
 *   irreversible once on. The published example reports it `false` rather than leaving it out.
 */
export interface ManagedHsmProperties {
  tenantId?: string;
  initialAdminObjectIds?: string[];
  /** `https://<name>.managedhsm.azure.net/`: the data plane's URI, whose host a key URI names. */
  hsmUri?: string;
  enableSoftDelete?: boolean;
  softDeleteRetentionInDays?: number;
  enablePurgeProtection?: boolean;
  createMode?: Open<"recover" | "default">;
  statusMessage?: string;
  provisioningState?: Open<
    "Succeeded" | "Provisioning" | "Failed" | "Updating" | "Deleting" | "Activated" | "SecurityDomainRestore" | "Restoring"
  >;
  networkAcls?: Record<string, unknown>;
  regions?: Record<string, unknown>[];
  privateEndpointConnections?: Record<string, unknown>[];
  publicNetworkAccess?: Open<"Enabled" | "Disabled">;
  scheduledPurgeDate?: string;
  securityDomainProperties?: Record<string, unknown>;
  [extra: string]: unknown;
}

/** `ManagedHsm` */
export interface ManagedHsm {
  id: string;
  name?: string;
  type?: string;
  location?: string;
  sku?: ManagedHsmSku;
  tags?: Record<string, string>;
  systemData?: SystemData;
  identity?: Record<string, unknown>;
  properties?: ManagedHsmProperties;
  [extra: string]: unknown;
}

/**
 * `ManagedHsmKey`: the management plane's view of an HSM key (no key material). Its properties
 * (`ManagedHsmKeyProperties`: attributes with `enabled`, `nbf`, `exp` in seconds since 1970; `kty`;
 * `keySize`; `curveName`; `keyUri`; rotation policy) have the fields and meaning of a vault key's.
 */
export interface ManagedHsmKey {
  id: string;
  name?: string;
  type?: string;
  tags?: Record<string, string>;
  properties?: KeyProperties;
  [extra: string]: unknown;
}
