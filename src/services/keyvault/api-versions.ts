/**
 * The api-versions of Microsoft.KeyVault `vaults` and `vaults/keys` that Azure's published SDKs
 * send, and how each version's answers differ. The emulator accepts exactly these (and answers each
 * in its shape); the client sends one, KEYVAULT_API_VERSION (2023-07-01), because it checks what it
 * sends and receives against that version's spec folder, the one shipped in specs/keyvault/, and
 * 2023-07-01 already carries everything key custody reads (soft delete, purge protection,
 * retention, key attributes, kty, keySize, rotation policy).
 *
 * Where each version was found (SDK sources read with the search tools in 2026; "Go track 1" is
 * github.com/Azure/azure-sdk-for-go services/..., "Python" is azure-sdk-for-python's
 * sdk/keyvault/azure-mgmt-keyvault):
 * - 2015-06-01: Go track 1 services/keyvault/mgmt/2015-06-01/keyvault (vaults only; `enableSoftDelete`, no purge protection).
 * - 2016-10-01: Go track 1 services/keyvault/mgmt/2016-10-01; Python multi-api `v2016_10_01` (still in 11.0.0, for Azure Stack profiles).
 * - 2018-02-14-preview: Python 1.0.0a2 CHANGELOG "Upgrading to API version 2018-02-14-preview" (adds `enable_purge_protection`).
 * - 2018-02-14: Go track 1 services/keyvault/mgmt/2018-02-14; Python 1.0.0 "stable API version 2018-02-14", multi-api `v2018_02_14`.
 * - 2019-09-01: Go track 1 services/keyvault/mgmt/2019-09-01; Python multi-api client `DEFAULT_API_VERSION = '2019-09-01'`.
 *   The management plane's keys start here (specification/keyvault/.../stable/2019-09-01/keys.json).
 * - 2020-04-01-preview: Go track 1 services/preview/keyvault/mgmt/2020-04-01-preview; Python multi-api `v2020_04_01_preview`.
 * - 2021-10-01: Go track 1 services/keyvault/mgmt/2021-10-01; Python 10.0.0 (Key loses rotation_policy and release_policy).
 * - 2021-11-01-preview: Go track 1 services/preview/keyvault/mgmt/2021-11-01-preview (keys.go: rotation and release policy back).
 * - 2022-07-01: Go track 1 services/keyvault/mgmt/2022-07-01 (keys.go).
 * - 2023-02-01: Python 11.0.0 ships `v2023_02_01` (azuresdkdocs azure-mgmt-keyvault/11.0.0).
 * - 2023-07-01: the spec folder shipped here (specs/keyvault/2023-07-01/), named by the product contract.
 * - 2024-11-01: Go sdk/resourcemanager/keyvault/armkeyvault v1.5.0 autorest.md `tag: package-2024-11-01`; Python 11.0.0 `v2024_11_01`.
 * - 2025-05-01: Go armkeyvault v2.0.0 (2025-10-20) keys_client.go `reqQP.Set("api-version", "2025-05-01")`.
 * Published between those (Learn's "API version change log" of Microsoft.KeyVault/vaults and
 * vaults/keys lists them; Resource Manager accepts every published version), so accepted as well:
 * 2021-04-01-preview, 2021-06-01-preview (Python 9.2.0's rotation_policy/exportable), 2022-02-01-preview, 2022-11-01.
 * Not accepted: 2026-02-01, 2026-03-01-preview and later, which azure-rest-api-specs' TypeSpec
 * declares but no SDK I could read sends yet.
 */
export const KEYVAULT_VAULT_API_VERSIONS = [
  "2015-06-01",
  "2016-10-01",
  "2018-02-14-preview",
  "2018-02-14",
  "2019-09-01",
  "2020-04-01-preview",
  "2021-04-01-preview",
  "2021-06-01-preview",
  "2021-10-01",
  "2021-11-01-preview",
  "2022-02-01-preview",
  "2022-07-01",
  "2022-11-01",
  "2023-02-01",
  "2023-07-01",
  "2024-11-01",
  "2025-05-01",
] as const;
export type KeyVaultApiVersion = (typeof KEYVAULT_VAULT_API_VERSIONS)[number];

/** The versions that know `vaults/{vault}/keys` (the management plane's keys start in 2019-09-01). */
export const KEYVAULT_KEY_API_VERSIONS: readonly KeyVaultApiVersion[] = KEYVAULT_VAULT_API_VERSIONS.filter((v) => since(v, "2019-09-01"));

/**
 * Orders api-versions: by date, a preview before the stable version of the same date
 * (`2018-02-14-preview` < `2018-02-14`).
 */
export function apiVersionOrder(version: string): string {
  return `${version.slice(0, 10)}${version.endsWith("-preview") ? "0" : "1"}`;
}

/** Whether `version` is `first` or later. */
export function since(version: string, first: string): boolean {
  return apiVersionOrder(version) >= apiVersionOrder(first);
}

/** What a version's vault carries beyond `tenantId`, `sku`, `accessPolicies`, `vaultUri`, the `enabledFor…` flags and `enableSoftDelete` (all versions). */
export interface VaultShape {
  /** `enablePurgeProtection` (2018-02-14-preview on). */
  purgeProtection: boolean;
  /** `softDeleteRetentionInDays` and `enableRbacAuthorization` (2019-09-01 on). */
  retentionAndRbac: boolean;
  /** `provisioningState` and the resource's `systemData` (2021-04-01-preview on). */
  provisioningState: boolean;
  /** `publicNetworkAccess` (2021-06-01-preview on). */
  publicNetworkAccess: boolean;
}

/** What a version's key carries beyond `attributes` (`enabled`, `nbf`, `exp`, `created`, `updated`, `recoveryLevel`), `kty`, `keyOps`, `keySize`, `curveName`, `keyUri`, `keyUriWithVersion` (all versions with keys). */
export interface KeyShape {
  /** `attributes.exportable` (2021-06-01-preview on). */
  exportable: boolean;
  /** `rotationPolicy` and `release_policy`: in 2021-06-01-preview, dropped by 2021-10-01, back from 2021-11-01-preview. */
  rotationPolicy: boolean;
  /** The key resource's `systemData` (2025-05-01 on). */
  systemData: boolean;
}

/** The vault shape of an accepted version. */
export function vaultShape(version: string): VaultShape {
  return {
    purgeProtection: since(version, "2018-02-14-preview"),
    retentionAndRbac: since(version, "2019-09-01"),
    provisioningState: since(version, "2021-04-01-preview"),
    publicNetworkAccess: since(version, "2021-06-01-preview"),
  };
}

/** The key shape of an accepted version. */
export function keyShape(version: string): KeyShape {
  return {
    exportable: since(version, "2021-06-01-preview"),
    rotationPolicy: version === "2021-06-01-preview" || since(version, "2021-11-01-preview"),
    systemData: since(version, "2025-05-01"),
  };
}
