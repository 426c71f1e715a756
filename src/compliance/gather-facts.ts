import { mapBounded } from "../concurrency/bounded-map";
import type { StackConfig } from "../config/stack-config";
import { databaseResourceId } from "../reconcile/tde-api";
import type { BatchAiClient } from "../services/batchai/client";
import type { SqlClient } from "../services/sql/client";
import type { ServiceTierAdvisor } from "../services/sql/types";
import type { AdvisorFacts, ComplianceFacts, DatabaseFacts, UsageFacts } from "./facts";

export interface FactSources {
  sql: Pick<SqlClient, "getTransparentDataEncryption" | "listServiceTierAdvisors">;
  batch: Pick<BatchAiClient, "listUsages">;
}

/** Reads the live state the rules judge: each database's TDE and advisors, each location's usages. */
export async function gatherFacts(
  sources: FactSources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ComplianceFacts> {
  const limit = opts.concurrency ?? 16;
  const databases = await mapBounded(stack.databases, limit, async (d): Promise<DatabaseFacts> => {
    const ref = { subscriptionId: stack.subscriptionId, resourceGroup: d.resourceGroup, server: d.server, database: d.database };
    const [tde, advisors] = await Promise.all([
      sources.sql.getTransparentDataEncryption(ref, opts.signal),
      sources.sql.listServiceTierAdvisors(ref, opts.signal),
    ]);
    return {
      id: databaseResourceId(ref),
      resourceGroup: d.resourceGroup,
      server: d.server,
      database: d.database,
      liveTdeStatus: tde.properties?.status,
      intendedServiceObjective: d.serviceObjective,
      advisor: pickAdvisor(advisors),
      source: d.source,
    };
  });
  const perLocation = await mapBounded(stack.batch.locations, limit, async (location) =>
    (await sources.batch.listUsages(stack.subscriptionId, location, opts.signal)).map((u): UsageFacts => ({
      location,
      name: u.name?.value ?? "unknown",
      displayName: u.name?.localizedValue,
      currentValue: u.currentValue,
      limit: u.limit,
      unit: u.unit,
    })),
  );
  return { subscriptionId: stack.subscriptionId, databases, usages: perLocation.flat(), batchSource: stack.batch.source };
}

/** The advisor named `Current` (the one Azure maintains), else the first. */
export function pickAdvisor(advisors: readonly ServiceTierAdvisor[]): AdvisorFacts | undefined {
  const a = advisors.find((x) => x.name?.toLowerCase() === "current") ?? advisors[0];
  if (!a?.properties) return undefined;
  const p = a.properties as Record<string, unknown>;
  return {
    name: a.name,
    overallRecommendationServiceLevelObjective: str(p.overallRecommendationServiceLevelObjective),
    currentServiceLevelObjective: str(p.currentServiceLevelObjective),
    confidence: typeof p.confidence === "number" ? p.confidence : undefined,
    observationPeriodEnd: str(p.observationPeriodEnd),
  };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v ? v : undefined;
}
