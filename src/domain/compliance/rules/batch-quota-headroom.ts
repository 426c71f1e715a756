import { batchUsagesId } from "../../../platform/arm/resource-id";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type UsageFacts = FactMap["usages"];

interface QuotaHeadroomSettings {
  threshold: number;
}

/** Flags a Batch AI usage at or above `threshold` of its limit. */
export const batchQuotaHeadroom = defineRule<QuotaHeadroomSettings>({
  id: "batch-quota-headroom",
  title: "Batch AI usages must keep headroom below their limits",
  description: "Flags a Batch AI usage at or above a share of its limit (default 0.8) in a location the stack names.",
  help: "Free capacity (delete idle clusters, scale down) or ask Azure for a higher quota in that location before the next deployment needs it.",
  defaultLevel: "advisory",
  facts: ["usages"],
  settings: {
    threshold: {
      type: "number",
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.8,
      description: "optional, default 0.8: flag a usage at or above this share of its limit",
    },
  },
  packScope: "stack",
  evaluate: (facts, settings) => facts.usages.map((u) => judge(u, settings)),
});

function judge(u: UsageFacts, settings: ResolvedSettings<QuotaHeadroomSettings>): Finding {
  const label = `${u.location}/${u.name}`;
  const base = findingBase(batchQuotaHeadroom, u, batchUsagesId(u, undefined, u.name), label, settings.enforcementLevel);
  if (u.currentValue === UNKNOWN || u.limit === UNKNOWN) return { ...base, verdict: "unknown", message: "the usage is not known yet" };
  if (typeof u.limit !== "number" || typeof u.currentValue !== "number") {
    return { ...base, verdict: "not-applicable", message: "the usage has no current value or limit" };
  }
  if (u.limit <= 0) {
    return { ...base, verdict: "not-applicable", message: `the limit is ${u.limit}, so there is no headroom to judge` };
  }
  const share = u.currentValue / u.limit;
  const pct = `${Math.round(share * 1000) / 10}%`;
  const what = `${u.displayName ?? u.name} in ${u.location} uses ${u.currentValue} of ${u.limit}${u.unit && u.unit.toLowerCase() !== "count" ? ` ${u.unit.toLowerCase()}` : ""} (${pct})`;
  if (share >= settings.threshold) {
    return {
      ...base,
      verdict: "fail",
      message: `Batch AI quota must keep headroom: ${what}, at or above the ${Math.round(settings.threshold * 100)}% threshold`,
    };
  }
  return { ...base, verdict: "pass", message: what };
}
