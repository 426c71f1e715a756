import { around, distance } from "geokdbush";
import type { Address, GisFeatureDistance, StreetDistance } from "../../../services/geocoding/types";
import { placeAddress, placeFeature, placeTypeOf, streetAddress, streetDistance } from "./answer-shapes";
import { countryName } from "../../../services/geocoding/country-codes";
import { countryAt } from "./country-lookup";
import type { SpatialIndexes } from "./geocoding-indexes";
import { pageOf, type PageWindow } from "./paging";
import type { StreetRecord } from "./street-records";

/** How far reverse geocoding looks for a place in the point's country. */
export const REVERSE_PLACE_RADIUS_KM = 100;
/** How far reverse geocoding looks for a seeded street. */
export const REVERSE_STREET_RADIUS_KM = 1;

/**
 * The addresses at a point, nearest first: seeded streets within 1 km, then places within 100 km,
 * all in the country the point itself is in (country-coder's borders), so a point near a border
 * is never given the neighbour's town, and a point between towns still gets its country (a
 * COUNTRY-level answer when no place is near). The open sea gets no answer.
 */
export function reverseGeocode(idx: SpatialIndexes, lat: number, lng: number, page: PageWindow): { result: Address[]; message?: string } {
  const country = countryAt(lat, lng);
  if (!country) return { result: [], message: `no country at ${lat}, ${lng}: the point is in the open sea` };
  const want = page.offset + page.limit;
  const out: Address[] = [];
  for (const { street, km } of streetsNear(idx.streets, lat, lng, REVERSE_STREET_RADIUS_KM, (s) => s.countryCode === country)) {
    if (out.length >= want) break;
    out.push(streetAddress(street, { distanceKm: km }));
  }
  if (out.length < want) {
    const { places } = idx;
    const ids = around(idx.kd, lng, lat, want - out.length, REVERSE_PLACE_RADIUS_KM, (id) => places.country[id] === country);
    for (const id of ids) out.push(placeAddress(places, id, { distanceKm: distance(lng, lat, places.lng[id], places.lat[id]), country }));
  }
  if (out.length === 0) {
    out.push({ countrycode: country, country: countryName(country), lat, lng, distance: 0, geocodinglevel: "COUNTRY" });
  }
  return { result: pageOf(out, page) };
}

export interface GeolocParams {
  lat: number;
  lng: number;
  radiusM: number;
  placetype?: string;
  /** Whether to output the distance. */
  withDistance: boolean;
}

/** Places within `radiusM` metres of a point, nearest first, of one place type when asked (`City`, `CitySubdivision`). */
export function geolocSearch(idx: SpatialIndexes, p: GeolocParams, page: PageWindow): GisFeatureDistance[] {
  const { places } = idx;
  const wanted = p.placetype?.toLowerCase();
  // Only populated places are held: any other type (Airport, Street, ...) has none.
  if (wanted && wanted !== "city" && wanted !== "citysubdivision") return [];
  const predicate = wanted ? (id: number) => placeTypeOf(places.featureCode[id]).toLowerCase() === wanted : undefined;
  const ids = around(idx.kd, p.lng, p.lat, page.offset + page.limit, p.radiusM / 1000, predicate);
  return pageOf(ids, page).map((id) =>
    placeFeature(places, id, p.withDistance ? distance(p.lng, p.lat, places.lng[id], places.lat[id]) : undefined),
  );
}

export interface StreetParams {
  lat: number;
  lng: number;
  radiusM: number;
  oneway: boolean;
  streettype?: string;
  withDistance: boolean;
}

/** Seeded streets within `radiusM` metres of a point, nearest first; only one-way ones, or of one type, when asked. */
export function findStreets(idx: SpatialIndexes, p: StreetParams, page: PageWindow): StreetDistance[] {
  const type = p.streettype?.toLowerCase();
  const hits = streetsNear(
    idx.streets,
    p.lat,
    p.lng,
    p.radiusM / 1000,
    (s) => (!p.oneway || s.oneWay === true) && (!type || s.streetType?.toLowerCase() === type),
  );
  return pageOf(hits, page).map(({ street, km }) => streetDistance(street, p.withDistance ? km : undefined));
}

/** Streets within `radiusKm` of a point that pass `keep`, nearest first (the seed holds few: a scan is enough). */
export function streetsNear(
  streets: readonly StreetRecord[],
  lat: number,
  lng: number,
  radiusKm: number,
  keep: (s: StreetRecord) => boolean = () => true,
): { street: StreetRecord; km: number }[] {
  return streets
    .filter(keep)
    .map((street) => ({ street, km: distance(lng, lat, street.lng, street.lat) }))
    .filter((x) => x.km <= radiusKm)
    .sort((a, b) => a.km - b.km || a.street.gid - b.street.gid);
}
