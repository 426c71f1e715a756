import type * as pulumi from "@pulumi/pulumi";
import { checkTdeInputs, diffTde, readTde, tdeRef, tdeResourceId } from "../src/interfaces/pulumi/tde-resource";
import { deleteTdeUnderLock, writeTdeInputs } from "../src/interfaces/pulumi/tde-locked-writes";
import { clientSetFromEnv } from "../src/clients/client-set";
import { asUnreadDatabase } from "../src/interfaces/pulumi/unread-database";
import { withErrorCode } from "../src/interfaces/pulumi/provider-error";
import { isUnknown } from "./unknown-value";

/**
 * The dynamic provider of a database's TDE configuration, as the plugin calls it (loaded from
 * dist/ by `providerText("tde")`). Each method is one call into `src/interfaces/pulumi/tde-resource`
 * (the semantics: onDelete=retain by default) or, for the writes, `tde-locked-writes` (under the
 * stack's lock and audit trail, as every apply). The clients are cached per environment.
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
    const outs = await writeTdeInputs(inputs).catch((e: unknown) => {
      throw withErrorCode(asUnreadDatabase(e, inputs));
    });
    return { id: tdeResourceId(tdeRef(inputs)), outs };
  },
  async read(id, props) {
    return readTde(clientSetFromEnv().sql, id, props ?? {});
  },
  async update(_id, _olds, news) {
    const outs = await writeTdeInputs(news).catch((e: unknown) => {
      throw withErrorCode(asUnreadDatabase(e, news));
    });
    return { outs };
  },
  async delete(_id, props) {
    await deleteTdeUnderLock(props).catch((e: unknown) => {
      throw withErrorCode(e);
    });
  },
};
