import { batchCluster, batchExperiment, batchFileServer, batchJobs, batchWorkspace } from "./batch-objects";
import { isDataSource, type DataSource } from "./data-source";
import { allFactKinds } from "./registry";
import { sqlServerOfProtector } from "./server-identity-source";
import { elasticPoolActivities, elasticPoolDatabaseActivities, tdeActivities } from "./sql-activities";
import { sqlDatabase } from "./sql-database-source";
import { databasesInScope } from "./databases-in-scope";

/**
 * The data sources no fact kind carries (read for the stack's inventory in Pulumi; a SQL server's
 * identity, which the TDE protectors' facts take in the pack; a database's resource, which carries a
 * database-level TDE protector and its identity; the databases of the stack's scope it does not
 * list, which the TDE status facts take in the pack), in the order
 * the program registers them after the kinds' own. A fact kind's data source comes with the kind
 * (`FactKind.carrier`): registering the kind registers it.
 */
const SOURCES_OF_NO_KIND: DataSource[] = [
  tdeActivities,
  elasticPoolActivities,
  elasticPoolDatabaseActivities,
  batchWorkspace,
  batchCluster,
  batchFileServer,
  batchExperiment,
  batchJobs,
  sqlServerOfProtector,
  sqlDatabase,
  databasesInScope,
];

/**
 * Every data source: the registered fact kinds' (in the kinds' order), then those of no kind. The
 * Pulumi program registers them from the stack, and the provider plugin finds each by its token.
 */
export function allDataSources(): DataSource[] {
  const ofKinds = allFactKinds()
    .map((k) => k.carrier)
    .filter(isDataSource);
  const all = [...ofKinds, ...SOURCES_OF_NO_KIND];
  const clash = all.find((s, i) => all.findIndex((o) => o.token === s.token) !== i);
  if (clash) throw new Error(`two data sources have the token ${clash.token}: a fact kind's carrier must have a token of its own`);
  return all;
}

/** A data source by its token (`sql:ServiceTierAdvisors`), if registered. */
export function findDataSource(token: string): DataSource | undefined {
  return allDataSources().find((s) => s.token === token);
}
