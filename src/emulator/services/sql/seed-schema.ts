import { serverIdentitySeedSchema, type SqlServerIdentitySeed } from "./server-identity";
import { SERVICE_OBJECTIVE_NAMES } from "../../../services/sql/types";

/**
 * The JSON Schema of the emulator seed's `sql:` section, and its TypeScript twin.
 * Every key is documented in its `description`: optional or required, default, bounds.
 * Formats are written as patterns, so the seed validator needs no format plug-in.
 */

/** How TDE scans of one database behave. */
export interface SqlScanSeed {
  durationMs?: number;
  outcome?: "succeed" | "fail" | "stall";
  failAtPercent?: number;
  stallMs?: number;
}

/** A service tier advisor: the spec's `ServiceTierAdvisorProperties` plus its name. */
export interface SqlAdvisorSeed {
  name?: string;
  observationPeriodStart?: string;
  observationPeriodEnd?: string;
  activeTimeRatio?: number;
  minDtu?: number;
  avgDtu?: number;
  maxDtu?: number;
  maxSizeInGB?: number;
  serviceLevelObjectiveUsageMetrics?: { serviceLevelObjective: string; serviceLevelObjectiveId?: string; inRangeTimeRatio?: number }[];
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

export interface SqlDatabaseSeed {
  name: string;
  transparentDataEncryption?: "Enabled" | "Disabled";
  serviceObjective?: string;
  edition?: string;
  elasticPool?: string;
  scan?: SqlScanSeed;
  serviceTierAdvisors?: SqlAdvisorSeed[];
  /** The database's own TDE protector (a database-level customer-managed key); absent: the server's protects it. */
  encryptionProtector?: SqlDatabaseProtectorSeed;
  /** Further database-level Key Vault keys, besides its protector's. */
  keys?: SqlServerKeySeed[];
  /** The database's identity (a database has only user-assigned ones). */
  identity?: SqlDatabaseIdentitySeed;
}

/** A database's own TDE protector. */
export interface SqlDatabaseProtectorSeed {
  keyUri: string;
  autoRotationEnabled?: boolean;
}

/** A database's identity: `DatabaseIdentity` (type None or UserAssigned, and the user-assigned identities by ARM id). */
export interface SqlDatabaseIdentitySeed {
  type?: "None" | "UserAssigned";
  tenantId?: string;
  userAssignedIdentities?: Record<string, { principalId?: string; clientId?: string }>;
}

export interface SqlElasticPoolSeed {
  name: string;
  activities?: Record<string, unknown>[];
  databaseActivities?: Record<string, unknown>[];
}

/** A server's TDE protector: a Key Vault key (customer-managed), or none (service-managed, the default). */
export interface SqlEncryptionProtectorSeed {
  keyUri?: string;
  autoRotationEnabled?: boolean;
}

/** A Key Vault key the server knows besides its protector. */
export interface SqlServerKeySeed {
  uri: string;
  thumbprint?: string;
  creationDate?: string;
}

export type { SqlServerIdentitySeed };

export interface SqlServerSeed {
  name: string;
  resourceGroup: string;
  subscriptionId?: string;
  location?: string;
  databases?: SqlDatabaseSeed[];
  elasticPools?: SqlElasticPoolSeed[];
  encryptionProtector?: SqlEncryptionProtectorSeed;
  keys?: SqlServerKeySeed[];
  identity?: SqlServerIdentitySeed;
  minimalTlsVersion?: "1.0" | "1.1" | "1.2";
}

/** The `sql:` section of a seed. */
export interface SqlSeed {
  subscriptionId?: string;
  scanDurationMs?: number;
  servers?: SqlServerSeed[];
}

export const DEFAULT_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";
export const DEFAULT_LOCATION = "East US";
export const DEFAULT_SCAN_DURATION_MS = 2000;
export const DEFAULT_FAIL_AT_PERCENT = 50;
/** Editions of api-version 2014-04-01 (`DatabaseEdition`). */
export const DATABASE_EDITIONS = [
  "Web",
  "Business",
  "Basic",
  "Standard",
  "Premium",
  "PremiumRS",
  "Free",
  "Stretch",
  "DataWarehouse",
  "System",
  "System2",
] as const;

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/** RFC 3339 date-time with a zone, as the spec's `format: date-time` requires. */
const DATE_TIME = "^\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$";
const INT32 = { type: "integer", minimum: -2147483648, maximum: 2147483647 };

const uuid = (description: string) => ({ type: "string", pattern: UUID, description });
const dateTime = (description: string) => ({
  type: "string",
  pattern: DATE_TIME,
  description: `${description} RFC 3339 with a zone, e.g. 2017-02-10T02:03:06.16Z.`,
});
const int32 = (description: string) => ({ ...INT32, description });
const text = (description: string) => ({ type: "string", description });
const percent = (description: string) => ({ type: "integer", minimum: 0, maximum: 100, description });

const sloName = (description: string) => ({ type: "string", enum: SERVICE_OBJECTIVE_NAMES, description });
const sloRecommendation = (what: string) => ({
  type: "string",
  minLength: 1,
  description: `Optional: the ${what} recommendation (a service objective such as S3). Default: none (absent).`,
});
const sloId = (what: string) =>
  uuid(`Optional: the id of the ${what} service objective. Default: derived from its name (Basic and S0 as in the published example).`);
const ratio = (description: string) => ({ type: "number", minimum: 0, maximum: 1, description });
const nonNegative = (description: string) => ({ type: "number", minimum: 0, description });

const advisorSchema = {
  type: "object",
  additionalProperties: false,
  description: "A service tier advisor (the spec's ServiceTierAdvisorProperties, flat). Unset numbers are 0, as in the published example.",
  properties: {
    name: {
      type: "string",
      minLength: 1,
      pattern: "^[^/?#]+$",
      description: "Optional. Default: Current (the published example's name). Unique per database, case-insensitively.",
    },
    observationPeriodStart: dateTime("Optional. Default: 14 days before observationPeriodEnd."),
    observationPeriodEnd: dateTime("Optional. Default: the emulator clock's current hour, so the observation never grows stale."),
    activeTimeRatio: ratio("Optional, in [0, 1]. Default 0."),
    minDtu: nonNegative("Optional. Default 0."),
    avgDtu: nonNegative("Optional. Default 0."),
    maxDtu: nonNegative("Optional. Default 0."),
    maxSizeInGB: nonNegative("Optional. Default 0."),
    serviceLevelObjectiveUsageMetrics: {
      type: "array",
      description: "Optional. Default: one metric, the database's service objective in range all the time (inRangeTimeRatio 1).",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["serviceLevelObjective"],
        properties: {
          serviceLevelObjective: sloName("Required: a ServiceObjectiveName of the spec."),
          serviceLevelObjectiveId: sloId("metric's"),
          inRangeTimeRatio: ratio("Optional, in [0, 1]. Default 1."),
        },
      },
    },
    currentServiceLevelObjective: { type: "string", minLength: 1, description: "Optional. Default: the database's serviceObjective." },
    currentServiceLevelObjectiveId: sloId("current"),
    usageBasedRecommendationServiceLevelObjective: sloRecommendation("usage-based"),
    usageBasedRecommendationServiceLevelObjectiveId: sloId("usage-based recommendation's"),
    databaseSizeBasedRecommendationServiceLevelObjective: sloRecommendation("database-size-based"),
    databaseSizeBasedRecommendationServiceLevelObjectiveId: sloId("size-based recommendation's"),
    disasterPlanBasedRecommendationServiceLevelObjective: sloRecommendation("disaster-plan-based"),
    disasterPlanBasedRecommendationServiceLevelObjectiveId: sloId("disaster-plan-based recommendation's"),
    overallRecommendationServiceLevelObjective: sloRecommendation("overall"),
    overallRecommendationServiceLevelObjectiveId: sloId("overall recommendation's"),
    confidence: ratio("Optional, in [0, 1]. Default 1 (as in the published example)."),
  },
} as const;

