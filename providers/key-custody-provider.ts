import type * as pulumi from "@pulumi/pulumi";
import {
  checkKeyCustodyInputs,
  KEY_CUSTODY_SOURCES,
  keyCustodyChanged,
  readKeyCustodySource,
  refreshKeyCustodySource,
  type KeyCustodySourceKind,
} from "../src/interfaces/pulumi/key-custody-sources";
import { clientSetFromEnv } from "../src/clients/client-set";
import { isUnknown } from "./unknown-value";

/**
 * A read-only dynamic provider for one key-custody data source (a TDE protector, its vault, its key;
 * loaded from dist/ by `providerText(kind)`): create and read only GET, update re-reads, delete never
 * touches the cloud object, and diff re-reads so a changed answer (a rotated key, purge protection
 * turned on, a key deleted) shows as a change in `pulumi preview --refresh` and `pulumi refresh`.
 */
export function keyCustodyProvider(kind: KeyCustodySourceKind): pulumi.dynamic.ResourceProvider {
  const spec = KEY_CUSTODY_SOURCES[kind];
  return {
    async check(_olds, news) {
      return { inputs: news, failures: checkKeyCustodyInputs(kind, news, isUnknown) };
    },
    async diff(_id, olds, news) {
      const replaces = [...spec.inputs, ...(spec.optional ?? [])].filter((k) => olds[k] !== news[k]);
      if (replaces.length) return { changes: true, replaces };
      if (spec.inputs.some((k) => isUnknown(news[k]))) return { changes: false };
      const fresh = await readKeyCustodySource(clientSetFromEnv(), kind, news);
      return { changes: keyCustodyChanged(kind, olds, fresh.outs) };
    },
    async create(inputs) {
      return readKeyCustodySource(clientSetFromEnv(), kind, inputs);
    },
    async read(id, props) {
      return refreshKeyCustodySource(clientSetFromEnv(), kind, id, props);
    },
    async update(_id, _olds, news) {
      return { outs: (await readKeyCustodySource(clientSetFromEnv(), kind, news)).outs };
    },
    async delete() {
      // A data source only reads: removing it from the stack leaves the protector, vault and key alone.
    },
  };
}
