import { mapBounded } from "../../platform/bounded-map";
import { databaseSubscription } from "../stack/stack-config";
import type { StackConfig } from "../stack/stack-config";
import {
  databaseLabel,
  elasticPoolId,
  elasticPoolLabel,
  oddResourceId,
  sqlDatabaseId,
  tdeConfigurationId,
  type DatabaseRef,
  type ElasticPoolRef,
  type ServerRef,
} from "../../platform/arm/resource-id";
import type { EncryptionProtector, ServerKey } from "../../services/sql/key-custody-types";
import { stackServers } from "../facts/key-custody-reads";
import type {
  ElasticPoolActivity,
  ElasticPoolDatabaseActivity,
  ServiceTierAdvisor,
  TransparentDataEncryption,
  TransparentDataEncryptionActivity,
} from "../../services/sql/types";
import { inventoryError, type InventoryError, type InventoryWarning } from "./read-problems";

/** The reads of the SQL inventory: the SQL client satisfies it (the domain names no client class). */
export interface SqlInventoryReads {
  getTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryption>;
  listTransparentDataEncryptionActivities(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryptionActivity[]>;
  listServiceTierAdvisors(db: DatabaseRef, signal?: AbortSignal): Promise<ServiceTierAdvisor[]>;
  listElasticPoolActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolActivity[]>;
  listElasticPoolDatabaseActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolDatabaseActivity[]>;
  listEncryptionProtectors(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector[]>;
  listServerKeys(server: ServerRef, signal?: AbortSignal): Promise<ServerKey[]>;
}

/** The SQL data sources a stack names, each an array of objects exactly as the API returned them. */
export interface SqlInventory {
  serviceTierAdvisors: ServiceTierAdvisor[];
  elasticPoolActivities: ElasticPoolActivity[];
  elasticPoolDatabaseActivities: ElasticPoolDatabaseActivity[];
  transparentDataEncryptions: TransparentDataEncryption[];
  transparentDataEncryptionActivities: TransparentDataEncryptionActivity[];
  /** Each server's TDE protector (one per server of the stack's databases). */
  encryptionProtectors: EncryptionProtector[];
  /** The keys each server knows (the service-managed one, and any Key Vault keys added). */
  serverKeys: ServerKey[];
}

/** The SQL inventory plus what could not be read and what was odd. */
export interface SqlInventoryResult {
  inventory: SqlInventory;
  /** One entry per read that failed (a database the cloud does not have, a refused read …). */
  errors: InventoryError[];
  /** Items kept although their id is missing or odd. */
  warnings: InventoryWarning[];
}

/**
 * Reads, for each database of the stack, its TDE, scans and advisors; for each pool, its activity;
 * for each server of those databases, its TDE protector and server keys.
 * Each read stands alone: one that fails becomes an entry of `errors` (naming the resource and the
 * stack file's line) and every other read still happens and is returned.
 */
export async function collectSqlInventory(
  sql: SqlInventoryReads,
  stack: Pick<StackConfig, "subscriptionId" | "databases" | "elasticPools">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<SqlInventoryResult> {
  const limit = opts.concurrency ?? 8;
  const s = opts.signal;
  const errors: InventoryError[] = [];
  const warnings: InventoryWarning[] = [];
  /** One read: its result, or [] with an error noted. */
  async function read<T extends object>(resource: string, id: string, at: string, f: () => Promise<T | T[]>): Promise<T[]> {
    let got: T | T[];
    try {
      got = await f();
    } catch (e) {
      const err = inventoryError(resource, id, e);
      errors.push(at ? { ...err, location: at } : err);
      return [];
    }
    const items = Array.isArray(got) ? got : [got];
    for (const it of items) {
      const odd = oddResourceId(it);
      if (odd) warnings.push({ resource, id, message: `an item ${odd}; it is kept as the API returned it` });
    }
    return items;
  }
  const perDb = await mapBounded(stack.databases, limit, async (d) => {
    const ref = { subscriptionId: databaseSubscription(stack, d), resourceGroup: d.resourceGroup, server: d.server, database: d.database };
    const label = databaseLabel(ref);
    const at = d.source ? `${d.source.file}:${d.source.line}:${d.source.column}` : "";
    const [tde, activities, advisors] = await Promise.all([
      read(`transparentDataEncryption of ${label}`, tdeConfigurationId(ref), at, () => sql.getTransparentDataEncryption(ref, s)),
      read(`transparentDataEncryption activities of ${label}`, `${tdeConfigurationId(ref)}/operationResults`, at, () =>
        sql.listTransparentDataEncryptionActivities(ref, s),
      ),
      read(`serviceTierAdvisors of ${label}`, `${sqlDatabaseId(ref)}/serviceTierAdvisors`, at, () => sql.listServiceTierAdvisors(ref, s)),
    ]);
    return { tde, activities, advisors };
  });
  const perPool = await mapBounded(stack.elasticPools, limit, async (p) => {
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool };
    const label = elasticPoolLabel(ref);
    const at = p.source ? `${p.source.file}:${p.source.line}:${p.source.column}` : "";
    const [activities, databaseActivities] = await Promise.all([
      read(`elasticPoolActivity of ${label}`, `${elasticPoolId(ref)}/elasticPoolActivity`, at, () => sql.listElasticPoolActivities(ref, s)),
      read(`elasticPoolDatabaseActivity of ${label}`, `${elasticPoolId(ref)}/elasticPoolDatabaseActivity`, at, () =>
        sql.listElasticPoolDatabaseActivities(ref, s),
      ),
    ]);
    return { activities, databaseActivities };
  });
  const perServer = await mapBounded(stackServers(stack), limit, async (srv) => {
    const ref = { subscriptionId: srv.subscriptionId, resourceGroup: srv.resourceGroup, server: srv.server };
    const at = srv.source ? `${srv.source.file}:${srv.source.line}:${srv.source.column}` : "";
    const [protectors, keys] = await Promise.all([
      read(`encryptionProtector of ${srv.label}`, `${srv.id}/encryptionProtector`, at, () => sql.listEncryptionProtectors(ref, s)),
      read(`keys of ${srv.label}`, `${srv.id}/keys`, at, () => sql.listServerKeys(ref, s)),
    ]);
    return { protectors, keys };
  });
  return {
    inventory: {
      serviceTierAdvisors: perDb.flatMap((x) => x.advisors),
      elasticPoolActivities: perPool.flatMap((x) => x.activities),
      elasticPoolDatabaseActivities: perPool.flatMap((x) => x.databaseActivities),
      transparentDataEncryptions: perDb.flatMap((x) => x.tde),
      transparentDataEncryptionActivities: perDb.flatMap((x) => x.activities),
      encryptionProtectors: perServer.flatMap((x) => x.protectors),
      serverKeys: perServer.flatMap((x) => x.keys),
    },
    errors: errors.sort((a, b) => (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0)),
    warnings,
  };
}
