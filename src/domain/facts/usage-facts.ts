import type { UsageFacts } from "../compliance/facts";
import type { Usage } from "../../services/batchai/types";

/** A Batch AI usage in the rules' terms. */
export function usageFacts(subscriptionId: string, location: string, u: Usage): UsageFacts {
  return {
    subscriptionId,
    location,
    name: u.name?.value ?? "unknown",
    displayName: u.name?.localizedValue,
    currentValue: u.currentValue,
    limit: u.limit,
    unit: u.unit,
  };
}