const activityCommon = {
  endTime: dateTime("Optional: when the operation finished."),
  errorCode: int32("Optional."),
  errorMessage: text("Optional."),
  errorSeverity: int32("Optional."),
  operation: text("Optional: the operation, e.g. CREATE or UPDATE."),
  operationId: uuid(
    "Optional: the operation's id, also the activity's name. Default: a uuid derived from the activity's place in the seed (stable across runs).",
  ),
  percentComplete: percent("Optional, 0-100."),
  serverName: text("Optional. Default: the server's name."),
  startTime: dateTime("Optional: when the operation started."),
  state: text("Optional: e.g. IN_PROGRESS, COMPLETED, FAILED."),
};

const poolActivitySchema = {
  type: "object",
  additionalProperties: false,
  description: "An elastic pool activity (the spec's ElasticPoolActivityProperties).",
  properties: {
    ...activityCommon,
    requestedDatabaseDtuMax: int32("Optional."),
    requestedDatabaseDtuMin: int32("Optional."),
    requestedDtu: int32("Optional."),
    requestedElasticPoolName: text("Optional."),
    requestedStorageLimitInGB: { type: "integer", description: "Optional (int64)." },
    elasticPoolName: text("Optional. Default: the pool's name."),
    requestedStorageLimitInMB: int32("Optional."),
    requestedDatabaseDtuGuarantee: int32("Optional."),
    requestedDatabaseDtuCap: int32("Optional."),
    requestedDtuGuarantee: int32("Optional."),
  },
} as const;

