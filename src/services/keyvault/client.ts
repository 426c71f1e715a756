import { ArmClient, collect, type ArmClientOptions, type ArmOperation, type ArmRead, type CallTarget } from "../../platform/arm/arm-client";
import {
  KEYVAULT_API_VERSION,
  KEYVAULT_KEYS_SPEC,
  KEYVAULT_OPERATIONS,
  KEYVAULT_VAULTS_SPEC,
  type Key,
  type Vault,
  type VaultKeyRef,
  type VaultRef,
} from "./types";
import { keyVaultId, resourceGroupVaultsPath, subscriptionVaultsPath, vaultKeyId } from "./vault-ids";
import { ManagedHsmKeysClient, ManagedHsmsClient } from "./managed-hsm-client";
import type { ManagedHsm, ManagedHsmKey, ManagedHsmKeyRef, ManagedHsmRef } from "./managed-hsm-types";

export type { ResponseValidation } from "../../platform/arm/arm-client";
/** The ARM client options, as every ARM client takes them (endpoint, credential, naming, retry, pacing ...). */
export type KeyVaultClientOptions = ArmClientOptions;

const op = (id: string, definition: string): ArmOperation => ({ id, schema: `/definitions/${definition}` });

/** Vaults_*: their objects are `keyvault.json#/definitions/Vault`. */
class VaultsClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: KEYVAULT_API_VERSION, spec: KEYVAULT_VAULTS_SPEC });
  }

  get(ref: VaultRef, signal?: AbortSignal): Promise<Vault> {
    return this.single(op(KEYVAULT_OPERATIONS.getVault, "Vault"), keyVaultId(ref, this.paths), { target: vaultTarget(ref), signal });
  }

  read(ref: VaultRef, signal?: AbortSignal): Promise<ArmRead<Vault>> {
    return this.singleRead(op(KEYVAULT_OPERATIONS.getVault, "Vault"), keyVaultId(ref, this.paths), { target: vaultTarget(ref), signal });
  }

  bySubscription(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Vault[], void, undefined> {
    return this.pages(op(KEYVAULT_OPERATIONS.listVaultsBySubscription, "Vault"), subscriptionVaultsPath(subscriptionId, this.paths), {
      target: { label: `subscription '${subscriptionId}'`, names: [subscriptionId] },
      signal,
    });
  }

  byResourceGroup(
    scope: { subscriptionId: string; resourceGroup: string },
    signal?: AbortSignal,
  ): AsyncGenerator<Vault[], void, undefined> {
    return this.pages(op(KEYVAULT_OPERATIONS.listVaultsByResourceGroup, "Vault"), resourceGroupVaultsPath(scope, this.paths), {
      target: { label: `resource group '${scope.resourceGroup}' (subscription '${scope.subscriptionId}')`, names: [scope.resourceGroup] },
      signal,
    });
  }
}

/** Keys_*: their objects are `keys.json#/definitions/Key`. */
class VaultKeysClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: KEYVAULT_API_VERSION, spec: KEYVAULT_KEYS_SPEC });
  }

  get(ref: VaultKeyRef, signal?: AbortSignal): Promise<Key> {
    return this.single(op(KEYVAULT_OPERATIONS.getKey, "Key"), vaultKeyId(ref, this.paths), { target: keyTarget(ref), signal });
  }

  getVersion(ref: VaultKeyRef, version: string, signal?: AbortSignal): Promise<Key> {
    return this.single(op(KEYVAULT_OPERATIONS.getKeyVersion, "Key"), vaultKeyId(ref, this.paths, version), {
      target: keyTarget(ref, version),
      signal,
    });
  }

  read(ref: VaultKeyRef, version: string | undefined, signal?: AbortSignal): Promise<ArmRead<Key>> {
    const operation = version === undefined ? KEYVAULT_OPERATIONS.getKey : KEYVAULT_OPERATIONS.getKeyVersion;
    return this.singleRead(op(operation, "Key"), vaultKeyId(ref, this.paths, version), { target: keyTarget(ref, version), signal });
  }

  list(ref: VaultRef, signal?: AbortSignal): AsyncGenerator<Key[], void, undefined> {
    return this.pages(op(KEYVAULT_OPERATIONS.listKeys, "Key"), `${keyVaultId(ref, this.paths)}/keys`, { target: vaultTarget(ref), signal });
  }
}

/**
 * A typed, read-only client for the Key Vault management plane (Microsoft.KeyVault, api-version
 * 2023-07-01): vaults (soft delete, purge protection, retention) and their keys (attributes
 * `enabled`, `nbf`, `exp`; `kty`; `keySize`; rotation policy), without key material. Requests follow
 * the spec; responses are handled by ArmClient (checked against keyvault.json or keys.json to learn,
 * refused only when unusable, handed on unchanged). Lists follow `nextLink` to the end.
 *
 * A vault the identity may not read answers 403 (`AuthorizationFailed`): it comes back as an
 * ApiError with that status and code, for the caller to report; a missing one is a 404 that names it.
 * The vaults and the keys live in two spec documents, so two ARM clients do the work; they share
 * the credential's pacer (one per credential and endpoint).
 */
export class KeyVaultClient {
  private readonly vaults: VaultsClient;
  private readonly keys: VaultKeysClient;
  private readonly hsms: ManagedHsmsClient;
  private readonly hsmKeys: ManagedHsmKeysClient;

