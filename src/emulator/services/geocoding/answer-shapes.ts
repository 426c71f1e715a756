import type { Address, GisFeatureDistance, SolrResponseDto, StreetDistance } from "../../../services/geocoding/types";
import { countryName } from "../../../services/geocoding/country-codes";
import type { PlaceTable } from "./place-data";
import type { StreetRecord } from "./street-records";

/**
 * Places and streets in the spec's response shapes: `Address` (geocode, reverse geocode),
 * `GisFeatureDistance` (geoloc), `SolrResponseDto` (full text) and `StreetDistance` (street/find).
 */

/** GeoNames' PPLX (a section of a populated place) is a city subdivision; every other populated place a city. */
export function placeTypeOf(featureCode: string): "City" | "CitySubdivision" {
  return featureCode === "PPLX" ? "CitySubdivision" : "City";
}

/** A US or Canadian admin1 code is the state's postal code; elsewhere GeoNames' codes are numbers, not names. */
function stateOf(places: PlaceTable, id: number): string | undefined {
  const code = places.adminCode[id];
  return /^[A-Z]{2}$/.test(code) && (places.country[id] === "US" || places.country[id] === "CA") ? code : undefined;
}

/** Metres, rounded to the metre. */
function metres(km: number): number {
  return Math.round(km * 1000);
}

/** A place as an address at CITY level. `country` is the country of the point asked about when there was one. */
export function placeAddress(places: PlaceTable, id: number, opts: { distanceKm?: number; country?: string } = {}): Address {
  const country = opts.country ?? places.country[id];
  const subdivision = places.featureCode[id] === "PPLX";
  return {
    id: places.geonameId[id],
    name: places.name[id],
    city: subdivision ? undefined : places.name[id],
    citySubdivision: subdivision ? places.name[id] : undefined,
    state: stateOf(places, id),
    countrycode: country,
    country: countryName(country),
    lat: places.lat[id],
    lng: places.lng[id],
    distance: opts.distanceKm !== undefined ? metres(opts.distanceKm) : undefined,
    geocodinglevel: "CITY",
  };
}

/** A seed street as an address at STREET level (or HOUSE_NUMBER level at a seeded house number). */
export function streetAddress(
  st: StreetRecord,
  opts: { distanceKm?: number; houseNumber?: { number: string; lat: number; lng: number }; zipCode?: string } = {},
): Address {
  return {
    id: st.gid,
    streetName: st.name,
    streetType: st.streetType,
    houseNumber: opts.houseNumber?.number,
    city: st.city,
    quarter: st.isInPlace,
    state: st.isInAdm,
    zipCode: opts.zipCode ?? st.zipCodes?.[0],
    countrycode: st.countryCode,
    country: countryName(st.countryCode),
    lat: opts.houseNumber?.lat ?? st.lat,
    lng: opts.houseNumber?.lng ?? st.lng,
    distance: opts.distanceKm !== undefined ? metres(opts.distanceKm) : undefined,
    geocodinglevel: opts.houseNumber ? "HOUSE_NUMBER" : "STREET",
  };
}

/** A place near a point, for geoloc/search. */
export function placeFeature(places: PlaceTable, id: number, distanceKm: number | undefined): GisFeatureDistance {
  return {
    featureId: places.geonameId[id],
    name: places.name[id],
    asciiName: asciiOf(places.name[id]),
    lat: places.lat[id],
    lng: places.lng[id],
    distance: distanceKm !== undefined ? metres(distanceKm) : undefined,
    countryCode: places.country[id],
    iso3166Alpha2Code: places.country[id],
    placeType: placeTypeOf(places.featureCode[id]),
    featureClass: "P",
    featureCode: places.featureCode[id],
    population: places.population[id],
    adm1Code: places.adminCode[id] || undefined,
  };
}

/** A place found by name, for fulltext/search. */
export function placeHit(places: PlaceTable, id: number, score: number): SolrResponseDto {
  const cc = places.country[id];
  const admin = places.adminCode[id];
  return {
    feature_id: places.geonameId[id],
    name: places.name[id],
    name_ascii: asciiOf(places.name[id]),
    lat: places.lat[id],
    lng: places.lng[id],
    country_code: cc,
    country_name: countryName(cc),
    placetype: placeTypeOf(places.featureCode[id]),
    population: places.population[id],
    feature_class: "P",
    feature_code: places.featureCode[id],
    adm1_code: admin || undefined,
    fully_qualified_name: `${places.name[id]}${admin ? `, ${admin}` : ""}, (${cc})`,
    score,
  };
}

/** A seed street found by name or postcode, for fulltext/search. */
export function streetHit(st: StreetRecord, score: number): SolrResponseDto {
  return {
    feature_id: st.gid,
    name: st.name,
    name_ascii: asciiOf(st.name),
    lat: st.lat,
    lng: st.lng,
    country_code: st.countryCode,
    country_name: countryName(st.countryCode),
    placetype: "Street",
    street_type: st.streetType,
    one_way: st.oneWay,
    length: st.length,
    openstreetmap_id: st.openstreetmapId,
    is_in: st.city,
    is_in_zip: st.zipCodes,
    zipcodes: st.zipCodes,
    fully_qualified_name: `${st.name}, ${st.city}, (${st.countryCode})`,
    score,
  };
}

/** A seed street near a point, for street/find. */
export function streetDistance(st: StreetRecord, distanceKm: number | undefined): StreetDistance {
  return {
    gid: st.gid,
    name: st.name,
    lat: st.lat,
    lng: st.lng,
    distance: distanceKm !== undefined ? metres(distanceKm) : undefined,
    length: st.length,
    oneWay: st.oneWay ?? false,
    streetType: st.streetType,
    countryCode: st.countryCode,
    isIn: st.city,
    isInAdm: st.isInAdm,
    isInPlace: st.isInPlace,
    isInZip: st.zipCodes?.join(", "),
    openstreetmapId: st.openstreetmapId,
  };
}

function asciiOf(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}+/gu, "");
}
