import type * as pulumi from "@pulumi/pulumi";
import type { DataSource } from "../src/domain/facts/data-source";
import {
  checkDataSourceInputs,
  dataChanged,
  readDataSource,
  refreshDataSource,
  replacingInputs,
} from "../src/interfaces/pulumi/data-source-resource";
import { clientSetFromEnv } from "../src/clients/client-set";
import { asUnreadDatabase } from "../src/interfaces/pulumi/unread-database";
import { isUnknown } from "./unknown-value";

/**
 * The one read-only dynamic provider, for any declared data source (loaded from dist/ by
 * `providerText(token)`): create and read only GET, update reads again, delete never touches the
 * cloud object, and diff reads again so a changed answer shows as a change (so `pulumi preview
 * --refresh` and `pulumi refresh` show drift). A changed input that names what is read replaces
 * the resource; a changed carried input (the tier a stack intends) updates it.
 */
export function dataSourceProvider(source: DataSource): pulumi.dynamic.ResourceProvider {
  return {
    async check(_olds, news) {
      return { inputs: news, failures: checkDataSourceInputs(source, news, isUnknown) };
    },
    async diff(_id, olds, news) {
      const replaces = replacingInputs(source).filter((k) => olds[k] !== news[k]);
      if (replaces.length) return { changes: true, replaces };
      if ((source.carried ?? []).some((k) => olds[k] !== news[k])) return { changes: true };
      if (source.inputs.some((k) => isUnknown(news[k]))) return { changes: false };
      const fresh = await readDataSource(clientSetFromEnv(), source, news);
      return { changes: dataChanged(source, olds, fresh.outs) };
    },
    async create(inputs) {
      // A database the cloud does not have (the SQL data sources): in the words every command uses.
      return readDataSource(clientSetFromEnv(), source, inputs).catch((e: unknown) => {
        throw asUnreadDatabase(e, inputs);
      });
    },
    async read(id, props) {
      return refreshDataSource(clientSetFromEnv(), source, id, props);
    },
    async update(_id, _olds, news) {
      const read = await readDataSource(clientSetFromEnv(), source, news).catch((e: unknown) => {
        throw asUnreadDatabase(e, news);
      });
      return { outs: read.outs };
    },
    async delete() {
      // A data source only reads: removing it from the stack leaves the cloud object alone.
    },
  };
}
