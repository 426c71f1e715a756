import { distance } from "geokdbush";
import type { Address } from "../../../services/geocoding/types";
import { parseAddress, type ParsedAddress } from "./address-parser";
import { JAPANESE_CITY_NAMES, JAPANESE_PREFECTURES } from "./address-vocabulary";
import { placeAddress, streetAddress } from "./answer-shapes";
import { rankedMatches } from "./fulltext-search";
import type { FullIndexes, SpatialIndexes } from "./geocoding-indexes";
import { nameKey, PLACE_ALIASES, streetKey } from "./name-keys";
import { pageOf, type PageWindow } from "./paging";

/** How far from the resolved city a seeded street of the same name may be and still be the one meant. */
const STREET_CITY_RADIUS_KM = 30;

export interface GeocodeAnswer {
  parsed: ParsedAddress;
  result: Address[];
  message?: string;
  /** Set when only the full-text index could answer and `idx` has none: ask again with it. */
  needsFullText?: boolean;
}

/**
 * Geocodes an address: parses it, resolves the city among the GeoNames places (in the address's
 * country, preferring the state it names, then the most populous), then looks for the street in
 * the seed; a seeded house number places it at HOUSE_NUMBER level, a seeded street at STREET level,
 * else the city at CITY level. When no city is recognised the words are searched in the full-text
 * index (with spatial indexes only, the answer says it needs it). Best first; other places of the
 * same name follow.
 */
export function geocodeAddress(
  idx: SpatialIndexes | FullIndexes,
  address: string,
  countryHint: string | undefined,
  page: PageWindow,
): GeocodeAnswer {
  const parsed = parseAddress(address, countryHint);
  const cc = parsed.countrycode;
  const placeIds = resolvePlaces(idx, cityNamesOf(parsed), cc, parsed.state);
  const out: Address[] = [];
  const best = placeIds[0];
  for (const st of matchingStreets(idx, parsed, cc, best)) {
    const wanted = parsed.houseNumber ? houseKey(parsed.houseNumber) : undefined;
    const house = wanted ? st.houseNumbers?.find((h) => houseKey(h.number) === wanted) : undefined;
    out.push(streetAddress(st, { houseNumber: house, zipCode: parsed.zipCode }));
  }
  for (const id of placeIds) out.push(placeAddress(idx.places, id));
  if (out.length === 0 && !parsed.streetName) {
    // Nothing recognised as a city: search the words themselves ("Eiffel", "Dam Amsterdam").
    if (!("text" in idx)) return { parsed, result: [], needsFullText: true };
    const query = parsed.city ?? address;
    const n = idx.places.count;
    for (const { id } of rankedMatches(idx, { q: query, allWords: true, country: cc, suggest: false }).slice(0, page.offset + page.limit)) {
      out.push(id < n ? placeAddress(idx.places, id) : streetAddress(idx.streets[id - n]));
    }
  }
  const message = out.length ? undefined : `no place matched "${parsed.city ?? address}"${cc ? ` in ${cc}` : ""}`;
  return { parsed, result: pageOf(out, page), message };
}

/** The names the city may go by, best first: the city, a Japanese city or prefecture in romaji, the locality. */
function cityNamesOf(p: ParsedAddress): string[] {
  const names: string[] = [];
  if (p.city) names.push(JAPANESE_CITY_NAMES[p.city] ?? p.city);
  if (p.countrycode === "JP" && p.state) {
    const pref = JAPANESE_PREFECTURES.find((x) => x.kanji === p.state || x.romaji.toLowerCase() === p.state!.toLowerCase());
    if (pref) names.push(pref.capital);
  }
  if (p.dependentLocality) names.push(p.dependentLocality);
  return names;
}

/**
 * Place ids named by the first of `names` that names any, in country `cc` when known: those in
 * the named state first (a US state's postal code is GeoNames' admin1 code), then by population.
 */
export function resolvePlaces(idx: SpatialIndexes, names: readonly string[], cc: string | undefined, state: string | undefined): number[] {
  const { places } = idx;
  for (const name of names) {
    const key = nameKey(name);
    if (!key) continue;
    const keys = [key, PLACE_ALIASES[key], state ? `${key} ${nameKey(state)}` : undefined].filter((k): k is string => !!k);
    const ids = new Set<number>();
    for (const k of keys) for (const id of idx.byName.get(k) ?? []) if (!cc || places.country[id] === cc) ids.add(id);
    if (ids.size === 0) continue;
    const st = state?.toUpperCase();
    const rank = (id: number) => (st && places.adminCode[id] === st ? 1 : 0);
    return [...ids].sort(
      (a, b) =>
        rank(b) - rank(a) ||
        Number(places.featureCode[a] === "PPLX") - Number(places.featureCode[b] === "PPLX") ||
        places.population[b] - places.population[a] ||
        a - b,
    );
  }
  return [];
}

/** Seeded streets of the parsed name, in the parsed country, in (or near) the resolved city, or with the parsed postcode. */
function matchingStreets(idx: SpatialIndexes, p: ParsedAddress, cc: string | undefined, placeId: number | undefined) {
  if (!p.streetName) return [];
  const key = streetKey(p.streetName);
  const zip = p.zipCode ? zipKey(p.zipCode) : undefined;
  const cityKey = p.city ? nameKey(p.city) : undefined;
  const { places } = idx;
  return idx.streets.filter((st) => {
    if (streetKey(st.name) !== key) return false;
    if (cc && st.countryCode !== cc) return false;
    if (zip && (st.zipCodes ?? []).some((z) => zipKey(z) === zip)) return true;
    if (cityKey && nameKey(st.city) === cityKey) return true;
    if (placeId !== undefined) return distance(st.lng, st.lat, places.lng[placeId], places.lat[placeId]) <= STREET_CITY_RADIUS_KM;
    return false;
  });
}

function houseKey(n: string): string {
  return n.replace(/\s+/g, "").toLowerCase();
}

function zipKey(z: string): string {
  return z.replace(/[\s-]+/g, "").toUpperCase();
}
