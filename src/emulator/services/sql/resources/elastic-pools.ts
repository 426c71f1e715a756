import { Type } from "../../../kit/seed-types";
import { elasticPoolId, type ElasticPoolRef } from "../../../../platform/arm/resource-id";
import {
  SQL_RESOURCE_TYPES,
  type ElasticPoolActivity,
  type ElasticPoolActivityProperties,
  type ElasticPoolDatabaseActivity,
  type ElasticPoolDatabaseActivityProperties,
} from "../../../../services/sql/types";
import { derivedUuid } from "../derived-uuid";
import { armChildName, dateTime, int32, text, uuid } from "../seed-formats";
import { notFound, unique, unpagedList, type SqlServerState } from "../sql-estate";
import { sqlResource, type ServerCall } from "../sql-resource";

/**
 * A server's elastic pools and what they report of their operations: ElasticPoolActivities and
 * ElasticPoolDatabaseActivities (2014-04-01), each activity seeded in the spec's own properties
 * (the state keeps them as the wire type, with the ids the service fills in). Seeded per server as
 * `elasticPools: [{ name, activities, databaseActivities }]`; databases name their pool
 * (databases.ts checks it exists).
 */

const activityCommon = {
  endTime: Type.Optional(dateTime("Optional: when the operation finished.")),
  errorCode: Type.Optional(int32("Optional.")),
  errorMessage: Type.Optional(text("Optional.")),
  errorSeverity: Type.Optional(int32("Optional.")),
  operation: Type.Optional(text("Optional: the operation, e.g. CREATE or UPDATE.")),
  operationId: Type.Optional(
    uuid(
      "Optional: the operation's id, also the activity's name. Default: a uuid derived from the activity's place in the seed (stable across runs).",
    ),
  ),
  percentComplete: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: "Optional, 0-100." })),
  serverName: Type.Optional(text("Optional. Default: the server's name.")),
  startTime: Type.Optional(dateTime("Optional: when the operation started.")),
  state: Type.Optional(text("Optional: e.g. IN_PROGRESS, COMPLETED, FAILED.")),
};

/** An activity of the pool itself: the spec's ElasticPoolActivityProperties. */
const poolActivitySeed = Type.Object(
  {
    ...activityCommon,
    requestedDatabaseDtuMax: Type.Optional(int32("Optional.")),
    requestedDatabaseDtuMin: Type.Optional(int32("Optional.")),
    requestedDtu: Type.Optional(int32("Optional.")),
    requestedElasticPoolName: Type.Optional(text("Optional.")),
    requestedStorageLimitInGB: Type.Optional(Type.Integer({ description: "Optional (int64)." })),
    elasticPoolName: Type.Optional(text("Optional. Default: the pool's name.")),
    requestedStorageLimitInMB: Type.Optional(int32("Optional.")),
    requestedDatabaseDtuGuarantee: Type.Optional(int32("Optional.")),
    requestedDatabaseDtuCap: Type.Optional(int32("Optional.")),
    requestedDtuGuarantee: Type.Optional(int32("Optional.")),
  },
  { description: "An elastic pool activity (the spec's ElasticPoolActivityProperties)." },
);

/** An activity on a database in the pool: the spec's ElasticPoolDatabaseActivityProperties. */
const poolDatabaseActivitySeed = Type.Object(
  {
    ...activityCommon,
    databaseName: Type.String({ minLength: 1, description: "Required: the database the operation was on." }),
    requestedElasticPoolName: Type.Optional(text("Optional.")),
    currentElasticPoolName: Type.Optional(text("Optional. Default: the pool's name.")),
    currentServiceObjective: Type.Optional(text("Optional.")),
    requestedServiceObjective: Type.Optional(text("Optional.")),
  },
  { description: "An activity on a database inside the pool (the spec's ElasticPoolDatabaseActivityProperties)." },
);

const elasticPoolSeed = Type.Object({
  name: armChildName("Required: unique per server, case-insensitively."),
  activities: Type.Optional(
    Type.Array(poolActivitySeed, {
      description: "Optional: what ElasticPoolActivities_ListByElasticPool lists, in this order. Default: none.",
    }),
  ),
  databaseActivities: Type.Optional(
    Type.Array(poolDatabaseActivitySeed, {
      description: "Optional: what ElasticPoolDatabaseActivities_ListByElasticPool lists, in this order. Default: none.",
    }),
  ),
});