const poolDatabaseActivitySchema = {
  type: "object",
  additionalProperties: false,
  required: ["databaseName"],
  description: "An activity on a database inside the pool (the spec's ElasticPoolDatabaseActivityProperties).",
  properties: {
    ...activityCommon,
    databaseName: { type: "string", minLength: 1, description: "Required: the database the operation was on." },
    requestedElasticPoolName: text("Optional."),
    currentElasticPoolName: text("Optional. Default: the pool's name."),
    currentServiceObjective: text("Optional."),
    requestedServiceObjective: text("Optional."),
  },
} as const;

const scanSchema = {
  type: "object",
  additionalProperties: false,
  description: "Optional: how TDE scans of this database behave (every scan it starts).",
  properties: {
    durationMs: {
      type: "integer",
      minimum: 0,
      maximum: 86_400_000,
      description: "Optional: how long a scan takes on the emulator clock. Default: sql.scanDurationMs.",
    },
    outcome: {
      type: "string",
      enum: ["succeed", "fail", "stall"],
      description:
        "Optional. succeed (default): the scan reaches 100%. fail: at failAtPercent it ends and the status reverts. stall: progress stops at failAtPercent for ever.",
    },
    failAtPercent: {
      type: "integer",
      minimum: 0,
      maximum: 100,
      description: "Optional: where a failing scan ends or a stalled one stops. Default 50.",
    },
    stallMs: {
      type: "integer",
      minimum: 0,
      maximum: 86_400_000,
      description:
        "Optional, for outcome stall: how long the scan stands still before it goes on, on the emulator clock. Default: for ever.",
    },
  },
} as const;

/**
 * A Key Vault key identifier: https, a vault host (3-24 letters, digits and hyphens, then the DNS
 * suffix), `/keys/<name>` (1-127 letters, digits and hyphens) and an optional 32-hex-digit version.
 */
export const KEY_VAULT_KEY_URI = "^https://[A-Za-z0-9-]{3,24}\\.[A-Za-z0-9.-]+(:443)?/keys/[A-Za-z0-9-]{1,127}(/[0-9A-Fa-f]{32})?/?$";
const keyUri = (description: string) => ({ type: "string", pattern: KEY_VAULT_KEY_URI, description });
const THUMBPRINT = { type: "string", pattern: "^[0-9A-Fa-f]{40}$" } as const;

