import type { Dispatcher } from "undici";
import { ApiError, HttpTransport, type Logger, type RetryPolicyOptions, loggerFromEnv } from "../../platform/http";
import { AZURE_REQUEST_IDS } from "../../platform/arm/azure-request-ids";
import { responseValidator, type SchemaCheck } from "../../platform/schemas/swagger-schemas";
import { noteSchemaDrift } from "../../platform/schemas/schema-drift";
import {
  GEOCODING_KEY_PARAMETER,
  GEOCODING_OPERATIONS,
  GEOCODING_PATHS,
  GEOCODING_SPEC,
  type AddressResultsDto,
  type FulltextQuery,
  type FulltextResultsDto,
  type GeocodeQuery,
  type GeocodingOperation,
  type GeolocQuery,
  type GeolocResultsDto,
  type Paging,
  type ParseAddressQuery,
  type ReverseGeocodeQuery,
  type StreetQuery,
  type StreetSearchResultsDto,
} from "./types";

export interface GeocodingClientOptions {
  /** Base address: `https://services.gisgraphy.com`, or `<emulator>/geocoding`. */
  endpoint: string;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  /** Sent as the `api_key` query parameter; redacted from every log line and error. Omitted when undefined. */
  apiKey?: string;
  retry?: Partial<RetryPolicyOptions>;
  /** Per-attempt timeout in ms. Default 30 000. */
  timeoutMs?: number;
  logger?: Logger;
  dispatcher?: Dispatcher;
}

/**
 * Query parameters safe to print in logs and errors. Not `api_key` (a secret), and not `address`
 * or `q`: free text that may be someone's home address, which is personal data.
 */
export const GEOCODING_SAFE_NAMES = {
  query: [
    "format",
    "lat",
    "lng",
    "radius",
    "country",
    "from",
    "to",
    "placetype",
    "lang",
    "style",
    "indent",
    "postal",
    "allwordsrequired",
    "suggest",
    "distance",
    "oneway",
    "streettype",
    "standardize",
    "spellchecking",
  ],
} as const;

/** The most results one page may hold (the spec: "Max = 10"). */
export const MAX_PAGE_SIZE = 10;

/**
 * A typed client for the six Gisgraphy GETs. Every request asks for `format=json`; the API key
 * travels in the query (`api_key`), where the transport's allowlist redaction hides it from logs
 * and its secret scrubbing from error text. The spec's 401/403/412/429/500 become ApiErrors whose
 * code and message say what to do; a 429 is first retried by the transport's retry policy
 * (honouring `Retry-After`).
 *
 * Responses are checked against the spec's schemas to learn, never to refuse; `null` lists read
 * as empty. Only a body that is not a JSON object is refused.
 */
export class GeocodingClient {
  private readonly http: HttpTransport;
  private readonly logger: Logger;
  readonly endpoint: string;
  private readonly hasKey: boolean;

  constructor(opts: GeocodingClientOptions) {
    this.endpoint = opts.endpoint;
    this.logger = opts.logger ?? loggerFromEnv();
    this.hasKey = !!opts.apiKey;
    this.http = new HttpTransport({
      baseUrl: opts.endpoint,
      endpointSetting: opts.endpointSetting,
      auth: opts.apiKey ? { kind: "query", name: GEOCODING_KEY_PARAMETER, value: opts.apiKey } : { kind: "none" },
      query: { format: "json" },
      safeNames: GEOCODING_SAFE_NAMES,
      // Not an Azure API, but its calls have always carried Azure's request ids (the emulator answers
      // every service with them, and errors quote them): kept, so that errors read as before.
      requestIds: AZURE_REQUEST_IDS,
      service: "geocoding",
      retry: opts.retry,
      timeoutMs: opts.timeoutMs,
      logger: this.logger,
      dispatcher: opts.dispatcher,
    });
  }

  /** geocode: places an address (or a street, city, postcode, country) at coordinates, best match first. */
  geocode(q: GeocodeQuery, signal?: AbortSignal): Promise<AddressResultsDto> {
    requireText(q.address, "address");
    return this.get<AddressResultsDto>(
      GEOCODING_OPERATIONS.geocode,
      GEOCODING_PATHS.geocode,
      { address: q.address, country: countryParam(q.country), postal: q.postal, ...pagingParams(q) },
      signal,
    ).then(withResultList);
  }

