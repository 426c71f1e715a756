import { UNKNOWN, usageResourceId, type UsageFacts } from "../facts";
import type { Finding } from "../finding";
import type { QuotaHeadroomSettings } from "../rule-settings";
import type { SourceLocation } from "../../config/stack-config";

export const BATCH_QUOTA_HEADROOM = "batch-quota-headroom" as const;

/** Flags a Batch AI usage at or above `threshold` of its limit. */
export function batchQuotaHeadroom(
  subscriptionId: string,
  u: UsageFacts,
  settings: QuotaHeadroomSettings,
  source?: SourceLocation,
): Finding {
  const label = `${u.location}/${u.name}`;
  const base = {
    ruleId: BATCH_QUOTA_HEADROOM,
    resourceId: usageResourceId(subscriptionId, u),
    label,
    level: settings.enforcementLevel,
    source,
  };
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
