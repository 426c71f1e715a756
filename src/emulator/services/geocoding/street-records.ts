/**
 * Streets the emulator knows. No offline street data set exists on npm, so streets come only
 * from the seed (`geocoding.streets`); each gets a stable `gid` from its position.
 */
export interface SeedHouseNumber {
  number: string;
  lat: number;
  lng: number;
}

export interface SeedStreet {
  name: string;
  /** The city the street is in (the spec's `isIn`). */
  city: string;
  /** ISO 3166-1 alpha-2. */
  countryCode: string;
  /** The middle of the street. */
  lat: number;
  lng: number;
  /** OpenStreetMap street type: residential, pedestrian, primary, ... */
  streetType?: string;
  oneWay?: boolean;
  /** Metres. */
  length?: number;
  /** Postcodes along the street. */
  zipCodes?: string[];
  /** The administrative division (the spec's `isInAdm`). */
  isInAdm?: string;
  /** The quarter (the spec's `isInPlace`). */
  isInPlace?: string;
  openstreetmapId?: number;
  /** House numbers with their own coordinates (geocoding to HOUSE_NUMBER level). */
  houseNumbers?: SeedHouseNumber[];
}

export interface StreetRecord extends SeedStreet {
  gid: number;
}

/** Street ids start here, so they never meet a GeoNames id in the same response. */
export const STREET_GID_BASE = 900_000_000;

/** The JSON Schema of one seed street. */
export const seedStreetSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "city", "countryCode", "lat", "lng"],
  properties: {
    name: { type: "string", minLength: 1 },
    city: { type: "string", minLength: 1 },
    countryCode: { type: "string", pattern: "^[A-Z]{2}$" },
    lat: { type: "number", minimum: -90, maximum: 90 },
    lng: { type: "number", minimum: -180, maximum: 180 },
    streetType: { type: "string", minLength: 1 },
    oneWay: { type: "boolean" },
    length: { type: "number", minimum: 0 },
    zipCodes: { type: "array", items: { type: "string", minLength: 1 } },
    isInAdm: { type: "string" },
    isInPlace: { type: "string" },
    openstreetmapId: { type: "integer", minimum: 1 },
    houseNumbers: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["number", "lat", "lng"],
        properties: {
          number: { type: "string", minLength: 1 },
          lat: { type: "number", minimum: -90, maximum: 90 },
          lng: { type: "number", minimum: -180, maximum: 180 },
        },
      },
    },
  },
} as const;

/** Numbers the seed's streets in order. */
export function streetRecords(streets: readonly SeedStreet[] | undefined): StreetRecord[] {
  return (streets ?? []).map((s, i) => ({ ...s, gid: STREET_GID_BASE + i + 1 }));
}
