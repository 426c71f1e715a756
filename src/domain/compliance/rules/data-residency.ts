import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding, Verdict } from "../finding";
import { KIND_LABELS } from "../placement-labels";
import { defineRule, findingBase } from "../rule";

type PlacementFacts = FactMap["placements"];

/** A placement's verdict and its one-sentence message (the finding's, and `where`'s). */
export interface PlacementVerdict {
  verdict: Extract<Verdict, "pass" | "fail" | "not-applicable" | "unknown">;
  message: string;
}

/**
 * Judges one placement against its allowed countries. Pure. A country outside them fails, naming
 * the resource, its region (or a site's address) and the country; a placement without a country
 * is not applicable with the reason it could not be placed, never a pass; a location not known yet
 * (a preview) is unknown.
 */
export function judgePlacement(p: PlacementFacts): PlacementVerdict {
  const what = `${KIND_LABELS[p.kind]} ${p.label}`;
  if (p.country === UNKNOWN) return { verdict: "unknown", message: `${what}: its location is not known yet` };
  if (!p.country) return { verdict: "not-applicable", message: `${what} cannot be placed in a country: ${p.reason}` };
  const where = p.kind === "site" ? `address "${p.address ?? ""}"` : `region ${p.region ?? p.location ?? "unknown"}`;
  const allowed = p.allowedCountries.map((c) => c.toUpperCase());
  const country = p.country.toUpperCase();
  if (allowed.includes(country)) return { verdict: "pass", message: `${what} is in ${country} (${where}), an allowed country` };
  return { verdict: "fail", message: `${what} must keep its data in ${allowed.join(", ")}; it is in ${country} (${where})` };
}

/**
 * Flags a located resource (SQL database, Batch AI workspace, cluster, file server) or a named site
 * in a country the stack does not allow. The placements exist only when the stack sets
 * `stackwarden:residency`, so without one the rule has nothing to judge (it is off); with one it is
 * mandatory unless `stackwarden:policies` says otherwise.
 */
export const dataResidency = defineRule<Record<string, never>>({
  id: "data-residency",
  title: "Data must stay in the countries the stack allows",
  description:
    "Flags a SQL database (by its transparent data encryption configuration's location), a Batch AI workspace, cluster or file server (by its workspace's location), or a site of stackwarden:residency (by its geocoded address) that lies in a country outside stackwarden:residency.allowedCountries. Regions are placed by reverse geocoding their coordinates; an unknown region or an address that cannot be geocoded is not applicable, never a pass. Runs only when stackwarden:residency is set.",
  help: "Move the resource to a region in an allowed country, or add its country to stackwarden:residency.allowedCountries if data may legally live there; `stackwarden where --stack S` shows how every resource and site was placed.",
  defaultLevel: "mandatory",
  facts: ["placements"],
  settings: {},
  packScope: "stack",
  evaluate: (facts, settings) =>
    facts.placements.map((p): Finding => ({
      ...findingBase(dataResidency, p, p.id, p.label, settings.enforcementLevel),
      ...judgePlacement(p),
    })),
});
