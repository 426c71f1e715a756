import type { ArmClientOptions, ArmRead } from "../../platform/arm/arm-client";
import { ArmOperations } from "../../platform/arm/arm-operations";
import type { ManagedHsm, ManagedHsmKey, ManagedHsmKeyRef, ManagedHsmRef } from "./managed-hsm-types";
import { KEYVAULT_OPERATIONS_TABLE } from "./operations";
import type { Key, Vault, VaultKeyRef, VaultRef } from "./types";

export type { ResponseValidation } from "../../platform/arm/arm-client";
/** The ARM client options, as every ARM client takes them (endpoint, credential, naming, retry, pacing ...). */
export type KeyVaultClientOptions = ArmClientOptions;

/** A vault's path parameters, as the spec names them. */
export function vaultParams(ref: VaultRef): { subscriptionId: string; resourceGroupName: string; vaultName: string } {
  return { subscriptionId: ref.subscriptionId, resourceGroupName: ref.resourceGroup, vaultName: ref.vault };
}

/** A Managed HSM's path parameters, as the spec names them (`name` is the HSM's). */
export function managedHsmParams(ref: ManagedHsmRef): { subscriptionId: string; resourceGroupName: string; name: string } {
  return { subscriptionId: ref.subscriptionId, resourceGroupName: ref.resourceGroup, name: ref.hsm };
}

/**
 * A typed, read-only client for the Key Vault management plane (Microsoft.KeyVault, api-version
 * 2023-07-01): vaults (soft delete, purge protection, retention) and their keys (attributes
 * `enabled`, `nbf`, `exp`; `kty`; `keySize`; rotation policy), without key material, and Managed
 * HSM pools and their keys. Each method sends one row of the Key Vault operation table
 * (operations.ts); responses are handled by ArmClient (checked against the row's document to learn,
 * refused only when unusable, handed on unchanged). Lists follow `nextLink` to the end.
 *
 * A vault the identity may not read answers 403 (`AuthorizationFailed`): it comes back as an
 * ApiError with that status and code, for the caller to report; a missing one is a 404 that names it.
 * Every document's client shares the credential's pacer (one per credential and endpoint).
 */
export class KeyVaultClient {
  private readonly ops: ArmOperations<typeof KEYVAULT_OPERATIONS_TABLE>;

  constructor(opts: KeyVaultClientOptions) {
    this.ops = new ArmOperations(opts, KEYVAULT_OPERATIONS_TABLE);
  }

  /** Vaults_Get: one vault. */
  getVault(ref: VaultRef, signal?: AbortSignal): Promise<Vault> {
    return this.ops.get("Vaults_Get", vaultParams(ref), signal);
  }

  /**
   * Vaults_ListBySubscription: every vault of a subscription the identity may read (properties
   * included). The way to find a vault that is known only by name, as an encryption protector's key
   * URI names it: match `name` (case-insensitively) or `properties.vaultUri`.
   */
  listVaultsBySubscription(subscriptionId: string, signal?: AbortSignal): Promise<Vault[]> {
    return this.ops.get("Vaults_ListBySubscription", { subscriptionId }, signal);
  }

