import type { SourceLocation } from "../stack/stack-config";
import { azureRegions, findRegion, type AzureRegion } from "./azure-regions";
import type { ResidencyKind, ResidencySubject } from "./residency-subjects";

export interface Coordinates {
  lat: number;
  lng: number;
}

/** What geocoding said about a point (reverse geocoding) or an address (geocoding). Plain data. */
export type GeoAnswer =
  | {
      found: true;
      /** The point: the region's own for a region, the geocoded position for an address. */
      coordinates: Coordinates;
      /** ISO 3166-1 alpha-2, or undefined when the service named no country (the open sea). */
      country?: string;
      /** The place geocoding matched or found nearest (a city, a street), for display. */
      place?: string;
      /** The geocoding level of an address match: HOUSE_NUMBER, STREET, CITY. */
      level?: string;
    }
  | { found: false; reason: string };

/** Where a resource or site is, or why it cannot be told. What a `data-residency` rule judges. */
export interface Placement {
  kind: ResidencyKind;
  id: string;
  label: string;
  /** `placed` when a country is known; `not-applicable` otherwise, with the reason (never a pass). */
  status: "placed" | "not-applicable";
  /** ISO 3166-1 alpha-2 (placed only). */
  country?: string;
  /** The canonical region name (`westeurope`), when the location names a known region. */
  region?: string;
  /** The location exactly as the API returned it (`West Europe`). */
  location?: string;
  /** Where the location came from when not from the resource itself. */
  locationFrom?: string;
  /** The site's address. */
  address?: string;
  coordinates?: Coordinates;
  /** The nearest place (regions) or the matched place (addresses). */
  place?: string;
  /** Why it is not applicable; for placed resources, how it was placed. */
  reason: string;
  source?: SourceLocation;
}

/** The lookups placing needs: the known region of each subject's location, and each site's address. */
export interface PlacementNeeds {
  regions: AzureRegion[];
  addresses: string[];
}

/** The distinct regions and addresses a list of subjects needs looked up (each once). */
export function placementNeeds(subjects: readonly ResidencySubject[], regions: readonly AzureRegion[] = azureRegions()): PlacementNeeds {
  const byName = new Map<string, AzureRegion>();
  const addresses = new Set<string>();
  for (const s of subjects) {
    if (s.kind === "site") {
      if (s.address) addresses.add(s.address);
      continue;
    }
    const r = s.location ? findRegion(s.location, regions) : undefined;
    if (r) byName.set(r.name, r);
  }
  return { regions: [...byName.values()], addresses: [...addresses] };
}

/**
 * Places each subject from the answers looked up for its region (reverse geocoding of the region's
 * point, by region name) or its address. Pure. Anything that cannot be placed (no location, a
 * location that is not a known region, a point in no country, an address that could not be
 * geocoded) is `not-applicable` with the reason, never silently placed.
 */
export function placeSubjects(
  subjects: readonly ResidencySubject[],
  answers: { regions: ReadonlyMap<string, GeoAnswer>; addresses: ReadonlyMap<string, GeoAnswer> },
  regions: readonly AzureRegion[] = azureRegions(),
): Placement[] {
  return subjects.map((s) => (s.kind === "site" ? placeSite(s, answers.addresses) : placeResource(s, answers.regions, regions)));
}

function base(s: ResidencySubject): Omit<Placement, "status" | "reason"> {
  return {
    kind: s.kind,
    id: s.id,
    label: s.label,
    location: s.location,
    locationFrom: s.locationFrom,
    address: s.address,
    source: s.source,
  };
}

function placeResource(s: ResidencySubject, answers: ReadonlyMap<string, GeoAnswer>, regions: readonly AzureRegion[]): Placement {
  const from = s.locationFrom ? ` (from ${s.locationFrom})` : "";
  if (!s.location) {
    return { ...base(s), status: "not-applicable", reason: `the API returned no location for it${from}` };
  }
  const region = findRegion(s.location, regions);
  if (!region) {
    return {
      ...base(s),
      status: "not-applicable",
      reason: `location "${s.location}"${from} is not a known Azure region (specs/azure-regions/regions.json lists ${regions.length})`,
    };
  }
  const coordinates = { lat: region.latitude, lng: region.longitude };
  const answer = answers.get(region.name);
  const at = { ...base(s), region: region.name, coordinates };
  if (!answer) return { ...at, status: "not-applicable", reason: `region ${region.name} was not looked up` };
  if (!answer.found)
    return { ...at, status: "not-applicable", reason: `region ${region.name} could not be reverse-geocoded: ${answer.reason}` };
  if (!answer.country) {
    return {
      ...at,
      status: "not-applicable",
      reason: `region ${region.name}'s point (${region.latitude}, ${region.longitude}) is in no country (open sea)`,
    };
  }
  return {
    ...at,
    status: "placed",
    country: answer.country,
    place: answer.place,
    reason: `region ${region.name}${from} at (${region.latitude}, ${region.longitude})${answer.place ? `, near ${answer.place}` : ""}`,
  };
}

function placeSite(s: ResidencySubject, answers: ReadonlyMap<string, GeoAnswer>): Placement {
  const answer = s.address ? answers.get(s.address) : undefined;
  if (!s.address || !answer) return { ...base(s), status: "not-applicable", reason: "its address was not looked up" };
  if (!answer.found) return { ...base(s), status: "not-applicable", reason: `its address could not be geocoded: ${answer.reason}` };
  const at = { ...base(s), coordinates: answer.coordinates, place: answer.place };
  if (!answer.country) return { ...at, status: "not-applicable", reason: "its address was geocoded to a point in no country" };
  return {
    ...at,
    status: "placed",
    country: answer.country,
    reason: `geocoded${answer.level ? ` at ${answer.level} level` : ""}${answer.place ? ` to ${answer.place}` : ""}`,
  };
}
