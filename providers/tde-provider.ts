import type * as pulumi from "@pulumi/pulumi";
import { applyTdeInputs, checkTdeInputs, deleteTde, diffTde, readTde, tdeRef, tdeResourceId } from "../src/interfaces/pulumi/tde-resource";
import { clientSetFromEnv } from "../src/clients/client-set";
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
    const outs = await applyTdeInputs(clientSetFromEnv().sql, inputs);
    return { id: tdeResourceId(tdeRef(inputs)), outs };
  },
  async read(id, props) {
    return readTde(clientSetFromEnv().sql, id, props ?? {});
  },
  async update(_id, _olds, news) {
    return { outs: await applyTdeInputs(clientSetFromEnv().sql, news) };
  },
  async delete(_id, props) {
    await deleteTde(clientSetFromEnv().sql, props);
  },
};
