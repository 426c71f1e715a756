import { Type, type Static } from "../../../kit/seed-types";
import { sqlDatabaseId } from "../../../../platform/arm/resource-id";
import {
  DEFAULT_SERVICE_TIER_ADVISOR_NAME,
  SERVICE_OBJECTIVE_NAMES,
  SQL_RESOURCE_TYPES,
  type ServiceTierAdvisor,
  type ServiceTierAdvisorProperties,
} from "../../../../services/sql/types";
import { derivedUuid } from "../derived-uuid";
import { dateTime, uuid } from "../seed-formats";
import { dbRef, notFound, unique, unpagedList, type DatabaseEntry } from "../sql-estate";
import { sqlResource } from "../sql-resource";

/**
 * A database's service tier advisors (ServiceTierAdvisors_ListByDatabase and _Get, 2014-04-01), each
 * seeded in the spec's ServiceTierAdvisorProperties (flat) with its name, as `serviceTierAdvisors`
 * on each database; unset numbers are 0 and ids are derived, as in the published example.
 */

const sloName = (description: string) => Type.Enum(SERVICE_OBJECTIVE_NAMES, { description });
const sloRecommendation = (what: string) =>
  Type.Optional(
    Type.String({
      minLength: 1,
      description: `Optional: the ${what} recommendation (a service objective such as S3). Default: none (absent).`,
    }),
  );
const sloId = (what: string) =>
  Type.Optional(
    uuid(`Optional: the id of the ${what} service objective. Default: derived from its name (Basic and S0 as in the published example).`),
  );
const ratio = (description: string) => Type.Number({ minimum: 0, maximum: 1, description });
const nonNegative = (description: string) => Type.Optional(Type.Number({ minimum: 0, description }));

const advisorSeed = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        pattern: "^[^/?#]+$",
        description: "Optional. Default: Current (the published example's name). Unique per database, case-insensitively.",
      }),
    ),
    observationPeriodStart: Type.Optional(dateTime("Optional. Default: 14 days before observationPeriodEnd.")),
    observationPeriodEnd: Type.Optional(
      dateTime("Optional. Default: the emulator clock's current hour, so the observation never grows stale."),
    ),
    activeTimeRatio: Type.Optional(ratio("Optional, in [0, 1]. Default 0.")),
    minDtu: nonNegative("Optional. Default 0."),
    avgDtu: nonNegative("Optional. Default 0."),
    maxDtu: nonNegative("Optional. Default 0."),
    maxSizeInGB: nonNegative("Optional. Default 0."),
    serviceLevelObjectiveUsageMetrics: Type.Optional(
      Type.Array(
        Type.Object({
          serviceLevelObjective: sloName("Required: a ServiceObjectiveName of the spec."),
          serviceLevelObjectiveId: sloId("metric's"),
          inRangeTimeRatio: Type.Optional(ratio("Optional, in [0, 1]. Default 1.")),
        }),
        { description: "Optional. Default: one metric, the database's service objective in range all the time (inRangeTimeRatio 1)." },
      ),
    ),
    currentServiceLevelObjective: Type.Optional(
      Type.String({ minLength: 1, description: "Optional. Default: the database's serviceObjective." }),
    ),
    currentServiceLevelObjectiveId: sloId("current"),
    usageBasedRecommendationServiceLevelObjective: sloRecommendation("usage-based"),
    usageBasedRecommendationServiceLevelObjectiveId: sloId("usage-based recommendation's"),
    databaseSizeBasedRecommendationServiceLevelObjective: sloRecommendation("database-size-based"),
    databaseSizeBasedRecommendationServiceLevelObjectiveId: sloId("size-based recommendation's"),
    disasterPlanBasedRecommendationServiceLevelObjective: sloRecommendation("disaster-plan-based"),
    disasterPlanBasedRecommendationServiceLevelObjectiveId: sloId("disaster-plan-based recommendation's"),
    overallRecommendationServiceLevelObjective: sloRecommendation("overall"),
    overallRecommendationServiceLevelObjectiveId: sloId("overall recommendation's"),
    confidence: Type.Optional(ratio("Optional, in [0, 1]. Default 1 (as in the published example).")),
  },
  {
    description:
      "A service tier advisor (the spec's ServiceTierAdvisorProperties, flat). Unset numbers are 0, as in the published example.",
  },
);
/** A service tier advisor: the spec's `ServiceTierAdvisorProperties` plus its name. */
export type SqlAdvisorSeed = Static<typeof advisorSeed>;
/** One usage metric as seeded (its objective any name: the default one is the database's own). */
type UsageMetricSeed = Omit<NonNullable<SqlAdvisorSeed["serviceLevelObjectiveUsageMetrics"]>[number], "serviceLevelObjective"> & {
  serviceLevelObjective: string;
};

