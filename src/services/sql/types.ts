/**
 * Types of the SQL management slice at api-version 2014-04-01, from
 * specs/sql/Microsoft.Sql/stable/2014-04-01/sql.core.json (the definitions are identical in
 * sql.core_legacy.json) and specs/sql/common/v1/types.json.
 *
 * Objects are typed as they travel on the wire: ARM envelope (`id`, `name`, `type`, `location`)
 * with the resource's fields under `properties` (the spec's `x-ms-client-flatten` is an SDK
 * convenience, not the wire format). Every spec field is optional, except `id`: the client
 * refuses a resource object without one, so what it hands on always has it.
 * Enums the spec marks `modelAsString` are open (`KnownX | (string & {})`): new values arrive
 * without notice and are carried through.
 */

/** The spec document the seven operations live in. */
export const SQL_SPEC = "sql/Microsoft.Sql/stable/2014-04-01/sql.core.json";
/** The api-version the client sends and the emulator accepts. */
export const SQL_API_VERSION = "2014-04-01";

/** The only name a database's TDE configuration has (`TransparentDataEncryptionNameParameter`). */
export { TDE_CONFIGURATION_NAME } from "../../platform/arm/resource-id";
/** The name of the service tier advisor in the published example. */
export const DEFAULT_SERVICE_TIER_ADVISOR_NAME = "Current";
/** Every Azure SQL server has this system database; its TDE is always Disabled. */
export const MASTER_DATABASE = "master";

/** The spec's operationIds: the operation names in errors and logs. */
export const SQL_OPERATIONS = {
  listServiceTierAdvisors: "ServiceTierAdvisors_ListByDatabase",
  getServiceTierAdvisor: "ServiceTierAdvisors_Get",
  listElasticPoolActivities: "ElasticPoolActivities_ListByElasticPool",
  listElasticPoolDatabaseActivities: "ElasticPoolDatabaseActivities_ListByElasticPool",
  getTransparentDataEncryption: "TransparentDataEncryptions_Get",
  putTransparentDataEncryption: "TransparentDataEncryptions_CreateOrUpdate",
  listTransparentDataEncryptionActivities: "TransparentDataEncryptionActivities_ListByConfiguration",
} as const;
export type SqlOperation = (typeof SQL_OPERATIONS)[keyof typeof SQL_OPERATIONS];

/** ARM resource types, as the service writes them in `type`. */
export const SQL_RESOURCE_TYPES = {
  serviceTierAdvisor: "Microsoft.Sql/servers/databases/serviceTierAdvisors",
  elasticPoolActivity: "Microsoft.Sql/servers/elasticPools/elasticPoolActivity",
  elasticPoolDatabaseActivity: "Microsoft.Sql/servers/elasticPools/elasticPoolDatabaseActivity",
  transparentDataEncryption: "Microsoft.Sql/servers/databases/transparentDataEncryption",
  transparentDataEncryptionActivity: "Microsoft.Sql/servers/databases/transparentDataEncryption/operationResults",
} as const;

/** `TransparentDataEncryptionStatus` (a closed enum in the spec). */
export const TDE_STATUSES = ["Enabled", "Disabled"] as const;
export type TransparentDataEncryptionStatus = (typeof TDE_STATUSES)[number];

/** `TransparentDataEncryptionActivityStatus` (modelAsString: open). */
export const TDE_ACTIVITY_STATUSES = ["Encrypting", "Decrypting"] as const;
export type TransparentDataEncryptionActivityStatus = (typeof TDE_ACTIVITY_STATUSES)[number] | (string & {});

/** `ServiceObjectiveName`, the known values of `SloUsageMetric.serviceLevelObjective` (modelAsString: open). */
export const SERVICE_OBJECTIVE_NAMES = [
  "System",
  "System0",
  "System1",
  "System2",
  "System3",
  "System4",
  "System2L",
  "System3L",
  "System4L",
  "Free",
  "Basic",
  "S0",
  "S1",
  "S2",
  "S3",
  "S4",
  "S6",
  "S7",
  "S9",
  "S12",
  "P1",
  "P2",
  "P3",
  "P4",
  "P6",
  "P11",
  "P15",
  "PRS1",
  "PRS2",
  "PRS4",
  "PRS6",
  "DW100",
  "DW200",
  "DW300",
  "DW400",
  "DW500",
  "DW600",
  "DW1000",
  "DW1200",
  "DW1000c",
  "DW1500",
  "DW1500c",
  "DW2000",
  "DW2000c",
  "DW3000",
  "DW2500c",
  "DW3000c",
  "DW6000",
  "DW5000c",
  "DW6000c",
  "DW7500c",
  "DW10000c",
  "DW15000c",
  "DW30000c",
  "DS100",
  "DS200",
  "DS300",
  "DS400",
  "DS500",
  "DS600",
  "DS1000",
  "DS1200",
  "DS1500",
  "DS2000",
  "ElasticPool",
] as const;
export type ServiceObjectiveName = (typeof SERVICE_OBJECTIVE_NAMES)[number] | (string & {});

/** `Resource` / `ProxyResource` of the common types; `id` is guaranteed by the client. */
export interface SqlProxyResource {
  id: string;
  name?: string;
  type?: string;
}

