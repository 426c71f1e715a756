import { ArmClient, type ArmClientOptions, type ArmOperation, type ArmRead, type CallTarget } from "../../platform/arm/arm-client";
import { managedHsmId, managedHsmKeyId, resourceGroupManagedHsmsPath, subscriptionManagedHsmsPath } from "./managed-hsm-ids";
import {
  MANAGED_HSM_KEYS_SPEC,
  MANAGED_HSM_OPERATIONS,
  MANAGED_HSM_SPEC,
  type ManagedHsm,
  type ManagedHsmKey,
  type ManagedHsmKeyRef,
  type ManagedHsmRef,
} from "./managed-hsm-types";
import { KEYVAULT_API_VERSION } from "./types";

/**
 * The two ARM clients of Managed HSM on the management plane, at the api-version of the vaults'
 * (2023-07-01, the spec folder shipped in specs/keyvault/): HSM pools and their keys live in two
 * spec documents, as vaults and keys do. KeyVaultClient (client.ts) offers them beside the vaults.
 */

const op = (id: string, definition: string): ArmOperation => ({ id, schema: `/definitions/${definition}` });

/** ManagedHsms_*: their objects are `managedHsm.json#/definitions/ManagedHsm`. */
export class ManagedHsmsClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: KEYVAULT_API_VERSION, spec: MANAGED_HSM_SPEC });
  }

  get(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ManagedHsm> {
    return this.single(op(MANAGED_HSM_OPERATIONS.getManagedHsm, "ManagedHsm"), managedHsmId(ref, this.paths), {
      target: hsmTarget(ref),
      signal,
    });
  }

  read(ref: ManagedHsmRef, signal?: AbortSignal): Promise<ArmRead<ManagedHsm>> {
    return this.singleRead(op(MANAGED_HSM_OPERATIONS.getManagedHsm, "ManagedHsm"), managedHsmId(ref, this.paths), {
      target: hsmTarget(ref),
      signal,
    });
  }

  bySubscription(subscriptionId: string, signal?: AbortSignal): AsyncGenerator<ManagedHsm[], void, undefined> {
    return this.pages(
      op(MANAGED_HSM_OPERATIONS.listManagedHsmsBySubscription, "ManagedHsm"),
      subscriptionManagedHsmsPath(subscriptionId, this.paths),
      { target: { label: `subscription '${subscriptionId}'`, names: [subscriptionId] }, signal },
    );
  }

  byResourceGroup(
    scope: { subscriptionId: string; resourceGroup: string },
    signal?: AbortSignal,
  ): AsyncGenerator<ManagedHsm[], void, undefined> {
    return this.pages(
      op(MANAGED_HSM_OPERATIONS.listManagedHsmsByResourceGroup, "ManagedHsm"),
      resourceGroupManagedHsmsPath(scope, this.paths),
      {
        target: { label: `resource group '${scope.resourceGroup}' (subscription '${scope.subscriptionId}')`, names: [scope.resourceGroup] },
        signal,
      },
    );
  }
}

/** ManagedHsmKeys_*: their objects are `keysManagedHsm.json#/definitions/ManagedHsmKey`. */
export class ManagedHsmKeysClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: KEYVAULT_API_VERSION, spec: MANAGED_HSM_KEYS_SPEC });
  }

  get(ref: ManagedHsmKeyRef, version: string | undefined, signal?: AbortSignal): Promise<ManagedHsmKey> {
    return this.single(op(operationOf(version), "ManagedHsmKey"), managedHsmKeyId(ref, this.paths, version), {
      target: hsmKeyTarget(ref, version),
      signal,
    });
  }

  read(ref: ManagedHsmKeyRef, version: string | undefined, signal?: AbortSignal): Promise<ArmRead<ManagedHsmKey>> {
    return this.singleRead(op(operationOf(version), "ManagedHsmKey"), managedHsmKeyId(ref, this.paths, version), {
      target: hsmKeyTarget(ref, version),
      signal,
    });
  }

  versions(ref: ManagedHsmKeyRef, signal?: AbortSignal): AsyncGenerator<ManagedHsmKey[], void, undefined> {
    return this.pages(op(MANAGED_HSM_OPERATIONS.listKeyVersions, "ManagedHsmKey"), `${managedHsmKeyId(ref, this.paths)}/versions`, {
      target: hsmKeyTarget(ref),
      signal,
    });
  }
}

function operationOf(version: string | undefined): string {
  return version === undefined ? MANAGED_HSM_OPERATIONS.getKey : MANAGED_HSM_OPERATIONS.getKeyVersion;
}

function hsmTarget(ref: ManagedHsmRef): CallTarget {
  return {
    label: `managed HSM '${ref.hsm}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`,
    names: [ref.hsm],
    hint: "Check the managed HSM's name and resource group (it may have been deleted).",
  };
}

function hsmKeyTarget(ref: ManagedHsmKeyRef, version?: string): CallTarget {
  const what = version === undefined ? `key '${ref.key}'` : `version '${version}' of key '${ref.key}'`;
  return {
    label: `${what} of managed HSM '${ref.hsm}' (resource group '${ref.resourceGroup}', subscription '${ref.subscriptionId}')`,
    names: version === undefined ? [ref.key] : [version, ref.key],
    hint: "Check the key's name (it may have been deleted, or the version rotated out).",
  };
}