  /** addressparsing: splits one address into house number, street, postcode, city, state and country. */
  parseAddress(q: ParseAddressQuery, signal?: AbortSignal): Promise<AddressResultsDto> {
    requireText(q.address, "address");
    return this.get<AddressResultsDto>(
      GEOCODING_OPERATIONS.parseAddress,
      GEOCODING_PATHS.parseAddress,
      { address: q.address, country: countryParam(q.country), standardize: q.standardize },
      signal,
    ).then(withResultList);
  }

  /** reversegeocode: the addresses (nearest first) at a point; the country is that of the point itself. */
  reverseGeocode(q: ReverseGeocodeQuery, signal?: AbortSignal): Promise<AddressResultsDto> {
    checkPoint(q.lat, q.lng);
    return this.get<AddressResultsDto>(
      GEOCODING_OPERATIONS.reverseGeocode,
      GEOCODING_PATHS.reverseGeocode,
      { lat: q.lat, lng: q.lng, ...pagingParams(q) },
      signal,
    ).then(withResultList);
  }

  /** geoloc: places around a point within `radius` metres, nearest first, optionally of one place type. */
  geolocSearch(q: GeolocQuery, signal?: AbortSignal): Promise<GeolocResultsDto> {
    checkPoint(q.lat, q.lng);
    checkRadius(q.radius);
    return this.get<GeolocResultsDto>(
      GEOCODING_OPERATIONS.geolocSearch,
      GEOCODING_PATHS.geolocSearch,
      { lat: q.lat, lng: q.lng, radius: q.radius, placetype: q.placetype, distance: q.distance, ...pagingParams(q) },
      signal,
    ).then(withResultList);
  }

  /** fulltxtsearch: places (and streets) by name or postcode, optionally in a country or around a point. */
  fulltextSearch(q: FulltextQuery, signal?: AbortSignal): Promise<FulltextResultsDto> {
    requireText(q.q, "q");
    if ((q.lat === undefined) !== (q.lng === undefined)) throw new TypeError("fulltext search: give both lat and lng, or neither");
    if (q.lat !== undefined) checkPoint(q.lat, q.lng!);
    checkRadius(q.radius);
    return this.get<FulltextResultsDto>(
      GEOCODING_OPERATIONS.fulltextSearch,
      GEOCODING_PATHS.fulltextSearch,
      {
        q: q.q,
        // The spec marks it required (default false): always send it.
        allwordsrequired: q.allwordsrequired ?? false,
        country: countryParam(q.country),
        lat: q.lat,
        lng: q.lng,
        radius: q.radius,
        suggest: q.suggest,
        style: q.style,
        lang: q.lang,
        spellchecking: q.spellchecking,
        ...pagingParams(q),
      },
      signal,
    ).then(withResultList);
  }

  /** streetsearch: streets around a point within `radius` metres, nearest first. */
  findStreets(q: StreetQuery, signal?: AbortSignal): Promise<StreetSearchResultsDto> {
    checkPoint(q.lat, q.lng);
    checkRadius(q.radius);
    return this.get<StreetSearchResultsDto>(
      GEOCODING_OPERATIONS.findStreets,
      GEOCODING_PATHS.findStreets,
      {
        lat: q.lat,
        lng: q.lng,
        radius: q.radius,
        oneway: q.oneway,
        streettype: q.streettype,
        distance: q.distance,
        ...pagingParams(q),
      },
      signal,
    ).then(withResultList);
  }

  private async get<T>(
    operation: GeocodingOperation,
    path: string,
    query: Record<string, string | number | boolean | undefined>,
    signal?: AbortSignal,
  ): Promise<T> {
    let body: unknown;
    try {
      body = await this.http.json<unknown>({ operation, method: "GET", path, query, signal });
    } catch (e) {
      throw e instanceof ApiError ? explain(e, this.hasKey) : e;
    }
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new ApiError({
        operation,
        status: 200,
        code: "InvalidResponse",
        message: `expected a JSON object from the geocoding service, got ${Array.isArray(body) ? "an array" : typeof body}`,
        method: "GET",
        url: `${this.endpoint}${path}`,
      });
    }
    noteSchemaDrift(operation, validatorFor(operation)(body), this.logger);
    return body as T;
  }
}

