/**
 * The api-versions of Microsoft.KeyVault `managedHSMs` and `managedHSMs/keys` the emulator accepts.
 * The client sends one, KEYVAULT_API_VERSION (2023-07-01), the spec folder shipped in
 * specs/keyvault/ (managedHsm.json, keysManagedHsm.json).
 *
 * Where each was found: the folders of specification/keyvault/resource-manager/Microsoft.KeyVault/
 * in Azure/azure-rest-api-specs at a977c730fda43ab19c05373b32c7159d6f265e9a (the snapshot
 * specs/SOURCES.md names) that hold a managedHsm.json: 2020-04-01-preview, 2021-04-01-preview,
 * 2021-06-01-preview, 2021-10-01, 2021-11-01-preview, 2022-02-01-preview, 2022-07-01, 2022-11-01,
 * 2023-02-01, 2023-07-01, 2024-04-01-preview; keysManagedHsm.json (the HSM keys on the management
 * plane) first appears in 2022-11-01. 2024-11-01 and 2025-05-01 are the versions Azure's Go SDK
 * armkeyvault sends for the whole namespace (api-versions.ts says where), managed HSMs included.
 *
 * Every accepted version is answered in 2023-07-01's shape: the fields key custody reads
 * (`enableSoftDelete`, `softDeleteRetentionInDays`, `enablePurgeProtection`, `provisioningState`;
 * a key's attributes, `kty`, `keySize`) have the same names and meaning in all of them.
 */
export const MANAGED_HSM_API_VERSIONS = [
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
  "2024-04-01-preview",
  "2024-11-01",
  "2025-05-01",
] as const;

/** The versions that know `managedHSMs/{name}/keys` (keysManagedHsm.json starts in 2022-11-01). */
export const MANAGED_HSM_KEY_API_VERSIONS: readonly string[] = MANAGED_HSM_API_VERSIONS.slice(
  MANAGED_HSM_API_VERSIONS.indexOf("2022-11-01"),
);