const serverKeySchema = {
  type: "object",
  additionalProperties: false,
  required: ["uri"],
  description: "A Key Vault key the server (or database) knows, besides its protector's.",
  properties: {
    uri: keyUri("Required: the key's identifier; the server key is named <vault>_<key>_<version> (<vault>_<key> without a version)."),
    thumbprint: { ...THUMBPRINT, description: "Optional: 40 hex digits. Default: derived from the uri (stable across runs)." },
    creationDate: dateTime("Optional. Default: when the emulator's state was created."),
  },
} as const;

const databaseProtectorSchema = {
  type: "object",
  additionalProperties: false,
  required: ["keyUri"],
  description:
    "Optional: the database's own TDE protector (a database-level customer-managed key): Databases_Get reports it as properties.encryptionProtector from api-version 2022-08-01-preview on. It needs identity with one user-assigned identity (Azure requires one to reach the key). Absent: the server's protector protects the database.",
  properties: {
    keyUri: keyUri("Required: the Key Vault key https://<vault>.vault.azure.net/keys/<key>/<version> (it joins the database's keys)."),
    autoRotationEnabled: {
      type: "boolean",
      description:
        "Optional: reported as properties.encryptionProtectorAutoRotation from api-version 2023-02-01-preview on. Default false.",
    },
  },
} as const;

const USER_ASSIGNED_IDENTITY_ID =
  "^/subscriptions/[0-9a-fA-F-]{36}/resource[Gg]roups/[-\\w.()]+/providers/Microsoft\\.ManagedIdentity/userAssignedIdentities/[-\\w]+$";

const databaseIdentitySchema = {
  type: "object",
  additionalProperties: false,
  description:
    "Optional: the database's identity (DatabaseIdentity: a database has no system-assigned identity). Default: none (no identity reported).",
  properties: {
    type: {
      type: "string",
      enum: ["None", "UserAssigned"],
      description: "Optional. Default: UserAssigned when userAssignedIdentities is set, else None.",
    },
    tenantId: uuid(
      "Optional: the identity's tenant, reported when the database has a user-assigned identity. Default: a uuid derived from the subscription.",
    ),
    userAssignedIdentities: {
      type: "object",
      maxProperties: 1,
      propertyNames: { pattern: USER_ASSIGNED_IDENTITY_ID },
      description:
        "Optional: at most one user-assigned identity (Azure: MultipleIdentitiesOnDatabase), keyed by its ARM id /subscriptions/<sub>/resourceGroups/<rg>/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>.",
      additionalProperties: {
        type: "object",
        additionalProperties: false,
        properties: {
          principalId: uuid("Optional. Default: a uuid derived from the identity's id."),
          clientId: uuid("Optional. Default: a uuid derived from the identity's id."),
        },
      },
    },
  },
} as const;

const databaseSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: 128,
      // Azure's reserved characters; `master` is implicit on every server and cannot be declared.
      pattern: "^(?![Mm][Aa][Ss][Tt][Ee][Rr]$)[^<>*%&:\\\\/?#]+$",
      description:
        "Required: 1-128 characters without <>*%&:\\/?#; unique per server case-insensitively; not master (every server has an implicit master whose TDE is Disabled and cannot be changed).",
    },
    transparentDataEncryption: {
      type: "string",
      enum: ["Enabled", "Disabled"],
      description: "Optional: the TDE status. Default Disabled.",
    },
    serviceObjective: sloName(
      "Optional: the database's service objective (a ServiceObjectiveName). Default: ElasticPool when elasticPool is set, else S0.",
    ),
    edition: {
      type: "string",
      enum: DATABASE_EDITIONS,
      description:
        "Optional. Default: derived from serviceObjective (Basic, S* Standard, P* Premium, PRS* PremiumRS, DW*/DS* DataWarehouse, Free, System*; Standard in a pool).",
    },
    elasticPool: {
      type: "string",
      minLength: 1,
      description: "Optional: the elastic pool the database is in; it must be declared under this server's elasticPools.",
    },
    scan: scanSchema,
    serviceTierAdvisors: {
      type: "array",
      items: advisorSchema,
      description: "Optional: the database's service tier advisors. Default: none.",
    },
    encryptionProtector: databaseProtectorSchema,
    keys: {
      type: "array",
      items: serverKeySchema,
      description:
        "Optional: further database-level Key Vault keys (unique by uri), listed in properties.keys by Databases_Get with $expand=keys. Default: none.",
    },
    identity: databaseIdentitySchema,
  },
} as const;

const elasticPoolSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name"],
  properties: {
    name: {
      type: "string",
      minLength: 1,
      maxLength: 128,
      pattern: "^[^<>*%&:\\\\/?#]+$",
      description: "Required: unique per server, case-insensitively.",
    },
    activities: {
      type: "array",
      items: poolActivitySchema,
      description: "Optional: what ElasticPoolActivities_ListByElasticPool lists, in this order. Default: none.",
    },
    databaseActivities: {
      type: "array",
      items: poolDatabaseActivitySchema,
      description: "Optional: what ElasticPoolDatabaseActivities_ListByElasticPool lists, in this order. Default: none.",
    },
  },
} as const;

const encryptionProtectorSchema = {
  type: "object",
  additionalProperties: false,
  description:
    "Optional: the server's TDE protector (EncryptionProtectors_Get of current). Default (or {}): service-managed (serverKeyType ServiceManaged).",
  properties: {
    keyUri: keyUri(
      "Optional: a customer-managed protector, the Key Vault key https://<vault>.vault.azure.net/keys/<key>/<version> (serverKeyType AzureKeyVault; the key is added to the server's keys, named <vault>_<key>_<version>). Absent: service-managed.",
    ),
    autoRotationEnabled: {
      type: "boolean",
      description: "Optional: reported as properties.autoRotationEnabled from api-version 2020-11-01-preview on. Default false.",
    },
  },
} as const;

const serverSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "resourceGroup"],
  properties: {
    name: {
      type: "string",
      pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$",
      description:
        "Required: 1-63 lower-case letters, digits and hyphens, not starting or ending with a hyphen; unique across the estate (server names are global DNS names).",
    },
    resourceGroup: {
      type: "string",
      pattern: "^[-\\w.()]{0,89}[-\\w()]$",
      description:
        "Required: 1-90 letters, digits, underscores, hyphens, periods and parentheses, not ending with a period. The group exists because the server is in it.",
    },
    subscriptionId: uuid("Optional. Default: sql.subscriptionId."),
    location: {
      type: "string",
      minLength: 1,
      description: "Optional: reported as `location` of the server's resources. Default: East US (2014-04-01 reports display names).",
    },
    databases: {
      type: "array",
      items: databaseSchema,
      description: "Optional: the user databases. Default: none (master is always there).",
    },
    elasticPools: { type: "array", items: elasticPoolSchema, description: "Optional. Default: none." },
    encryptionProtector: encryptionProtectorSchema,
    identity: serverIdentitySeedSchema,
    minimalTlsVersion: {
      type: "string",
      enum: ["1.0", "1.1", "1.2"],
      description: "Optional: properties.minimalTlsVersion of Servers_Get (2021-11-01 on). Default: absent (the server never set one).",
    },
    keys: {
      type: "array",
      items: serverKeySchema,
      description:
        "Optional: further Key Vault keys of the server (unique by uri). Default: none. The service-managed key (ServiceManaged) is always listed.",
    },
  },
} as const;

/** The `sql:` section's schema. */
export const sqlSeedSchema = {
  type: "object",
  additionalProperties: false,
  description:
    "The Azure SQL estate the emulator serves (servers, databases, pools, TDE, advisors, each server's encryption protector and keys), at every api-version Azure publishes for each operation (specs/api-versions/Microsoft.Sql.json).",
  properties: {
    subscriptionId: uuid(`Optional: the subscription of servers that name none. Default ${DEFAULT_SUBSCRIPTION_ID}.`),
    scanDurationMs: {
      type: "integer",
      minimum: 0,
      maximum: 86_400_000,
      description: `Optional: how long a TDE scan takes on the emulator clock, unless a database's scan says otherwise. Default ${DEFAULT_SCAN_DURATION_MS}.`,
    },
    servers: { type: "array", items: serverSchema, description: "Optional. Default: none." },
  },
} as const;