declare module "../sql-estate" {
  interface SqlDatabaseState {
    /** Its advisors, each named (`Current` unless the seed names it). */
    serviceTierAdvisors: (SqlAdvisorSeed & { name: string })[];
  }
}

/** The resource: its seed fragment on each database, its state, its two routes. */
export const serviceTierAdvisors = sqlResource({
  name: "service tier advisors",
  seed: {
    database: {
      serviceTierAdvisors: Type.Optional(
        Type.Array(advisorSeed, { description: "Optional: the database's service tier advisors. Default: none." }),
      ),
    },
  },
  state: {
    database: (f, c) => {
      const advisors = (f.serviceTierAdvisors ?? []).map((a) => ({ ...a, name: a.name ?? DEFAULT_SERVICE_TIER_ADVISOR_NAME }));
      unique(
        advisors.map((a) => a.name),
        (name, i) => `${c.at}.serviceTierAdvisors[${i}].name: advisor "${name}" is declared twice on database "${c.ref.database}"`,
      );
      return { serviceTierAdvisors: advisors };
    },
  },
  routes: [
    {
      at: "database",
      method: "GET",
      path: "serviceTierAdvisors",
      operation: "ServiceTierAdvisors_ListByDatabase",
      handler: ({ req, database }) => unpagedList(database.db.serviceTierAdvisors.map((a) => advisorResource(database, a, req.now))),
    },
    {
      at: "database",
      method: "GET",
      path: "serviceTierAdvisors/:serviceTierAdvisorName",
      operation: "ServiceTierAdvisors_Get",
      handler: ({ req, database }) => {
        const name = req.params.serviceTierAdvisorName;
        const lower = name.toLowerCase();
        const advisor = database.db.serviceTierAdvisors.find((a) => a.name.toLowerCase() === lower);
        if (!advisor) return notFound(req, `${req.params.serverName}/databases/${req.params.databaseName}/serviceTierAdvisors/${name}`);
        return { status: 200, body: advisorResource(database, advisor, req.now) };
      },
    },
  ],
});

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** A service tier advisor with the published example's shape: every field present, ids for every objective named. */
function advisorResource({ server, db }: DatabaseEntry, a: SqlAdvisorSeed & { name: string }, now: number): ServiceTierAdvisor {
  const end = a.observationPeriodEnd ?? new Date(Math.floor(now / HOUR_MS) * HOUR_MS).toISOString();
  const start = a.observationPeriodStart ?? new Date(Date.parse(end) - 14 * DAY_MS).toISOString();
  const current = a.currentServiceLevelObjective ?? db.serviceObjective;
  const p: ServiceTierAdvisorProperties = {
    observationPeriodStart: start,
    observationPeriodEnd: end,
    activeTimeRatio: a.activeTimeRatio ?? 0,
    minDtu: a.minDtu ?? 0,
    avgDtu: a.avgDtu ?? 0,
    maxDtu: a.maxDtu ?? 0,
    maxSizeInGB: a.maxSizeInGB ?? 0,
    serviceLevelObjectiveUsageMetrics: (
      (a.serviceLevelObjectiveUsageMetrics ?? [{ serviceLevelObjective: db.serviceObjective }]) as UsageMetricSeed[]
    ).map((m) => ({
      serviceLevelObjective: m.serviceLevelObjective,
      serviceLevelObjectiveId: m.serviceLevelObjectiveId ?? serviceObjectiveId(m.serviceLevelObjective),
      inRangeTimeRatio: m.inRangeTimeRatio ?? 1,
    })),
    currentServiceLevelObjective: current,
    currentServiceLevelObjectiveId: a.currentServiceLevelObjectiveId ?? serviceObjectiveId(current),
  };
  for (const kind of ["usageBased", "databaseSizeBased", "disasterPlanBased", "overall"] as const) {
    const key = `${kind}RecommendationServiceLevelObjective` as const;
    const slo = a[key];
    if (slo === undefined) continue;
    p[key] = slo;
    p[`${key}Id`] = a[`${key}Id`] ?? serviceObjectiveId(slo);
  }
  p.confidence = a.confidence ?? 1;
  return {
    id: `${sqlDatabaseId(dbRef(server, db))}/serviceTierAdvisors/${a.name}`,
    name: a.name,
    type: SQL_RESOURCE_TYPES.serviceTierAdvisor,
    properties: p,
  };
}

/** The ids the published example gives; other objectives get a stable id derived from their name. */
const KNOWN_OBJECTIVE_IDS: Record<string, string> = {
  Basic: "dd6d99bb-f193-4ec1-86f2-43d3bccbc49c",
  S0: "f1173c43-91bd-4aaa-973c-54e79e15235b",
};

function serviceObjectiveId(name: string): string {
  return KNOWN_OBJECTIVE_IDS[name] ?? derivedUuid(`serviceObjective/${name}`);
}
