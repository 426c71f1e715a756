import type { Placement } from "./placement";
import { KIND_LABELS } from "./residency-subjects";

/** A placement judged against the countries a stack allows. */
export interface ResidencyVerdict {
  verdict: "pass" | "violation" | "not-applicable";
  placement: Placement;
  /** One sentence: the rule's message for a violation, the reason for not-applicable, the country for a pass. */
  message: string;
}

/**
 * Judges one placement against `allowedCountries` (ISO alpha-2, upper case): a country outside
 * them is a violation naming the resource, its region (or address) and the country; a placement
 * without a country is not applicable, with its reason, and never a pass. Pure.
 */
export function judgePlacement(p: Placement, allowedCountries: readonly string[]): ResidencyVerdict {
  const what = `${KIND_LABELS[p.kind]} ${p.label}`;
  const where = p.kind === "site" ? `address "${p.address ?? ""}"` : `region ${p.region ?? p.location ?? "?"}`;
  if (p.status !== "placed" || !p.country) {
    return { verdict: "not-applicable", placement: p, message: `${what} cannot be placed in a country: ${p.reason}` };
  }
  const allowed = allowedCountries.map((c) => c.toUpperCase());
  if (allowed.includes(p.country.toUpperCase())) {
    return { verdict: "pass", placement: p, message: `${what} is in ${p.country} (${where}), an allowed country` };
  }
  return {
    verdict: "violation",
    placement: p,
    message: `data must stay in ${allowed.join(", ")}: ${what} is in ${p.country} (${where})`,
  };
}
