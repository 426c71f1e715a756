import type { LocalService } from "../../kit/local-service";
import type { SqlState } from "./sql-estate";
import { mountSqlResources, sqlSeedSchema, sqlStateFromSeed } from "./sql-resource";
import { sqlResources } from "./sql-resources";

export type { SqlDatabaseState, SqlServerState, SqlState } from "./sql-estate";

/** The `sql:` section of a seed, as the schema has validated it (each resource module types its own keys). */
export type SqlSeed = Record<string, unknown>;

/** Builds the state from a validated seed section; cross-references the schema cannot express are checked here. */
export function sqlInitialState(seed: SqlSeed | undefined): SqlState {
  return sqlStateFromSeed(sqlResources(), seed);
}

/**
 * Azure SQL management, under both namespace spellings: the resources of resources/ (servers,
 * databases, pools and their activities, TDE and its scans, advisors, servers' and databases' key
 * custody), each at every api-version Azure publishes for it (specs/api-versions/Microsoft.Sql.json)
 * and answered in that version's shape.
 */
export const sqlLocal: LocalService<SqlState, SqlSeed> = {
  name: "sql",
  seedSchema: sqlSeedSchema(sqlResources()),
  initialState: sqlInitialState,
  mount: (ctx) => mountSqlResources(ctx, sqlResources()),
};
