import type { AdvisorFacts } from "../compliance/facts";
import type { ServiceTierAdvisor } from "../../services/sql/types";

/** The advisor named `Current` (the one Azure maintains), else the first, in the rules' terms. */
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
