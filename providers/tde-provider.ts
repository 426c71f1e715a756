import type * as pulumi from "@pulumi/pulumi";
import { applyTdeInputs, checkTdeInputs, deleteTde, diffTde, readTde, tdeRef, tdeResourceId } from "../src/interfaces/pulumi/tde-resource";
import { clientSetFromEnv } from "../src/clients/client-set";
import { asUnreadDatabase } from "../src/interfaces/pulumi/unread-database";
import { isUnknown } from "./unknown-value";

/**
 * The dynamic provider of a database's TDE configuration, as the plugin calls it (loaded from
 * dist/ by `providerText("tde")`). Each method is one call into `src/interfaces/pulumi/tde-resource`; see it
 * for the semantics (onDelete=retain by default). The clients are cached per environment.
 */
export const tdeProvider: pulumi.dynamic.ResourceProvider = {
  async check(_olds, news) {
    return { inputs: news, failures: checkTdeInputs(news, isUnknown) };
  },
  async diff(_id, olds, news) {
    const d = diffTde(olds, news);
    return { changes: d.changes, replaces: d.replaces, deleteBeforeReplace: false };
  },
  async create(inputs) {
    // A database the cloud does not have: at its stack-file entry, in the words every command uses.
    const outs = await applyTdeInputs(clientSetFromEnv().sql, inputs).catch((e: unknown) => {
      throw asUnreadDatabase(e, inputs);
    });
    return { id: tdeResourceId(tdeRef(inputs)), outs };
  },
  async read(id, props) {
    return readTde(clientSetFromEnv().sql, id, props ?? {});
  },
  async update(_id, _olds, news) {
    const outs = await applyTdeInputs(clientSetFromEnv().sql, news).catch((e: unknown) => {
      throw asUnreadDatabase(e, news);
    });
    return { outs };
  },
  async delete(_id, props) {
    await deleteTde(clientSetFromEnv().sql, props);
  },
};
