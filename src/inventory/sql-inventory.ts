import { mapBounded } from "../concurrency/bounded-map";
import type { StackConfig } from "../config/stack-config";
import type { SqlClient } from "../services/sql/client";
import type {
  ElasticPoolActivity,
  ElasticPoolDatabaseActivity,
  ServiceTierAdvisor,
  TransparentDataEncryption,
  TransparentDataEncryptionActivity,
} from "../services/sql/types";

/** The SQL data sources a stack names, each an array of objects exactly as the API returned them. */
export interface SqlInventory {
  serviceTierAdvisors: ServiceTierAdvisor[];
  elasticPoolActivities: ElasticPoolActivity[];
  elasticPoolDatabaseActivities: ElasticPoolDatabaseActivity[];
  transparentDataEncryptions: TransparentDataEncryption[];
  transparentDataEncryptionActivities: TransparentDataEncryptionActivity[];
}

/** Reads, for each database of the stack, its TDE, scans and advisors; for each pool, its activity. */
export async function collectSqlInventory(
  sql: SqlClient,
  stack: Pick<StackConfig, "subscriptionId" | "databases" | "elasticPools">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<SqlInventory> {
  const limit = opts.concurrency ?? 8;
  const s = opts.signal;
  const perDb = await mapBounded(stack.databases, limit, async (d) => {
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: d.resourceGroup, server: d.server, database: d.database };
    const [tde, activities, advisors] = await Promise.all([
      sql.getTransparentDataEncryption(ref, s),
      sql.listTransparentDataEncryptionActivities(ref, s),
      sql.listServiceTierAdvisors(ref, s),
    ]);
    return { tde, activities, advisors };
  });
  const perPool = await mapBounded(stack.elasticPools, limit, async (p) => {
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool };
    const [activities, databaseActivities] = await Promise.all([
      sql.listElasticPoolActivities(ref, s),
      sql.listElasticPoolDatabaseActivities(ref, s),
    ]);
    return { activities, databaseActivities };
  });
  return {
    serviceTierAdvisors: perDb.flatMap((x) => x.advisors),
    elasticPoolActivities: perPool.flatMap((x) => x.activities),
    elasticPoolDatabaseActivities: perPool.flatMap((x) => x.databaseActivities),
    transparentDataEncryptions: perDb.map((x) => x.tde),
    transparentDataEncryptionActivities: perDb.flatMap((x) => x.activities),
  };
}