/** What each of the spec's error statuses means to the user, and what to do next. */
function explain(e: ApiError, hasKey: boolean): ApiError {
  let code: string;
  let advice: string;
  switch (e.status) {
    case 401:
      code = "GeocodingUnauthorized";
      advice = hasKey
        ? "the geocoding service refused the API key (wrong, or without a subscription): check STACKWARDEN_GEOCODING_API_KEY"
        : "the geocoding service needs an API key: set STACKWARDEN_GEOCODING_API_KEY";
      break;
    case 403:
      code = "GeocodingForbidden";
      advice =
        "the geocoding service does not allow this client (e.g. its IP address is not allowed for the key); another key will not help";
      break;
    case 412:
      code = "GeocodingMissingParameter";
      advice = "the geocoding service found a parameter missing or invalid";
      break;
    case 429:
      code = "GeocodingRateLimited";
      advice = `the key's request rate is exceeded (gave up after ${e.attempts ?? 1} attempt(s)): slow down or raise the key's quota`;
      break;
    case 500:
      code = "GeocodingInternalError";
      advice = "the geocoding service failed internally; try again later";
      break;
    default:
      return e;
  }
  return e.restate({ code, message: e.detail && e.detail !== code ? `${advice} (the service said: ${e.detail})` : advice });
}

/** Lists the spec types as arrays arrive as `null` from real services: read them as empty. */
function withResultList<T extends { result?: unknown[] }>(body: T): T {
  if (body.result === null || body.result === undefined) return { ...body, result: [] };
  return body;
}

function pagingParams(p: Paging): { from?: number; to?: number } {
  if (p.from !== undefined && (!Number.isInteger(p.from) || p.from < 1))
    throw new RangeError(`paging: from must be an integer ≥ 1, got ${p.from}`);
  if (p.to !== undefined && (!Number.isInteger(p.to) || p.to < (p.from ?? 1)))
    throw new RangeError(`paging: to must be an integer ≥ from (${p.from ?? 1}), got ${p.to}`);
  if (p.to !== undefined && p.to - (p.from ?? 1) + 1 > MAX_PAGE_SIZE)
    throw new RangeError(`paging: at most ${MAX_PAGE_SIZE} results a page (from ${p.from ?? 1} to ${p.to} asks for more)`);
  return { from: p.from, to: p.to };
}

function checkPoint(lat: number, lng: number): void {
  if (typeof lat !== "number" || !Number.isFinite(lat) || lat < -90 || lat > 90)
    throw new RangeError(`latitude must be a number between -90 and 90, got ${String(lat)}`);
  if (typeof lng !== "number" || !Number.isFinite(lng) || lng < -180 || lng > 180)
    throw new RangeError(`longitude must be a number between -180 and 180, got ${String(lng)}`);
}

function checkRadius(radius: number | undefined): void {
  if (radius !== undefined && (!Number.isFinite(radius) || radius <= 0))
    throw new RangeError(`radius must be a positive number of metres, got ${radius}`);
}

function requireText(value: string, name: string): void {
  if (typeof value !== "string" || value.trim() === "") throw new TypeError(`${name} must be a non-empty string`);
}

function countryParam(country: string | undefined): string | undefined {
  if (country === undefined) return undefined;
  if (!/^[A-Za-z]{2}$/.test(country)) throw new RangeError(`country must be an ISO 3166-1 alpha-2 code such as NL, got "${country}"`);
  return country.toUpperCase();
}

const validators = new Map<string, (data: unknown) => SchemaCheck>();
function validatorFor(operation: GeocodingOperation): (data: unknown) => SchemaCheck {
  let v = validators.get(operation);
  if (!v) {
    v = responseValidator(GEOCODING_SPEC, operation);
    validators.set(operation, v);
  }
  return v;
}
