import type { CallTarget } from "../../platform/arm/arm-client";
import { answer, defineArmOperations } from "../../platform/arm/arm-operation";
import { MANAGED_HSM_KEYS_SPEC, MANAGED_HSM_SPEC, type ManagedHsm, type ManagedHsmKey } from "./managed-hsm-types";
import { KEYVAULT_API_VERSION, KEYVAULT_KEYS_SPEC, KEYVAULT_VAULTS_SPEC, type Key, type Vault } from "./types";

/**
 * The Key Vault management-plane operations stackwarden reads (Microsoft.KeyVault 2023-07-01), one
 * row each (see src/platform/arm/arm-operation.ts): vaults and their keys, Managed HSM pools and
 * theirs, in four spec documents at the folder's one api-version. Never key material: the keys'
 * attributes, type and size only. The namespace is always `Microsoft.KeyVault`.
 */

const SUBSCRIPTION = "/subscriptions/{subscriptionId}/providers/Microsoft.KeyVault";
const GROUP = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.KeyVault";
const VAULT = `${GROUP}/vaults/{vaultName}` as const;
const HSM = `${GROUP}/managedHSMs/{name}` as const;
const HINT_KEY = "Check the key's name (it may have been deleted, or the version rotated out).";

type Params = Readonly<Record<string, string>>;

/** What a 404 names: a subscription's collection. */
const subscriptionTarget = (p: Params): CallTarget => ({ label: `subscription '${p.subscriptionId}'`, names: [p.subscriptionId] });

/** What a 404 names: a resource group's collection. */
const groupTarget = (p: Params): CallTarget => ({
  label: `resource group '${p.resourceGroupName}' (subscription '${p.subscriptionId}')`,
  names: [p.resourceGroupName],
});

/** What a 404 names: the vault. */
const vaultTarget = (p: Params): CallTarget => ({
  label: `key vault '${p.vaultName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
  names: [p.vaultName],
  hint: "Check the vault's name and resource group (the vault may have been deleted).",
});

/** What a 404 names: a key (or one version of it) of a vault or, with `in` `managed HSM`, of an HSM. */
function keyTarget(p: Params, container: string, containerName: string): CallTarget {
  const what = p.keyVersion === undefined ? `key '${p.keyName}'` : `version '${p.keyVersion}' of key '${p.keyName}'`;
  return {
    label: `${what} of ${container} '${containerName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
    names: p.keyVersion === undefined ? [p.keyName] : [p.keyVersion, p.keyName],
    hint: HINT_KEY,
  };
}

/** What a 404 names: the Managed HSM. */
const hsmTarget = (p: Params): CallTarget => ({
  label: `managed HSM '${p.name}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
  names: [p.name],
  hint: "Check the managed HSM's name and resource group (it may have been deleted).",
});

const VAULTS = {
  apiVersion: KEYVAULT_API_VERSION,
  spec: KEYVAULT_VAULTS_SPEC,
  schema: "/definitions/Vault",
  answer: answer<Vault>(),
} as const;
const KEYS = { apiVersion: KEYVAULT_API_VERSION, spec: KEYVAULT_KEYS_SPEC, schema: "/definitions/Key", answer: answer<Key>() } as const;
const HSMS = {
  apiVersion: KEYVAULT_API_VERSION,
  spec: MANAGED_HSM_SPEC,
  schema: "/definitions/ManagedHsm",
  answer: answer<ManagedHsm>(),
} as const;
const HSM_KEYS = {
  apiVersion: KEYVAULT_API_VERSION,
  spec: MANAGED_HSM_KEYS_SPEC,
  schema: "/definitions/ManagedHsmKey",
  answer: answer<ManagedHsmKey>(),
} as const;

/** Key Vault's operations, by their spec operationIds. */
export const KEYVAULT_OPERATIONS_TABLE = defineArmOperations({
  Vaults_Get: { ...VAULTS, path: VAULT, target: vaultTarget },
  Vaults_ListBySubscription: { ...VAULTS, path: `${SUBSCRIPTION}/vaults`, list: true, target: subscriptionTarget },
  Vaults_ListByResourceGroup: { ...VAULTS, path: `${GROUP}/vaults`, list: true, target: groupTarget },
  Keys_Get: { ...KEYS, path: `${VAULT}/keys/{keyName}`, target: (p) => keyTarget(p, "key vault", p.vaultName) },
  Keys_GetVersion: {
    ...KEYS,
    path: `${VAULT}/keys/{keyName}/versions/{keyVersion}`,
    target: (p) => keyTarget(p, "key vault", p.vaultName),
  },
  Keys_List: { ...KEYS, path: `${VAULT}/keys`, list: true, target: vaultTarget },
  ManagedHsms_Get: { ...HSMS, path: HSM, target: hsmTarget },
  ManagedHsms_ListBySubscription: { ...HSMS, path: `${SUBSCRIPTION}/managedHSMs`, list: true, target: subscriptionTarget },
  ManagedHsms_ListByResourceGroup: { ...HSMS, path: `${GROUP}/managedHSMs`, list: true, target: groupTarget },
  ManagedHsmKeys_Get: { ...HSM_KEYS, path: `${HSM}/keys/{keyName}`, target: (p) => keyTarget(p, "managed HSM", p.name) },
  ManagedHsmKeys_GetVersion: {
    ...HSM_KEYS,
    path: `${HSM}/keys/{keyName}/versions/{keyVersion}`,
    target: (p) => keyTarget(p, "managed HSM", p.name),
  },
  ManagedHsmKeys_ListVersions: {
    ...HSM_KEYS,
    path: `${HSM}/keys/{keyName}/versions`,
    list: true,
    target: (p) => keyTarget(p, "managed HSM", p.name),
  },
});