  constructor(opts: KeyVaultClientOptions) {
    this.vaults = new VaultsClient(opts);
    this.keys = new VaultKeysClient(opts);
    this.hsms = new ManagedHsmsClient(opts);
    this.hsmKeys = new ManagedHsmKeysClient(opts);
  }

  /** Vaults_Get: one vault. */
  getVault(ref: VaultRef, signal?: AbortSignal): Promise<Vault> {
    return this.vaults.get(ref, signal);
  }

  /**
   * Vaults_ListBySubscription: every vault of a subscription the identity may read (properties
   * included). The way to find a vault that is known only by name, as an encryption protector's key
   * URI names it: match `name` (case-insensitively) or `properties.vaultUri`.
   */
  listVaultsBySubscription(subscriptionId: string, signal?: AbortSignal): Promise<Vault[]> {
    return collect(this.vaults.bySubscription(subscriptionId, signal));
  }

  /** Vaults_ListBySubscription, one page (one request) at a time. */
  vaultPagesBySubscription(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<Vault[], void, undefined> {
    return this.vaults.bySubscription(subscriptionId, signal);
  }

  /** Vaults_ListByResourceGroup: the vaults of one resource group. */
  listVaultsByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<Vault[]> {
    return collect(this.vaults.byResourceGroup({ subscriptionId, resourceGroup }, signal));
  }

  /** Keys_Get: a key, as its current version. */
  getKey(ref: VaultKeyRef, signal?: AbortSignal): Promise<Key> {
    return this.keys.get(ref, signal);
  }

  /** Keys_GetVersion: one version of a key (an encryption protector's URI names the version it uses). */
  getKeyVersion(ref: VaultKeyRef, version: string, signal?: AbortSignal): Promise<Key> {
    return this.keys.getVersion(ref, version, signal);
  }

  /** Vaults_Get, with the receipt of the read (when, and Resource Manager's request id). */
  readVault(ref: VaultRef, signal?: AbortSignal): Promise<ArmRead<Vault>> {
    return this.vaults.read(ref, signal);
  }

  /**
   * Keys_GetVersion (Keys_Get without a version), with the receipt of the read: the key an
   * encryption protector names, as it names it.
   */
  readKey(ref: VaultKeyRef, version?: string, signal?: AbortSignal): Promise<ArmRead<Key>> {
    return this.keys.read(ref, version, signal);
  }

  /** Keys_List: the keys of a vault (each as its current version). */
  listKeys(ref: VaultRef, signal?: AbortSignal): Promise<Key[]> {
    return collect(this.keys.list(ref, signal));
  }

  /** ManagedHsms_Get: one Managed HSM pool (soft delete, retention, purge protection, provisioning state). */
  getManagedHsm(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ManagedHsm> {
    return this.hsms.get(ref, signal);
  }

  /** ManagedHsms_Get, with the receipt of the read. */
  readManagedHsm(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ArmRead<ManagedHsm>> {
    return this.hsms.read(ref, signal);
  }

  /**
   * ManagedHsms_ListBySubscription: every Managed HSM of a subscription the identity may read. The
   * way to find an HSM known only by name, as a protector's key URI (`https://<name>.managedhsm.azure.net/keys/…`) names it.
   */
  listManagedHsmsBySubscription(subscriptionId: string, signal?: AbortSignal): Promise<ManagedHsm[]> {
    return collect(this.hsms.bySubscription(subscriptionId, signal));
  }

  /** ManagedHsms_ListByResourceGroup: the Managed HSMs of one resource group. */
  listManagedHsmsByResourceGroup(subscriptionId: string, resourceGroup: string, signal?: AbortSignal): Promise<ManagedHsm[]> {
    return collect(this.hsms.byResourceGroup({ subscriptionId, resourceGroup }, signal));
  }

  /** ManagedHsmKeys_GetVersion (ManagedHsmKeys_Get without a version: the key as its current version). */
  getManagedHsmKey(ref: ManagedHsmKeyRef, version?: string, signal?: AbortSignal): Promise<ManagedHsmKey> {
    return this.hsmKeys.get(ref, version, signal);
  }

  /** ManagedHsmKeys_GetVersion (ManagedHsmKeys_Get without a version), with the receipt of the read. */
  readManagedHsmKey(ref: ManagedHsmKeyRef, version?: string, signal?: AbortSignal): Promise<ArmRead<ManagedHsmKey>> {
    return this.hsmKeys.read(ref, version, signal);
  }

  /** ManagedHsmKeys_ListVersions: every version of an HSM key. */
  listManagedHsmKeyVersions(ref: ManagedHsmKeyRef, signal?: AbortSignal): Promise<ManagedHsmKey[]> {
    return collect(this.hsmKeys.versions(ref, signal));
  }
}

function vaultTarget(ref: VaultRef): CallTarget {
  return {
    label: `key vault '${ref.vault}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`,
    names: [ref.vault],
    hint: "Check the vault's name and resource group (the vault may have been deleted).",
  };
}

function keyTarget(ref: VaultKeyRef, version?: string): CallTarget {
  const what = version === undefined ? `key '${ref.key}'` : `version '${version}' of key '${ref.key}'`;
  return {
    label: `${what} of key vault '${ref.vault}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`,
    names: version === undefined ? [ref.key] : [version, ref.key],
    hint: "Check the key's name (it may have been deleted, or the version rotated out).",
  };
}
