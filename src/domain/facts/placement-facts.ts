import type { PlacementFacts } from "../compliance/facts";
import type { StackConfig } from "../stack/stack-config";
import { placeStack, type ResidencySources } from "../residency/place-stack";
import type { Placement } from "../residency/placement";

/** A placement in the data-residency rule's terms: its country (none when it could not be placed) beside the allowed ones. */
export function placementFacts(p: Placement, allowedCountries: readonly string[], origin?: string): PlacementFacts {
  return {
    id: p.id,
    label: p.label,
    kind: p.kind,
    region: p.region,
    location: p.location,
    address: p.address,
    coordinates: p.coordinates,
    country: p.status === "placed" ? p.country : undefined,
    reason: p.reason,
    allowedCountries: [...allowedCountries],
    source: p.source,
    origin,
  };
}

/**
 * The placements the data-residency rule judges: none when the stack has no
 * `stackwarden:residency` (the rule is then off), else every located resource and site of the
 * stack placed through the residency engine (`placeStack`). API failures are thrown.
 */
export async function gatherPlacements(
  sources: ResidencySources,
  stack: StackConfig,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<PlacementFacts[]> {
  const residency = stack.residency;
  if (!residency) return [];
  // A resource the stack names nowhere (a Batch AI workspace found by discovery) is reported at the
  // residency section, which is what makes it a finding.
  return (await placeStack(sources, stack, opts)).map((p) =>
    placementFacts({ ...p, source: p.source ?? residency.source }, residency.allowedCountries),
  );
}
