import * as pulumi from "@pulumi/pulumi";
import type * as TdeCore from "../src/resources/tde-resource";
import type * as Clients from "../src/runtime/azure-clients";
import { isUnknown, loadCore } from "./load-core";

/**
 * The dynamic provider of a database's TDE configuration. Each method is one call into
 * `src/resources/tde-resource`; see it for the semantics (onDelete=retain by default).
 */
export const tdeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    return { inputs: news, failures: core.checkTdeInputs(news, isUnknown) };
  },
  async diff(_id, olds, news) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    const d = core.diffTde(olds, news);
    return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: false };
  },
  async create(inputs) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    const { sql } = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
    const outs = await core.applyTdeInputs(sql, inputs);
    return { id: core.tdeResourceId(core.tdeRef(inputs)), outs };
  },
  async read(id, props) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    const { sql } = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
    return core.readTde(sql, id, props ?? {});
  },
  async update(_id, _olds, news) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    const { sql } = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
    return { outs: await core.applyTdeInputs(sql, news) };
  },
  async delete(_id, props) {
    const core = loadCore<typeof TdeCore>("src/resources/tde-resource");
    const { sql } = loadCore<typeof Clients>("src/runtime/azure-clients").azureClientsFromEnv();
    await core.deleteTde(sql, props);
  },
};

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
}

/** A SQL database's transparent data encryption, managed declaratively. */
export class TransparentDataEncryption extends pulumi.dynamic.Resource {
  /** The live status as last read. */
  declare readonly status: pulumi.Output<string>;
  declare readonly databaseId: pulumi.Output<string>;
  declare readonly transparentDataEncryption: pulumi.Output<string>;
  declare readonly resourceGroup: pulumi.Output<string>;
  declare readonly server: pulumi.Output<string>;
  declare readonly database: pulumi.Output<string>;

  constructor(name: string, args: TransparentDataEncryptionArgs, opts?: pulumi.CustomResourceOptions) {
    super(tdeProvider, name, { status: undefined, databaseId: undefined, ...args }, opts, "sql", "TransparentDataEncryption");
  }

  /** Adopts an existing database's TDE configuration by its ARM id. */
  static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): TransparentDataEncryption {
    return new TransparentDataEncryption(name, {} as TransparentDataEncryptionArgs, { ...opts, id });
  }
}
