import { databaseLabel } from "../../../platform/arm/resource-id";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import { defineDriftSection } from "../drift-section";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type TierAdvisorFacts = FactMap["tierAdvisors"];

interface TierAdvisorDriftSettings {
  minConfidence: number;
  maxObservationAgeDays: number;
}

const DAY_MS = 24 * 3600_000;

/** Drift's section of this rule: a database's advisor disagrees with its tier. Its entries never named the rule, the only one in it. */
const TIER_ADVISOR_DRIFT = defineDriftSection({ key: "tierAdvisor", heading: "Tier advisor", namesRule: false });

/**
 * Flags a database when its service tier advisor recommends another service objective than the
 * intended one (or the current one where none is intended), with confidence at or above
 * `minConfidence`, from an observation period that ended within `maxObservationAgeDays`.
 * No advisor output is "not applicable", never a pass.
 */
export const sqlTierAdvisorDrift = defineRule<TierAdvisorDriftSettings>({
  id: "sql-tier-advisor-drift",
  title: "SQL databases should run at the tier their service tier advisor recommends",
  description:
    "Flags a database whose service tier advisor recommends a different service objective than the intended (or current) one, with confidence at or above the threshold, from a recent observation period.",
  help: "Review the advisor's recommendation; set the database's serviceObjective in the stack to the recommended tier, or raise minConfidence under stackwarden:policies if the advice is not wanted.",
  defaultLevel: "advisory",
  facts: ["tierAdvisors"],
  settings: {
    minConfidence: {
      type: "number",
      minimum: 0,
      maximum: 1,
      default: 0.8,
      description: "optional, default 0.8: the advisor's confidence at or above which a differing recommendation is flagged",
    },
    maxObservationAgeDays: {
      type: "number",
      exclusiveMinimum: 0,
      default: 30,
      description: "optional, default 30: ignore advisor output whose observation period ended longer ago",
    },
  },
  packScope: "stack",
  drift: TIER_ADVISOR_DRIFT,
  evaluate: (facts, settings, now) => facts.tierAdvisors.map((a) => judge(a, settings, now)),
});

function judge(db: TierAdvisorFacts, settings: ResolvedSettings<TierAdvisorDriftSettings>, now: number): Finding {
  const label = databaseLabel(db);
  const base = findingBase(sqlTierAdvisorDrift, db, db.id, label, settings.enforcementLevel);
  if (db.advisor === UNKNOWN) return { ...base, verdict: "unknown", message: "the service tier advisor's output is not known yet" };
  const a = db.advisor;
  if (!a)
    return {
      ...base,
      verdict: "not-applicable",
      message: "no service tier advisor output for this database, so tier drift cannot be judged",
      absent: "no service tier advisor output",
    };
  const recommended = a.overallRecommendationServiceLevelObjective;
  if (!recommended)
    return {
      ...base,
      verdict: "not-applicable",
      message: "the service tier advisor gives no overall recommendation",
      absent: "no overall recommendation from the advisor",
    };

  const intended = db.intendedServiceObjective;
  const compareTo = intended ?? a.currentServiceLevelObjective;
  const what = intended ? "intended" : "current";
  if (!compareTo)
    return { ...base, verdict: "not-applicable", message: "neither an intended nor a current service objective is known to compare with" };

  const confidence = typeof a.confidence === "number" && Number.isFinite(a.confidence) ? a.confidence : 0;
  const end = a.observationPeriodEnd ? Date.parse(a.observationPeriodEnd) : NaN;
  if (Number.isNaN(end))
    return {
      ...base,
      verdict: "not-applicable",
      message: "the advisor's observation period has no valid end date, so its age cannot be judged",
    };
  const ageDays = (now - end) / DAY_MS;

  if (sameObjective(recommended, compareTo)) {
    return { ...base, verdict: "pass", message: `the advisor recommends ${recommended}, the ${what} objective` };
  }
  const detail = `the advisor recommends ${recommended} but the ${what} service objective is ${compareTo} (confidence ${formatConfidence(confidence)})`;
  if (confidence < settings.minConfidence) {
    return { ...base, verdict: "pass", message: `${detail}; below the ${formatConfidence(settings.minConfidence)} threshold` };
  }
  if (ageDays > settings.maxObservationAgeDays) {
    return {
      ...base,
      verdict: "pass",
      message: `${detail}; the observation ended ${Math.floor(ageDays)} days ago, older than ${settings.maxObservationAgeDays} days`,
    };
  }
  return { ...base, verdict: "fail", message: `Database ${label} should run at the advisor's tier: ${detail}` };
}

function sameObjective(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function formatConfidence(c: number): string {
  return String(Math.round(c * 100) / 100);
}
