import type * as pulumi from "@pulumi/pulumi";
import {
  checkDataSourceInputs,
  DATA_SOURCES,
  dataChanged,
  readDataSource,
  refreshDataSource,
  type DataSourceKind,
} from "../src/interfaces/pulumi/data-sources";
import { clientSetFromEnv } from "../src/clients/client-set";
import { asUnreadDatabase } from "../src/interfaces/pulumi/unread-database";
import { isUnknown } from "./unknown-value";

/**
 * A read-only dynamic provider for one data-source kind (loaded from dist/ by `providerText(kind)`):
 * create and read only GET, update re-reads, delete never touches the cloud object, and diff
 * re-reads so a changed answer shows as a change (so `pulumi preview --refresh` and `pulumi
 * refresh` show drift).
 */
export function dataSourceProvider(kind: DataSourceKind): pulumi.dynamic.ResourceProvider {
  const spec = DATA_SOURCES[kind];
  return {
    async check(_olds, news) {
      return { inputs: news, failures: checkDataSourceInputs(kind, news, isUnknown) };
    },
    async diff(_id, olds, news) {
      const replaces = spec.inputs.filter((k) => olds[k] !== news[k]);
      if (replaces.length) return { changes: true, replaces };
      // An optional input (the intended serviceObjective) is carried to the outputs: a new value is an update.
      if ((spec.optional ?? []).some((k) => olds[k] !== news[k])) return { changes: true };
      if (spec.inputs.some((k) => isUnknown(news[k]))) return { changes: false };
      const fresh = await readDataSource(clientSetFromEnv(), kind, news);
      return { changes: dataChanged(kind, olds, fresh.outs) };
    },
    async create(inputs) {
      // A database the cloud does not have (the SQL data sources): in the words every command uses.
      return readDataSource(clientSetFromEnv(), kind, inputs).catch((e: unknown) => {
        throw asUnreadDatabase(e, inputs);
      });
    },
    async read(id, props) {
      return refreshDataSource(clientSetFromEnv(), kind, id, props);
    },
    async update(_id, _olds, news) {
      const read = await readDataSource(clientSetFromEnv(), kind, news).catch((e: unknown) => {
        throw asUnreadDatabase(e, news);
      });
      return { outs: read.outs };
    },
    async delete() {
      // A data source only reads: removing it from the stack leaves the cloud object alone.
    },
  };
}