  /** Vaults_ListBySubscription, one page (one request) at a time. */
  vaultPagesBySubscription(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Vault[], void, undefined> {
    return this.ops.pages("Vaults_ListBySubscription", { subscriptionId }, signal);
  }

  /** Vaults_ListByResourceGroup: the vaults of one resource group. */
  listVaultsByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<Vault[]> {
    return this.ops.get("Vaults_ListByResourceGroup", { subscriptionId, resourceGroupName: resourceGroup }, signal);
  }

  /** Keys_Get: a key, as its current version. */
  getKey(ref: VaultKeyRef, signal?: AbortSignal): Promise<Key> {
    return this.ops.get("Keys_Get", { ...vaultParams(ref), keyName: ref.key }, signal);
  }

  /** Keys_GetVersion: one version of a key (an encryption protector's URI names the version it uses). */
  getKeyVersion(ref: VaultKeyRef, version: string, signal?: AbortSignal): Promise<Key> {
    return this.ops.get("Keys_GetVersion", { ...vaultParams(ref), keyName: ref.key, keyVersion: version }, signal);
  }

  /** Vaults_Get, with the receipt of the read (when, and Resource Manager's request id). */
  readVault(ref: VaultRef, signal?: AbortSignal): Promise<ArmRead<Vault>> {
    return this.ops.read("Vaults_Get", vaultParams(ref), signal);
  }

  /**
   * Keys_GetVersion (Keys_Get without a version), with the receipt of the read: the key an
   * encryption protector names, as it names it.
   */
  readKey(ref: VaultKeyRef, version?: string, signal?: AbortSignal): Promise<ArmRead<Key>> {
    const key = { ...vaultParams(ref), keyName: ref.key };
    return version === undefined
      ? this.ops.read("Keys_Get", key, signal)
      : this.ops.read("Keys_GetVersion", { ...key, keyVersion: version }, signal);
  }

  /** Keys_List: the keys of a vault (each as its current version). */
  listKeys(ref: VaultRef, signal?: AbortSignal): Promise<Key[]> {
    return this.ops.get("Keys_List", vaultParams(ref), signal);
  }

  /** ManagedHsms_Get: one Managed HSM pool (soft delete, retention, purge protection, provisioning state). */
  getManagedHsm(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ManagedHsm> {
    return this.ops.get("ManagedHsms_Get", managedHsmParams(ref), signal);
  }

  /** ManagedHsms_Get, with the receipt of the read. */
  readManagedHsm(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ArmRead<ManagedHsm>> {
    return this.ops.read("ManagedHsms_Get", managedHsmParams(ref), signal);
  }

  /**
   * ManagedHsms_ListBySubscription: every Managed HSM of a subscription the identity may read. The
   * way to find an HSM known only by name, as a protector's key URI (`https://<name>.managedhsm.azure.net/keys/…`) names it.
   */
  listManagedHsmsBySubscription(subscriptionId: string, signal?: AbortSignal): Promise<ManagedHsm[]> {
    return this.ops.get("ManagedHsms_ListBySubscription", { subscriptionId }, signal);
  }

  /** ManagedHsms_ListByResourceGroup: the Managed HSMs of one resource group. */
  listManagedHsmsByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<ManagedHsm[]> {
    return this.ops.get("ManagedHsms_ListByResourceGroup", { subscriptionId, resourceGroupName: resourceGroup }, signal);
  }

  /** ManagedHsmKeys_GetVersion (ManagedHsmKeys_Get without a version: the key as its current version). */
  getManagedHsmKey(ref: ManagedHsmKeyRef, version?: string, signal?: AbortSignal): Promise<ManagedHsmKey> {
    const key = { ...managedHsmParams(ref), keyName: ref.key };
    return version === undefined
      ? this.ops.get("ManagedHsmKeys_Get", key, signal)
      : this.ops.get("ManagedHsmKeys_GetVersion", { ...key, keyVersion: version }, signal);
  }

  /** ManagedHsmKeys_GetVersion (ManagedHsmKeys_Get without a version), with the receipt of the read. */
  readManagedHsmKey(ref: ManagedHsmKeyRef, version?: string, signal?: AbortSignal): Promise<ArmRead<ManagedHsmKey>> {
    const key = { ...managedHsmParams(ref), keyName: ref.key };
    return version === undefined
      ? this.ops.read("ManagedHsmKeys_Get", key, signal)
      : this.ops.read("ManagedHsmKeys_GetVersion", { ...key, keyVersion: version }, signal);
  }

  /** ManagedHsmKeys_ListVersions: every version of an HSM key. */
  listManagedHsmKeyVersions(ref: ManagedHsmKeyRef, signal?: AbortSignal): Promise<ManagedHsmKey[]> {
    return this.ops.get("ManagedHsmKeys_ListVersions", { ...managedHsmParams(ref), keyName: ref.key }, signal);
  }
}
