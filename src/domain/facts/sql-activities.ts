import { elasticPoolId, tdeConfigurationId } from "../../platform/arm/resource-id";
import { databaseSubscription } from "../stack/stack-config";
import { defineDataSource, inputsFromArmId, logicalName, type DataSourceInputs } from "./data-source";
import { databaseParamsOf } from "./read-params";
import { DATABASE_INPUTS, databaseRefOf, tdeResourceName } from "./tde-status";

/**
 * The SQL data sources no fact kind judges, read for the stack's inventory in Pulumi: the running
 * encryption scans of each database, and the activity of each elastic pool and of its databases.
 */

const POOL_INPUTS = ["subscriptionId", "resourceGroup", "server", "elasticPool"];
const poolOf = (i: DataSourceInputs) => ({
  subscriptionId: i.subscriptionId,
  resourceGroup: i.resourceGroup,
  server: i.server,
  elasticPool: i.elasticPool,
});
/** A pool's path parameters, as the spec names them. */
const poolParamsOf = (i: DataSourceInputs) => ({
  subscriptionId: i.subscriptionId,
  resourceGroupName: i.resourceGroup,
  serverName: i.server,
  elasticPoolName: i.elasticPool,
});
const scansId = (i: DataSourceInputs) => `${tdeConfigurationId(databaseRefOf(i))}/operationResults`;
const poolActivityId = (i: DataSourceInputs) => `${elasticPoolId(poolOf(i))}/elasticPoolActivity`;
const poolDatabaseActivityId = (i: DataSourceInputs) => `${elasticPoolId(poolOf(i))}/elasticPoolDatabaseActivity`;
const POOL_SEGMENTS = { server: "servers", elasticPool: "elasticPools" };

/** The running encryption or decryption scans of a database (operationResults): read after its TDE change, so the scan it started shows. */
export const tdeActivities = defineDataSource({
  token: "sql:TransparentDataEncryptionActivities",
  title: "the encryption scans of a database",
  inputs: DATABASE_INPUTS,
  output: "activities",
  read: async (c, i, signal) => ({
    id: scansId(i),
    value: (await c.reads.read("TransparentDataEncryptionActivities_ListByConfiguration", databaseParamsOf(databaseRefOf(i)), signal))
      .value,
  }),
  inputsFromId: inputsFromArmId(DATABASE_INPUTS, { server: "servers", database: "databases" }, scansId),
  instances: (stack) =>
    stack.databases.map((d) => ({
      name: `tde-activity-${logicalName(d.resourceGroup, d.server, d.database)}`,
      inputs: { subscriptionId: databaseSubscription(stack, d), resourceGroup: d.resourceGroup, server: d.server, database: d.database },
      after: tdeResourceName(d),
    })),
});

/** The activity of an elastic pool the stack names. */
export const elasticPoolActivities = defineDataSource({
  token: "sql:ElasticPoolActivities",
  title: "the activity of an elastic pool",
  inputs: POOL_INPUTS,
  output: "activities",
  read: async (c, i, signal) => ({
    id: poolActivityId(i),
    value: (await c.reads.read("ElasticPoolActivities_ListByElasticPool", poolParamsOf(i), signal)).value,
  }),
  inputsFromId: inputsFromArmId(POOL_INPUTS, POOL_SEGMENTS, poolActivityId),
  instances: (stack) =>
    stack.elasticPools.map((p) => ({
      name: `pool-activity-${logicalName(p.resourceGroup, p.server, p.elasticPool)}`,
      inputs: { subscriptionId: stack.subscriptionId, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool },
    })),
});

/** The database activity of an elastic pool the stack names. */
export const elasticPoolDatabaseActivities = defineDataSource({
  token: "sql:ElasticPoolDatabaseActivities",
  title: "the database activity of an elastic pool",
  inputs: POOL_INPUTS,
  output: "activities",
  read: async (c, i, signal) => ({
    id: poolDatabaseActivityId(i),
    value: (await c.reads.read("ElasticPoolDatabaseActivities_ListByElasticPool", poolParamsOf(i), signal)).value,
  }),
  inputsFromId: inputsFromArmId(POOL_INPUTS, POOL_SEGMENTS, poolDatabaseActivityId),
  instances: (stack) =>
    stack.elasticPools.map((p) => ({
      name: `pool-db-activity-${logicalName(p.resourceGroup, p.server, p.elasticPool)}`,
      inputs: { subscriptionId: stack.subscriptionId, resourceGroup: p.resourceGroup, server: p.server, elasticPool: p.elasticPool },
    })),
});
