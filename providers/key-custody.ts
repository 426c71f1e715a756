import type * as pulumi from "@pulumi/pulumi";
import type { KeyCustodySourceKind } from "../src/interfaces/pulumi/key-custody-sources";
import { LeanDynamicResource } from "./lean-dynamic-resource";

type In = pulumi.Input<string>;

/**
 * Base of the key-custody data sources: type `pulumi-nodejs:dynamic/<module>:<Type>`, the provider
 * (providers/key-custody-provider.ts) loaded from dist/ at call time. Outputs besides the inputs: the
 * API's object under the kind's output property, or `readError` when it could not be read.
 */
abstract class KeyCustodySource extends LeanDynamicResource {
  declare readonly readError: pulumi.Output<{ status?: number; code: string; message: string } | undefined>;
  protected constructor(
    kind: KeyCustodySourceKind,
    output: string,
    name: string,
    args: Record<string, In | undefined>,
    opts?: pulumi.CustomResourceOptions,
  ) {
    const [module, type] = kind.split(":");
    super(kind, module, type, name, { ...args, [output]: undefined, readError: undefined }, opts);
  }
}

export interface ServerArgs {
  subscriptionId: In;
  resourceGroup: In;
  server: In;
}

/** A SQL server's TDE protector (EncryptionProtectors_Get of `current`): who holds the key that protects its databases' keys. */
export class EncryptionProtector extends KeyCustodySource {
  /** The protector as the API returned it (`properties.serverKeyType`, `properties.uri` …). */
  declare readonly protector: pulumi.Output<Record<string, unknown> | undefined>;
  constructor(name: string, args: ServerArgs, opts?: pulumi.CustomResourceOptions) {
    super("sql:EncryptionProtector", "protector", name, { ...args }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new EncryptionProtector(name, {} as ServerArgs, { ...opts, id });
  }
}

export interface VaultArgs {
  subscriptionId: In;
  /** The vault's name, as a protector's key URI names it (its resource group is found by listing the subscription's vaults). */
  vault: In;
}

/** The Key Vault of a customer-managed TDE protector (soft delete, purge protection, retention). */
export class KeyVault extends KeyCustodySource {
  declare readonly vaultResource: pulumi.Output<Record<string, unknown> | undefined>;
  declare readonly resourceGroup: pulumi.Output<string | undefined>;
  constructor(name: string, args: VaultArgs, opts?: pulumi.CustomResourceOptions) {
    super("keyvault:Vault", "vaultResource", name, { ...args, resourceGroup: undefined }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new KeyVault(name, {} as VaultArgs, { ...opts, id });
  }
}

export interface VaultKeyArgs extends VaultArgs {
  key: In;
  /** The version the protector names; absent for a versionless key URI (the current version is read). */
  version?: In;
}

/** The Key Vault key of a customer-managed TDE protector (attributes, type and size; never key material). */
export class KeyVaultKey extends KeyCustodySource {
  declare readonly keyResource: pulumi.Output<Record<string, unknown> | undefined>;
  declare readonly resourceGroup: pulumi.Output<string | undefined>;
  constructor(name: string, args: VaultKeyArgs, opts?: pulumi.CustomResourceOptions) {
    super("keyvault:Key", "keyResource", name, { ...args, resourceGroup: undefined }, opts);
  }
  static get(name: string, id: In, opts?: pulumi.CustomResourceOptions) {
    return new KeyVaultKey(name, {} as VaultKeyArgs, { ...opts, id });
  }
}
