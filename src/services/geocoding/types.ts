/**
 * Types of the Gisgraphy geocoding webservices, from specs/gisgraphy/swagger.yaml (version 4.0.0).
 * Every field is optional, as the spec declares them; unknown fields are kept as they came.
 */
export const GEOCODING_SPEC = "gisgraphy/swagger.yaml";

/** The spec's operationIds, used as the operation names in errors and logs. */
export const GEOCODING_OPERATIONS = {
  findStreets: "streetsearch",
  geolocSearch: "geoloc",
  fulltextSearch: "fulltxtsearch",
  geocode: "geocode",
  parseAddress: "addressparsing",
  reverseGeocode: "reversegeocode",
} as const;
export type GeocodingOperation = (typeof GEOCODING_OPERATIONS)[keyof typeof GEOCODING_OPERATIONS];

/** The paths of the six GETs, relative to the service's base address. */
export const GEOCODING_PATHS = {
  findStreets: "/street/find",
  geolocSearch: "/geoloc/search",
  fulltextSearch: "/fulltext/search",
  geocode: "/geocoding/geocode",
  parseAddress: "/addressparser/parse",
  reverseGeocode: "/reversegeocoding/reversegeocode",
} as const;

/** The query parameter that carries the API key (`securityDefinitions.api_key`). */
export const GEOCODING_KEY_PARAMETER = "api_key";

/** `#/definitions/Address/properties/geocodinglevel`: how precisely an address was placed. */
export type GeocodingLevel = "NONE" | "HOUSE_NUMBER" | "STREET" | "CITY" | "STATE" | "COUNTRY";

/** `#/definitions/Address`: a postal address, parsed or geocoded. */
export interface Address {
  id?: number;
  name?: string;
  recipientName?: string;
  houseNumber?: string;
  houseNumberInfo?: string;
  civicNumberSuffix?: string;
  streetName?: string;
  streetType?: string;
  preDirection?: string;
  postDirection?: string;
  extraInfo?: string;
  floor?: string;
  suiteType?: string;
  suiteNumber?: string;
  quarter?: string;
  ward?: string;
  district?: string;
  dependentLocality?: string;
  citySubdivision?: string;
  city?: string;
  postTown?: string;
  state?: string;
  prefecture?: string;
  zipCode?: string;
  POBox?: string;
  country?: string;
  countrycode?: string;
  lat?: number;
  lng?: number;
  distance?: number;
  geocodinglevel?: GeocodingLevel;
  confidence?: string;
  [extra: string]: unknown;
}

/** `#/definitions/AddressResultsDto`: the answer of geocode, parse and reverse geocode. */
export interface AddressResultsDto {
  QTime?: number;
  message?: string;
  numFound?: number;
  parsedAddress?: Address;
  result?: Address[];
  [extra: string]: unknown;
}

/** `#/definitions/GisFeatureDistance`: a place near a point (geoloc/search). */
export interface GisFeatureDistance {
  featureId?: number;
  name?: string;
  asciiName?: string;
  lat?: number;
  lng?: number;
  distance?: number;
  countryCode?: string;
  iso3166Alpha2Code?: string;
  placeType?: string;
  featureClass?: string;
  featureCode?: string;
  population?: number;
  adm1Code?: string;
  adm1Name?: string;
  timezone?: string;
  [extra: string]: unknown;
}

/** `#/definitions/GeolocResultsDto` */
export interface GeolocResultsDto {
  QTime?: number;
  /** Results on this page (the spec: "it takes the pagination into account"). */
  numFound?: number;
  error?: string;
  result?: GisFeatureDistance[];
  [extra: string]: unknown;
}

/** `#/definitions/SolrResponseDto`: one full-text hit. */
export interface SolrResponseDto {
  feature_id?: number;
  name?: string;
  name_ascii?: string;
  name_alternates?: string[];
  lat?: number;
  lng?: number;
  country_code?: string;
  country_name?: string;
  placetype?: string;
  population?: number;
  feature_class?: string;
  feature_code?: string;
  adm1_code?: string;
  fully_qualified_name?: string;
  is_in?: string;
  is_in_zip?: string[];
  zipcodes?: string[];
  street_type?: string;
  one_way?: boolean;
  length?: number;
  openstreetmap_id?: number;
  score?: number;
  [extra: string]: unknown;
}

/** `#/definitions/FulltextResultsDto` */
export interface FulltextResultsDto {
  QTime?: number;
  /** Hits in all, whatever the pagination. */
  numFound?: number;
  /** Hits on this page. */
  resultsSize?: number;
  maxScore?: number;
  message?: string;
  result?: SolrResponseDto[];
  [extra: string]: unknown;
}

/** `#/definitions/StreetDistance`: a street near a point (street/find). */
export interface StreetDistance {
  gid?: number;
  name?: string;
  lat?: number;
  lng?: number;
  distance?: number;
  length?: number;
  oneWay?: boolean;
  streetType?: string;
  countryCode?: string;
  isIn?: string;
  isInAdm?: string;
  isInPlace?: string;
  isInZip?: string;
  openstreetmapId?: number;
  fullyQualifiedAddress?: string;
  [extra: string]: unknown;
}

/** `#/definitions/StreetSearchResultsDto` */
export interface StreetSearchResultsDto {
  QTime?: number;
  /** Results on this page. */
  numFound?: number;
  error?: string;
  result?: StreetDistance[];
  [extra: string]: unknown;
}

/**
 * The spec's paging: `from` is the first index (numbered from 1), `to` the last one, inclusive;
 * at most 10 results a page.
 */
export interface Paging {
  from?: number;
  to?: number;
}

/** Query of `GET /geocoding/geocode`. */
export interface GeocodeQuery extends Paging {
  /** A postal address, structured or not, a street, a city, a postal code, a country, or a combination. */
  address: string;
  /** ISO 3166 alpha-2 code of the country the address is in. */
  country?: string;
  /** Whether the address is a well-formed postal address (parsed before it is geocoded). */
  postal?: boolean;
}

/** Query of `GET /addressparser/parse`. */
export interface ParseAddressQuery {
  address: string;
  country?: string;
  standardize?: boolean;
}

/** Query of `GET /reversegeocoding/reversegeocode`. */
export interface ReverseGeocodeQuery extends Paging {
  lat: number;
  lng: number;
}

/** Query of `GET /geoloc/search`. */
export interface GeolocQuery extends Paging {
  lat: number;
  lng: number;
  /** Metres; the spec's default is 10 000. */
  radius?: number;
  /** Only places of this type (e.g. `City`). */
  placetype?: string;
  /** Whether to output (and sort by) the distance; the spec's default is true. */
  distance?: boolean;
}

/** Query of `GET /fulltext/search`. */
export interface FulltextQuery extends Paging {
  q: string;
  /** Whether every word must match; the spec's default is false. */
  allwordsrequired?: boolean;
  country?: string;
  lat?: number;
  lng?: number;
  /** Metres around lat/lng; the spec's default is 10 000. */
  radius?: number;
  /** Prefix search (auto completion). */
  suggest?: boolean;
  style?: "SHORT" | "MEDIUM" | "LONG" | "FULL";
  lang?: string;
  spellchecking?: boolean;
}

/** Query of `GET /street/find`. */
export interface StreetQuery extends Paging {
  lat: number;
  lng: number;
  /** Metres; the spec's default is 10 000. */
  radius?: number;
  /** Only one-way streets. */
  oneway?: boolean;
  /** Only streets of this type (e.g. `pedestrian`). */
  streettype?: string;
  distance?: boolean;
}