/** A pool as the state keeps it: its activities as the wire reports them. */
export interface SqlElasticPoolState {
  name: string;
  activities: ElasticPoolActivityProperties[];
  databaseActivities: ElasticPoolDatabaseActivityProperties[];
}

declare module "../sql-estate" {
  interface SqlServerState {
    elasticPools: SqlElasticPoolState[];
  }
}

/** The resource: its seed fragment on each server, its state, the two activity lists. */
export const elasticPools = sqlResource({
  name: "elastic pools (their activities)",
  seed: { server: { elasticPools: Type.Optional(Type.Array(elasticPoolSeed, { description: "Optional. Default: none." })) } },
  state: {
    server: (f, c) => {
      const pools = (f.elasticPools ?? []).map((p): SqlElasticPoolState => {
        const id = elasticPoolId({ ...c.ref, elasticPool: p.name });
        return {
          name: p.name,
          activities: (p.activities ?? []).map((a, ai) => ({
            operationId: derivedUuid(`${id}/elasticPoolActivity/${ai}`),
            serverName: c.ref.server,
            elasticPoolName: p.name,
            ...a,
          })),
          databaseActivities: (p.databaseActivities ?? []).map((a, ai) => ({
            operationId: derivedUuid(`${id}/elasticPoolDatabaseActivity/${ai}`),
            serverName: c.ref.server,
            currentElasticPoolName: p.name,
            ...a,
          })),
        };
      });
      unique(
        pools.map((p) => p.name),
        (name, i) => `${c.at}.elasticPools[${i}].name: elastic pool "${name}" is declared twice on server "${c.ref.server}"`,
      );
      return { elasticPools: pools };
    },
  },
  routes: [
    {
      at: "server",
      method: "GET",
      path: "elasticPools/:elasticPoolName/elasticPoolActivity",
      operation: "ElasticPoolActivities_ListByElasticPool",
      handler: (call) =>
        withPool(call, (pool, ref) =>
          unpagedList(
            pool.activities.map((p): ElasticPoolActivity => ({
              id: `${elasticPoolId(ref)}/elasticPoolActivity/${p.operationId}`,
              name: p.operationId,
              type: SQL_RESOURCE_TYPES.elasticPoolActivity,
              location: call.server.location,
              properties: p,
            })),
          ),
        ),
    },
    {
      at: "server",
      method: "GET",
      path: "elasticPools/:elasticPoolName/elasticPoolDatabaseActivity",
      operation: "ElasticPoolDatabaseActivities_ListByElasticPool",
      handler: (call) =>
        withPool(call, (pool, ref) =>
          unpagedList(
            pool.databaseActivities.map((p): ElasticPoolDatabaseActivity => ({
              id: `${elasticPoolId(ref)}/elasticPoolDatabaseActivity/${p.operationId}`,
              name: p.operationId,
              type: SQL_RESOURCE_TYPES.elasticPoolDatabaseActivity,
              location: call.server.location,
              properties: p,
            })),
          ),
        ),
    },
  ],
});

/** The pool the request names (case-insensitively), or ARM's 404 naming it. */
function withPool(
  { req, server }: ServerCall,
  answer: (pool: SqlElasticPoolState, ref: ElasticPoolRef) => ReturnType<typeof unpagedList>,
): ReturnType<typeof unpagedList> {
  const lower = req.params.elasticPoolName.toLowerCase();
  const pool = poolsOf(server).find((p) => p.name.toLowerCase() === lower);
  if (!pool) return notFound(req, `${req.params.serverName}/elasticPools/${req.params.elasticPoolName}`);
  const ref = { subscriptionId: server.subscriptionId, resourceGroup: server.resourceGroup, server: server.name, elasticPool: pool.name };
  return answer(pool, ref);
}

/** A server's pools (none in state saved without them). */
export function poolsOf(server: SqlServerState): SqlElasticPoolState[] {
  return server.elasticPools ?? [];
}
