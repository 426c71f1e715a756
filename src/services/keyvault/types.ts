/**
 * Types of the Key Vault management plane (Microsoft.KeyVault) at api-version 2023-07-01, from
 * specs/keyvault/2023-07-01/keyvault.json (vaults) and keys.json (keys). Only what the read
 * operations return is modelled.
 *
 * Objects are typed as they travel on the wire: the ARM envelope (`id`, `name`, `type`, `location`,
 * `tags`) with the resource's fields under `properties`. Every spec field is optional except `id`,
 * which the client guarantees (a resource without one is kept, with a warning). Interfaces keep an
 * index signature and enums are open (`Known | (string & {})`): real services add properties and
 * enum values without notice, and the client hands objects on unchanged.
 */

/** The vaults document (Vaults_Get, Vaults_ListBySubscription, Vaults_ListByResourceGroup). */
export const KEYVAULT_VAULTS_SPEC = "keyvault/2023-07-01/keyvault.json";
/** The keys document (Keys_Get, Keys_GetVersion, Keys_List). */
export const KEYVAULT_KEYS_SPEC = "keyvault/2023-07-01/keys.json";
/**
 * The one api-version the client sends: the version of the spec folder it checks every request
 * and response against (src/services/keyvault/api-versions.ts says why, and lists what the emulator
 * accepts).
 */
export const KEYVAULT_API_VERSION = "2023-07-01";

/** The spec's operationIds: the operation names in errors and logs. */
export const KEYVAULT_OPERATIONS = {
  getVault: "Vaults_Get",
  listVaultsBySubscription: "Vaults_ListBySubscription",
  listVaultsByResourceGroup: "Vaults_ListByResourceGroup",
  getKey: "Keys_Get",
  getKeyVersion: "Keys_GetVersion",
  listKeys: "Keys_List",
} as const;
export type KeyVaultOperation = (typeof KEYVAULT_OPERATIONS)[keyof typeof KEYVAULT_OPERATIONS];

/** ARM resource types, as the service writes them in `type`. */
export const KEYVAULT_RESOURCE_TYPES = {
  vault: "Microsoft.KeyVault/vaults",
  key: "Microsoft.KeyVault/vaults/keys",
  keyVersion: "Microsoft.KeyVault/vaults/keys/versions",
} as const;

/** The namespace in request paths and ids (Key Vault has no described spelling: it is always the real one). */
export const KEYVAULT_NAMESPACE = "Microsoft.KeyVault";

type Open<T extends string> = T | (string & {});

/** A vault's place in ARM. */
export interface VaultRef {
  subscriptionId: string;
  resourceGroup: string;
  vault: string;
}

/** A key's place in ARM: its vault and its name. */
export interface VaultKeyRef extends VaultRef {
  key: string;
}

/** `SkuName` (a closed enum in the spec, read openly). */
export type SkuName = Open<"standard" | "premium">;

/** `Sku` */
export interface Sku {
  family?: Open<"A">;
  name?: SkuName;
  [extra: string]: unknown;
}

/** `Permissions`: what an access policy entry allows, per object kind. */
export interface Permissions {
  keys?: string[];
  secrets?: string[];
  certificates?: string[];
  storage?: string[];
  [extra: string]: unknown;
}

/** `AccessPolicyEntry` */
export interface AccessPolicyEntry {
  tenantId?: string;
  objectId?: string;
  applicationId?: string;
  permissions?: Permissions;
  [extra: string]: unknown;
}

/** `NetworkRuleSet` (read as it comes; the key rules do not judge the network). */
export interface NetworkRuleSet {
  bypass?: Open<"AzureServices" | "None">;
  defaultAction?: Open<"Allow" | "Deny">;
  ipRules?: { value?: string; [extra: string]: unknown }[];
  virtualNetworkRules?: { id?: string; ignoreMissingVnetServiceEndpoint?: boolean; [extra: string]: unknown }[];
  [extra: string]: unknown;
}

/**
 * `VaultProperties`. The recoverability settings are what key custody reads:
 * - `enableSoftDelete`: deleted vaults and keys can be recovered for `softDeleteRetentionInDays`
 *   (7-90, default 90). Absent in old vaults means false; since 2019 every new vault has it on;
 * - `enablePurgeProtection`: nobody can purge a soft-deleted vault or key before the retention ends.
 *   Azure leaves it out (or `null`) when it was never turned on; it cannot be turned off.
 */
