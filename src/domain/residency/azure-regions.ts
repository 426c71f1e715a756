// The shipped region list is data of the product, loaded with the module like its code (tsc copies
// it beside the build): the domain reads no file for it.
import shippedRegions from "../../../specs/azure-regions/regions.json";

/** One Azure region as `az account list-locations` lists it. */
export interface AzureRegion {
  /** The ARM location name, e.g. `westeurope`. */
  name: string;
  /** e.g. `West Europe`. */
  displayName: string;
  latitude: number;
  longitude: number;
}

/** Where the shipped region list comes from (see specs/SOURCES.md). */
export const AZURE_REGIONS_SOURCE = "specs/azure-regions/regions.json";

let cached: AzureRegion[] | undefined;

/** The 40 regions of specs/azure-regions/regions.json, checked once; a malformed entry is an error naming it. */
export function azureRegions(): AzureRegion[] {
  if (!cached) cached = regionsOf(shippedRegions, AZURE_REGIONS_SOURCE);
  return cached;
}

/** Parses a region list (the shape `az account list-locations` prints, reduced to four fields). */
export function parseRegions(text: string, file: string): AzureRegion[] {
  return regionsOf(JSON.parse(text), file);
}

/** A region list already parsed, checked: each entry needs a name, a display name and a point on the globe. */
export function regionsOf(data: unknown, file: string): AzureRegion[] {
  if (!Array.isArray(data)) throw new Error(`${file}: expected a JSON array of regions`);
  return data.map((r: unknown, i) => {
    const o = (r ?? {}) as Record<string, unknown>;
    const ok =
      typeof o.name === "string" &&
      typeof o.displayName === "string" &&
      typeof o.latitude === "number" &&
      typeof o.longitude === "number" &&
      Math.abs(o.latitude) <= 90 &&
      Math.abs(o.longitude) <= 180;
    if (!ok) throw new Error(`${file}: region [${i}] needs name, displayName, latitude (±90) and longitude (±180)`);
    return { name: o.name, displayName: o.displayName, latitude: o.latitude, longitude: o.longitude } as AzureRegion;
  });
}

/** An ARM location written any way ARM accepts: case, spaces, hyphens and underscores do not count. */
export function regionKey(location: string): string {
  return location.toLowerCase().replace(/[\s_-]+/g, "");
}

/**
 * The region an ARM location names, by name (`westeurope`) or display name (`West Europe`),
 * case- and space-insensitively; undefined for a location the list does not hold.
 */
export function findRegion(location: string, regions: readonly AzureRegion[] = azureRegions()): AzureRegion | undefined {
  let index = regionIndexes.get(regions);
  if (!index) regionIndexes.set(regions, (index = indexRegions(regions)));
  return index.get(regionKey(location));
}

/** Each region list's regions by `regionKey` of name and display name: a fleet's locations are looked up per subject, not searched. */
const regionIndexes = new WeakMap<readonly AzureRegion[], Map<string, AzureRegion>>();

/** By name first, then display name; the first region of a key wins, as a search in list order finds it. */
function indexRegions(regions: readonly AzureRegion[]): Map<string, AzureRegion> {
  const index = new Map<string, AzureRegion>();
  for (const r of regions) {
    for (const key of [regionKey(r.name), regionKey(r.displayName)]) if (key && !index.has(key)) index.set(key, r);
  }
  return index;
}
