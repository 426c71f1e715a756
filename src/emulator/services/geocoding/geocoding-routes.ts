import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { RouteTable } from "../../kit/route-table";
import { GEOCODING_KEY_PARAMETER, GEOCODING_PATHS } from "../../../services/geocoding/types";
import { parseAddress } from "./address-parser";
import { answerFormatOf, formattedAnswer } from "./answer-formats";
import { geocodeAddress } from "./forward-geocoder";
import { fulltextSearch } from "./fulltext-search";
import { IndexBuildError, INDEX_STATE_HEADER, type GeocodingRuntime } from "./geocoding-runtime";
import { findStreets, geolocSearch, reverseGeocode } from "./nearby-search";
import {
  booleanParam,
  countryParam,
  numberParam,
  optionalTextParam,
  ParameterError,
  pageParams,
  pointParams,
  radiusParam,
  textParam,
  truthy,
} from "./query-parameters";

/** What a route computes: the Gisgraphy answer body, before it is formatted. */
type Answer = (rt: GeocodingRuntime, req: EmulatorRequest) => Promise<object> | object;

/** The Gisgraphy webservices the emulator serves, under GEOCODING_PREFIX; every answer goes through `answered`. */
export const GEOCODING_ROUTES: RouteTable<GeocodingRuntime> = [
  { method: "GET", path: GEOCODING_PATHS.reverseGeocode, handler: answered(reverseGeocodeAnswer) },
  { method: "GET", path: GEOCODING_PATHS.geolocSearch, handler: answered(geolocSearchAnswer) },
  { method: "GET", path: GEOCODING_PATHS.findStreets, handler: answered(findStreetsAnswer) },
  { method: "GET", path: GEOCODING_PATHS.fulltextSearch, handler: answered(fulltextSearchAnswer) },
  { method: "GET", path: GEOCODING_PATHS.geocode, handler: answered(geocodeAnswer) },
  { method: "GET", path: GEOCODING_PATHS.parseAddress, handler: answered(parseAddressAnswer) },
];

/**
 * A route handler around an answer: the key gate (401, 403, 429), the output format and JSONP
 * callback, 412 for a bad parameter and 500 for a failed index build, and on every reply the index
 * state header (read after the answer, so a build it started shows).
 */
function answered(answer: Answer): (rt: GeocodingRuntime, req: EmulatorRequest) => Promise<EmulatorReply> {
  return async (rt, req) => {
    const reply = await formatted(rt, req, answer);
    return { ...reply, headers: { ...reply.headers, [INDEX_STATE_HEADER]: rt.indexState() } };
  };
}

async function formatted(rt: GeocodingRuntime, req: EmulatorRequest, answer: Answer): Promise<EmulatorReply> {
  const key = req.query.get(GEOCODING_KEY_PARAMETER)?.trim() || undefined;
  const refused = rt.gate.check(rt.keyPolicy(), key, req.remoteAddress, req.now);
  if (refused) return refused;
  const format = answerFormatOf(req.query.get("format"));
  if (typeof format !== "string") return format;
  const callback = req.query.get("callback");
  if (callback && !/^[A-Za-z_$][\w$.]*$/.test(callback)) return fail(412, "callback must be an alphanumeric JavaScript name");
  let body: object;
  try {
    body = await answer(rt, req);
  } catch (e) {
    if (e instanceof ParameterError) return fail(412, e.message);
    if (e instanceof IndexBuildError) return fail(500, e.message);
    throw e;
  }
  return formattedAnswer(body, format, { indent: truthy(req.query.get("indent")), callback: callback ?? undefined });
}

/** `/reversegeocoding/reversegeocode`: the addresses nearest a point. */
async function reverseGeocodeAnswer(rt: GeocodingRuntime, req: EmulatorRequest): Promise<object> {
  const { lat, lng } = pointParams(req);
  const page = pageParams(req);
  const idx = await rt.spatial();
  const t0 = performance.now();
  const { result, message } = reverseGeocode(idx, lat, lng, page);
  return { QTime: elapsed(t0), numFound: result.length, message, result };
}

/** `/geoloc/search`: places within a radius of a point. */
async function geolocSearchAnswer(rt: GeocodingRuntime, req: EmulatorRequest): Promise<object> {
  const { lat, lng } = pointParams(req);
  const radiusM = radiusParam(req);
  const placetype = optionalTextParam(req, "placetype");
  const withDistance = booleanParam(req, "distance", true);
  const page = pageParams(req);
  const idx = await rt.spatial();
  const t0 = performance.now();
  const result = geolocSearch(idx, { lat, lng, radiusM, placetype, withDistance }, page);
  return { QTime: elapsed(t0), numFound: result.length, result };
}

/** `/street/find`: the seeded streets within a radius of a point. */
async function findStreetsAnswer(rt: GeocodingRuntime, req: EmulatorRequest): Promise<object> {
  const { lat, lng } = pointParams(req);
  const radiusM = radiusParam(req);
  const oneway = booleanParam(req, "oneway", false);
  const streettype = optionalTextParam(req, "streettype");
  const withDistance = booleanParam(req, "distance", true);
  const page = pageParams(req);
  const idx = await rt.spatial();
  const t0 = performance.now();
  const result = findStreets(idx, { lat, lng, radiusM, oneway, streettype, withDistance }, page);
  return { QTime: elapsed(t0), numFound: result.length, result };
}

/** `/fulltext/search`: places and streets by name, optionally near a point. */
async function fulltextSearchAnswer(rt: GeocodingRuntime, req: EmulatorRequest): Promise<object> {
  const q = textParam(req, "q");
  const lat = numberParam(req, "lat", { min: -90, max: 90 });
  const lng = numberParam(req, "lng", { min: -180, max: 180 });
  if ((lat === undefined) !== (lng === undefined)) throw new ParameterError("lat and lng go together: give both or neither");
  const radiusM = radiusParam(req);
  const country = countryParam(req);
  const allWords = booleanParam(req, "allwordsrequired", false);
  const suggest = booleanParam(req, "suggest", false);
  const page = pageParams(req);
  const idx = await rt.full();
  const t0 = performance.now();
  const near = lat !== undefined && lng !== undefined ? { lat, lng, radiusM } : undefined;
  const a = fulltextSearch(idx, { q, allWords, country, near, suggest }, page);
  return { QTime: elapsed(t0), numFound: a.numFound, resultsSize: a.result.length, maxScore: a.maxScore ?? 0, result: a.result };
}

/** `/geocoding/geocode`: an address to places, with the full-text index only when the spatial one cannot place it. */
async function geocodeAnswer(rt: GeocodingRuntime, req: EmulatorRequest): Promise<object> {
  const address = textParam(req, "address");
  const country = countryParam(req);
  const page = pageParams(req);
  const idx = await rt.spatial();
  const t0 = performance.now();
  let a = geocodeAddress(idx, address, country, page);
  if (a.needsFullText) a = geocodeAddress(await rt.full(), address, country, page);
  return { QTime: elapsed(t0), numFound: a.result.length, message: a.message, parsedAddress: a.parsed, result: a.result };
}

/** `/addressparser/parse`. Parsing needs no index: it answers at once, even while the indexes build. */
function parseAddressAnswer(_rt: GeocodingRuntime, req: EmulatorRequest): object {
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
}

function fail(status: number, message: string): EmulatorReply {
  return { status, body: { error: message } };
}

function elapsed(t0: number): number {
  return Math.round(performance.now() - t0);
}
