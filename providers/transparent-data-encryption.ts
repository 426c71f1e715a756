import * as pulumi from "@pulumi/pulumi";
import { LeanDynamicResource } from "./lean-dynamic-resource";

export interface TransparentDataEncryptionArgs {
  subscriptionId: pulumi.Input<string>;
  resourceGroup: pulumi.Input<string>;
  server: pulumi.Input<string>;
  database: pulumi.Input<string>;
  /** The desired status. */
  transparentDataEncryption: pulumi.Input<"Enabled" | "Disabled">;
  /** `retain` (default): deleting the resource leaves encryption as it is. `Enabled`/`Disabled`: set that first. */
  onDelete?: pulumi.Input<"retain" | "Enabled" | "Disabled">;
  scanTimeoutSeconds?: pulumi.Input<number>;
  pollIntervalMs?: pulumi.Input<number>;
  /** Where the stack file names the database (`stacks/Pulumi.dev.yaml:12:7`): errors about it say so. */
  stackEntry?: pulumi.Input<string>;
  /** The stack whose lock and audit trail the writes go under. Default: the Pulumi stack. */
  stack?: pulumi.Input<string>;
}

/**
 * A SQL database's transparent data encryption, managed declaratively. Its provider
 * (providers/tde-provider.ts) is loaded from dist/ at call time.
 */
export class TransparentDataEncryption extends LeanDynamicResource {
  /** The live status as last read. */
  declare readonly status: pulumi.Output<string>;
  declare readonly databaseId: pulumi.Output<string>;
  declare readonly transparentDataEncryption: pulumi.Output<string>;
  declare readonly resourceGroup: pulumi.Output<string>;
  declare readonly server: pulumi.Output<string>;
  declare readonly database: pulumi.Output<string>;
  /** The TDE configuration's location as the API returned it (`East US`): what the data-residency policy places. */
  declare readonly location: pulumi.Output<string | undefined>;

  constructor(name: string, args: TransparentDataEncryptionArgs, opts?: pulumi.CustomResourceOptions) {
    super(
      "tde",
      "sql",
      "TransparentDataEncryption",
      name,
      { status: undefined, databaseId: undefined, location: undefined, ...args, stack: args.stack ?? pulumi.getStack() },
      opts,
    );
  }

  /** Adopts an existing database's TDE configuration by its ARM id. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): TransparentDataEncryption {
    return new TransparentDataEncryption(name, {} as TransparentDataEncryptionArgs, { ...opts, id });
  }
}