export interface VaultProperties {
  tenantId?: string;
  sku?: Sku;
  accessPolicies?: AccessPolicyEntry[];
  vaultUri?: string;
  hsmPoolResourceId?: string;
  enabledForDeployment?: boolean;
  enabledForDiskEncryption?: boolean;
  enabledForTemplateDeployment?: boolean;
  enableSoftDelete?: boolean;
  softDeleteRetentionInDays?: number;
  enableRbacAuthorization?: boolean;
  createMode?: Open<"recover" | "default">;
  enablePurgeProtection?: boolean;
  networkAcls?: NetworkRuleSet;
  provisioningState?: Open<"Succeeded" | "RegisteringDns">;
  privateEndpointConnections?: Record<string, unknown>[];
  publicNetworkAccess?: string;
  [extra: string]: unknown;
}

/** `SystemData` of common.json. */
export interface SystemData {
  createdBy?: string;
  createdByType?: Open<"User" | "Application" | "ManagedIdentity" | "Key">;
  createdAt?: string;
  lastModifiedBy?: string;
  lastModifiedByType?: Open<"User" | "Application" | "ManagedIdentity" | "Key">;
  lastModifiedAt?: string;
  [extra: string]: unknown;
}

/** `Vault` */
export interface Vault {
  id: string;
  name?: string;
  type?: string;
  location?: string;
  tags?: Record<string, string>;
  systemData?: SystemData;
  properties?: VaultProperties;
  [extra: string]: unknown;
}

/** `JsonWebKeyType` */
export type JsonWebKeyType = Open<"EC" | "EC-HSM" | "RSA" | "RSA-HSM">;
/** `JsonWebKeyCurveName` */
export type JsonWebKeyCurveName = Open<"P-256" | "P-384" | "P-521" | "P-256K">;
/** `DeletionRecoveryLevel` */
export type DeletionRecoveryLevel = Open<"Purgeable" | "Recoverable+Purgeable" | "Recoverable" | "Recoverable+ProtectedSubscription">;

/**
 * `KeyAttributes`. Times are whole seconds since 1970-01-01T00:00:00Z (int64), not ISO strings:
 * `nbf` (not before: the key cannot be used earlier) and `exp` (expires) are optional and absent
 * when unset; `created` and `updated` are set by the service.
 */
export interface KeyAttributes {
  enabled?: boolean;
  nbf?: number;
  exp?: number;
  created?: number;
  updated?: number;
  recoveryLevel?: DeletionRecoveryLevel;
  exportable?: boolean;
  [extra: string]: unknown;
}

/** `Trigger` of a lifetime action: ISO 8601 durations (`P90D`, `P1Y`). */
export interface RotationTrigger {
  timeAfterCreate?: string;
  timeBeforeExpiry?: string;
  [extra: string]: unknown;
}

/** `LifetimeAction`: rotate or notify when the trigger fires. */
export interface LifetimeAction {
  trigger?: RotationTrigger;
  action?: { type?: Open<"rotate" | "notify">; [extra: string]: unknown };
  [extra: string]: unknown;
}

/** `RotationPolicy` (api-versions 2021-06-01-preview and 2021-11-01-preview onwards; absent when empty). */
export interface RotationPolicy {
  attributes?: { created?: number; updated?: number; expiryTime?: string; [extra: string]: unknown };
  lifetimeActions?: LifetimeAction[];
  [extra: string]: unknown;
}

/** `KeyReleasePolicy` */
export interface KeyReleasePolicy {
  contentType?: string;
  data?: string;
  [extra: string]: unknown;
}

/** `KeyProperties`: `keySize` for RSA keys, `curveName` for EC keys. */
export interface KeyProperties {
  attributes?: KeyAttributes;
  kty?: JsonWebKeyType;
  keyOps?: string[];
  keySize?: number;
  curveName?: JsonWebKeyCurveName;
  /** The current version's URI without the version (`https://<vault>.vault.azure.net/keys/<key>`). */
  keyUri?: string;
  /** The URI of this version (`…/keys/<key>/<version>`). */
  keyUriWithVersion?: string;
  rotationPolicy?: RotationPolicy;
  release_policy?: KeyReleasePolicy;
  [extra: string]: unknown;
}

/** `Key`: the management plane's view of a key (no key material). */
export interface Key {
  id: string;
  name?: string;
  type?: string;
  location?: string;
  tags?: Record<string, string>;
  properties?: KeyProperties;
  [extra: string]: unknown;
}

/** The list envelopes (`VaultListResult`, `KeyListResult`): lists page with `nextLink`. */
export interface KeyVaultListResult<T> {
  value?: T[];
  nextLink?: string;
}