/** `SloUsageMetric` */
export interface SloUsageMetric {
  serviceLevelObjective?: ServiceObjectiveName;
  /** uuid */
  serviceLevelObjectiveId?: string;
  inRangeTimeRatio?: number;
}

/** `ServiceTierAdvisorProperties`; date-times are ISO 8601 strings, `*Id` fields are uuids. */
export interface ServiceTierAdvisorProperties {
  observationPeriodStart?: string;
  observationPeriodEnd?: string;
  activeTimeRatio?: number;
  minDtu?: number;
  avgDtu?: number;
  maxDtu?: number;
  maxSizeInGB?: number;
  serviceLevelObjectiveUsageMetrics?: SloUsageMetric[];
  currentServiceLevelObjective?: string;
  currentServiceLevelObjectiveId?: string;
  usageBasedRecommendationServiceLevelObjective?: string;
  usageBasedRecommendationServiceLevelObjectiveId?: string;
  databaseSizeBasedRecommendationServiceLevelObjective?: string;
  databaseSizeBasedRecommendationServiceLevelObjectiveId?: string;
  disasterPlanBasedRecommendationServiceLevelObjective?: string;
  disasterPlanBasedRecommendationServiceLevelObjectiveId?: string;
  overallRecommendationServiceLevelObjective?: string;
  overallRecommendationServiceLevelObjectiveId?: string;
  confidence?: number;
}

/** `ServiceTierAdvisor` (no `location` in the spec). */
export interface ServiceTierAdvisor extends SqlProxyResource {
  properties?: ServiceTierAdvisorProperties;
}

/** `ElasticPoolActivityProperties`; integers are int32 except `requestedStorageLimitInGB` (int64). */
export interface ElasticPoolActivityProperties {
  endTime?: string;
  errorCode?: number;
  errorMessage?: string;
  errorSeverity?: number;
  operation?: string;
  /** uuid */
  operationId?: string;
  percentComplete?: number;
  requestedDatabaseDtuMax?: number;
  requestedDatabaseDtuMin?: number;
  requestedDtu?: number;
  requestedElasticPoolName?: string;
  requestedStorageLimitInGB?: number;
  elasticPoolName?: string;
  serverName?: string;
  startTime?: string;
  state?: string;
  requestedStorageLimitInMB?: number;
  requestedDatabaseDtuGuarantee?: number;
  requestedDatabaseDtuCap?: number;
  requestedDtuGuarantee?: number;
}

/** `ElasticPoolActivity` */
export interface ElasticPoolActivity extends SqlProxyResource {
  location?: string;
  properties?: ElasticPoolActivityProperties;
}

/** `ElasticPoolDatabaseActivityProperties` */
export interface ElasticPoolDatabaseActivityProperties {
  databaseName?: string;
  endTime?: string;
  errorCode?: number;
  errorMessage?: string;
  errorSeverity?: number;
  operation?: string;
  /** uuid */
  operationId?: string;
  percentComplete?: number;
  requestedElasticPoolName?: string;
  currentElasticPoolName?: string;
  currentServiceObjective?: string;
  requestedServiceObjective?: string;
  serverName?: string;
  startTime?: string;
  state?: string;
}

/** `ElasticPoolDatabaseActivity` */
export interface ElasticPoolDatabaseActivity extends SqlProxyResource {
  location?: string;
  properties?: ElasticPoolDatabaseActivityProperties;
}

/** `TransparentDataEncryptionProperties` */
export interface TransparentDataEncryptionProperties {
  status?: TransparentDataEncryptionStatus;
}

/** `TransparentDataEncryption`: a database's TDE configuration (always named `current`). */
export interface TransparentDataEncryption extends SqlProxyResource {
  location?: string;
  properties?: TransparentDataEncryptionProperties;
}

/** `TransparentDataEncryptionActivityProperties`: `percentComplete` is a float in [0, 100]. */
export interface TransparentDataEncryptionActivityProperties {
  status?: TransparentDataEncryptionActivityStatus;
  percentComplete?: number;
}

/** `TransparentDataEncryptionActivity`: one running encryption or decryption scan. */
export interface TransparentDataEncryptionActivity extends SqlProxyResource {
  location?: string;
  properties?: TransparentDataEncryptionActivityProperties;
}

/** The list envelopes (`*ListResult`): `value` is required; 2014-04-01 sends no `nextLink`. */
export interface SqlListResult<T> {
  value: T[];
  nextLink?: string;
}
export type ServiceTierAdvisorListResult = SqlListResult<ServiceTierAdvisor>;
export type ElasticPoolActivityListResult = SqlListResult<ElasticPoolActivity>;
export type ElasticPoolDatabaseActivityListResult = SqlListResult<ElasticPoolDatabaseActivity>;
export type TransparentDataEncryptionActivityListResult = SqlListResult<TransparentDataEncryptionActivity>;

/** The body of `TransparentDataEncryptions_CreateOrUpdate`. */
export interface TransparentDataEncryptionPutBody {
  properties: { status: TransparentDataEncryptionStatus };
}

/** Databases and pools are addressed by their place in ARM. */
export type { DatabaseRef, ElasticPoolRef } from "../../platform/arm/resource-id";
