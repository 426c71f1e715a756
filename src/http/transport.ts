import { randomUUID } from "node:crypto";
import { Agent, interceptors, type Dispatcher } from "undici";
import { ApiError, parseErrorBody } from "./api-error";
import { type AuthPolicy, staticSecretsOf } from "./auth-policy";
import { type Logger, loggerFromEnv } from "./logger";
import { redactUrl, scrubSecrets, scrubTokens } from "./redaction";
import { DEFAULT_RETRY, decideRetry, type RetryPolicyOptions } from "./retry-policy";
import { VERSION } from "../version";
import { canDiscardTokens } from "../auth/token-credential";
import { emitRequestEvent, hasRequestListeners, serviceOfRequest } from "./request-events";

export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | "HEAD";

/** One logical call; the transport may make several attempts for it. */
export interface RequestSpec {
  /** Logical operation name, used in errors and logs (e.g. `ServiceTierAdvisors_Get`). */
  operation: string;
  method: HttpMethod;
  /** Path relative to the transport's base URL (starting with `/`), or an absolute URL on the same origin. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** A JSON body (serialized here) ... */
  json?: unknown;
  /** ... or a raw body with its content type. */
  body?: { data: string | Buffer | Uint8Array; contentType: string };
  /** Statuses treated as success. Default: 200-299. */
  okStatuses?: readonly number[];
  signal?: AbortSignal;
  /** Per-attempt timeout for headers and for body, in ms. Default: the transport's. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicyOptions>;
}

export interface ApiResponse<T> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  requestId?: string;
  clientRequestId: string;
  attempts: number;
}

export interface TransportOptions {
  /** Base URL: `https://management.azure.com`, `http://127.0.0.1:4000/metadata`, ... */
  baseUrl: string;
  auth?: AuthPolicy;
  retry?: Partial<RetryPolicyOptions>;
  /** Per-attempt timeout in ms. Default 30 000. */
  timeoutMs?: number;
  /** Headers sent on every request. */
  headers?: Record<string, string>;
  /** Query parameters sent on every request (e.g. `api-version`), unless the request sets them. */
  query?: Record<string, string>;
  logger?: Logger;
  /** The undici dispatcher to send through (the retry interceptor is composed in unless it already is). Default: one shared keep-alive Agent. */
  dispatcher?: Dispatcher;
  /** The service name in request events (metrics). Default: derived from the request (see `serviceOfRequest`). */
  service?: string;
}

const USER_AGENT = `stackwarden/${VERSION} node/${process.versions.node}`;

let sharedAgent: Dispatcher | undefined;
/** One keep-alive agent for the process, with undici's retry interceptor composed in. */
export function sharedDispatcher(): Dispatcher {
  sharedAgent ??= composeRetry(new Agent({ connections: 256, keepAliveTimeout: 10_000, pipelining: 1 }));
  return sharedAgent;
}

const withRetry = new WeakSet<Dispatcher>();

/** Wraps a dispatcher with undici's retry interceptor; the per-request policy decides each retry. Idempotent. */
export function composeRetry(dispatcher: Dispatcher): Dispatcher {
  if (withRetry.has(dispatcher)) return dispatcher;
  // throwOnError=false: when the policy gives up, the last response is handed on as it is,
  // so the caller can read its error body.
  const composed = dispatcher.compose(interceptors.retry({ throwOnError: false, maxRetries: 1_000 }));
  withRetry.add(composed);
  return composed;
}

/**
 * The one HTTP transport: auth injection, retries with backoff and jitter, timeouts,
 * request ids, ARM error mapping and redacted logging. Every client sends through one.
 */
export class HttpTransport {
  readonly baseUrl: URL;
  private readonly origin: string;
  private readonly basePath: string;
  private readonly auth: AuthPolicy;
  private readonly retry: RetryPolicyOptions;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly query: Record<string, string>;
  /** `this.query` encoded once, for requests that add no query of their own. */
  private readonly defaultSearch: string;
  private readonly logger: Logger;
  private readonly dispatcher: Dispatcher;
  private readonly secrets: Set<string>;
  private readonly service?: string;

  constructor(opts: TransportOptions) {
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new Error(`invalid endpoint URL "${opts.baseUrl}": expected an absolute http(s) URL`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new Error(`invalid endpoint URL "${redactUrl(base)}": only http and https are supported`);
    }
    this.baseUrl = base;
    this.origin = base.origin;
    this.basePath = base.pathname.replace(/\/+$/, "");
    this.auth = opts.auth ?? { kind: "none" };
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.headers = { "user-agent": USER_AGENT, accept: "application/json", ...opts.headers };
    this.query = { ...opts.query };
    if (this.auth.kind === "query") this.query[this.auth.name] = this.auth.value;
    this.defaultSearch = new URLSearchParams(this.query).toString();
    this.logger = opts.logger ?? loggerFromEnv();
    // Without the retry interceptor a custom dispatcher would silently make one attempt only.
    this.dispatcher = opts.dispatcher ? composeRetry(opts.dispatcher) : sharedDispatcher();
    this.secrets = new Set(staticSecretsOf(this.auth));
    this.service = opts.service;
  }

  /** Sends a request and parses a JSON response body; throws ApiError for a non-success status. */
  async json<T>(spec: RequestSpec): Promise<T> {
    return (await this.receive<T>(spec, true)).body;
  }

  /** Sends a request; the body is parsed as JSON when the response says so, else returned as text. */
  request<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    return this.receive<T>(spec, false);
  }

  private async receive<T>(spec: RequestSpec, requireJson: boolean): Promise<ApiResponse<T>> {
    const raw = await this.send(spec);
    const { res, text } = raw;
    const contentType = String(res.headers["content-type"] ?? "");
    let body: unknown = text;
    if (text.length > 0 && (contentType.includes("json") || contentType === "")) {
      try {
        body = JSON.parse(text);
      } catch {
        throw this.error(
          spec,
          raw,
          res.statusCode,
          "InvalidResponse",
          `the response body is not valid JSON (${text.length} bytes${isOk(spec, res.statusCode) ? ", possibly truncated" : ""})`,
        );
      }
    } else if (requireJson && text.length > 0 && isOk(spec, res.statusCode)) {
      // json() promises parsed data: an HTML page from a proxy or portal is not a result.
      throw this.error(
        spec,
        raw,
        res.statusCode,
        "InvalidResponse",
        `expected a JSON body, got ${contentType || "no content type"} (${text.length} bytes)`,
      );
    }
    if (!isOk(spec, res.statusCode)) {
      const parsed = parseErrorBody(body);
      const fallback = typeof body === "string" && body ? body.slice(0, 200) : httpReason(res.statusCode);
      throw this.error(spec, raw, res.statusCode, parsed.code ?? httpReason(res.statusCode), parsed.message ?? fallback);
    }
    return {
      status: res.statusCode,
      headers: res.headers,
      body: body as T,
      requestId: headerValue(res.headers["x-ms-request-id"]),
      clientRequestId: raw.clientRequestId,
      attempts: raw.attempts,
    };
  }

  /** Sends a request and returns the raw body bytes (for binary and XML payloads). */
  async bytes(spec: RequestSpec): Promise<ApiResponse<Buffer>> {
    const raw = await this.send(spec, true);
    if (!isOk(spec, raw.res.statusCode)) {
      const text = raw.buffer!.toString("utf8");
      let parsed: { code?: string; message?: string } = {};
      try {
        parsed = parseErrorBody(JSON.parse(text));
      } catch {
        /* not JSON: use the text */
      }
      throw this.error(
        spec,
        raw,
        raw.res.statusCode,
        parsed.code ?? httpReason(raw.res.statusCode),
        parsed.message ?? (text.slice(0, 200) || httpReason(raw.res.statusCode)),
      );
    }
    return {
      status: raw.res.statusCode,
      headers: raw.res.headers,
      body: raw.buffer!,
      requestId: headerValue(raw.res.headers["x-ms-request-id"]),
      clientRequestId: raw.clientRequestId,
      attempts: raw.attempts,
    };
  }

  /**
   * Follows ARM paging one page at a time: each step is one request and yields that page's `value`
   * (`null` reads as empty); it ends after the page without `nextLink`. A `nextLink` on another
   * origin is refused, so credentials never leave the configured endpoint.
   */
  async *pages<T>(spec: RequestSpec): AsyncGenerator<T[], void, undefined> {
    let next: RequestSpec | undefined = spec;
    let page = 0;
    while (next) {
      const body: { value?: T[] | null; nextLink?: string | null } = await this.json(next);
      page += 1;
      // A list answers `{ value: [...] }`; a body without `value` is not a list page.
      if (!body || typeof body !== "object" || (body.value !== null && !Array.isArray(body.value))) {
        throw new ApiError({
          operation: spec.operation,
          status: 200,
          code: "InvalidResponse",
          message: `page ${page} has no "value" array`,
          method: spec.method,
          url: redactUrl(this.urlOf(next)),
        });
      }
      const link = body.nextLink;
      next = link ? { ...spec, path: link, query: undefined } : undefined;
      yield body.value ?? [];
    }
  }

  /** Follows ARM paging item by item (see `pages`). */
  async *paginate<T>(spec: RequestSpec): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages<T>(spec)) yield* page;
  }

  /** Collects every item of a paged list. */
  async list<T>(spec: RequestSpec): Promise<T[]> {
    const out: T[] = [];
    for await (const page of this.pages<T>(spec)) for (const item of page) out.push(item);
    return out;
  }

  /** The absolute URL a request spec resolves to (query values unredacted: do not log it). */
  urlOf(spec: Pick<RequestSpec, "path" | "query">): string {
    return this.origin + this.pathOf(spec);
  }

  private pathOf(spec: Pick<RequestSpec, "path" | "query">): string {
    let path: string;
    let search = "";
    if (/^https?:\/\//i.test(spec.path)) {
      const u = new URL(spec.path);
      if (u.origin !== this.origin) {
        throw new Error(`refusing to follow a link to ${u.origin}: the endpoint is ${this.origin}`);
      }
      path = u.pathname;
      search = u.search.slice(1);
    } else {
      const q = spec.path.indexOf("?");
      path = this.basePath + (q < 0 ? spec.path : spec.path.slice(0, q));
      search = q < 0 ? "" : spec.path.slice(q + 1);
      // Fast path: nothing to merge, so the defaults encoded once in the constructor are the query.
      if (q < 0 && !hasDefined(spec.query)) return this.defaultSearch ? `${path}?${this.defaultSearch}` : path;
    }
    const params = new URLSearchParams(search);
    for (const [k, v] of Object.entries(this.query)) if (!params.has(k)) params.set(k, v);
    if (spec.query) for (const [k, v] of Object.entries(spec.query)) if (v !== undefined) params.set(k, String(v));
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
  }

  /**
   * Sends (with the retries of the retry policy); a 401 to a bearer token is sent once more with a new token when the credential
   * can discard the refused one (a token expired early by clock skew, or revoked, is cached still).
   */
  private async send(spec: RequestSpec, asBuffer = false): Promise<RawResult> {
    const raw = await this.sendOnce(spec, asBuffer);
    const auth = this.auth;
    if (raw.res.statusCode !== 401 || auth.kind !== "bearer" || !raw.bearerToken || !canDiscardTokens(auth.credential)) return raw;
    auth.credential.discardToken(raw.bearerToken);
    this.logger.warn(
      `${spec.operation} ${spec.method} ${redactUrl(this.origin + raw.path)}: 401 to the cached token; retrying once with a new one`,
    );
    return this.sendOnce(spec, asBuffer);
  }

  private async sendOnce(spec: RequestSpec, asBuffer: boolean): Promise<RawResult> {
    const clientRequestId = randomUUID();
    let path: string;
    try {
      path = this.pathOf(spec);
    } catch (e) {
      throw new ApiError({
        operation: spec.operation,
        status: 0,
        code: "InvalidLink",
        message: (e as Error).message,
        method: spec.method,
        url: this.displayUrl(spec),
        clientRequestId,
      });
    }
    const headers: Record<string, string> = { ...this.headers, "x-ms-client-request-id": clientRequestId, ...spec.headers };
    // Only a bearer credential needs an await; header and query keys are applied synchronously.
    const bearerToken = this.auth.kind === "bearer" ? await this.applyBearer(headers, spec) : undefined;
    if (this.auth.kind === "header") Object.assign(headers, this.auth.headers);
    let body: string | Buffer | Uint8Array | undefined;
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] = "application/json";
    } else if (spec.body) {
      body = spec.body.data;
      headers["content-type"] = spec.body.contentType;
    }

    const policy = spec.retry ? { ...this.retry, ...spec.retry } : this.retry;
    const started = Date.now();
    const state = { attempts: 1 };
    const logger = this.logger;
    const signal = spec.signal;
    const describe = () => `${spec.operation} ${spec.method} ${redactUrl(this.origin + path)}`;
    // Request events (src/http/request-events.ts): one per attempt, only when someone listens.
    const observe = (status: number, retrying: boolean) => {
      if (hasRequestListeners())
        emitRequestEvent({
          service: this.service ?? serviceOfRequest(this.baseUrl, path),
          operation: spec.operation,
          status,
          attempt: state.attempts,
          retrying,
        });
    };
    const retryOptions = {
      throwOnError: false,
      retry(err: RetryableError, _ctx: unknown, cb: (err?: Error | null) => void) {
        if (signal?.aborted) return cb(err);
        const decision = decideRetry(
          {
            method: spec.method,
            attempt: state.attempts,
            elapsedMs: Date.now() - started,
            status: err.statusCode,
            errorCode: err.code,
            headers: err.headers ?? undefined,
          },
          policy,
        );
        if (!decision.retry) {
          if (logger.debugEnabled !== false) logger.debug(`${describe()}: not retrying (${decision.reason})`);
          return cb(err);
        }
        observe(err.statusCode ?? 0, true);
        state.attempts += 1;
        logger.warn(`${describe()}: ${err.statusCode ?? err.code} on attempt ${state.attempts - 1}; retrying in ${decision.delayMs} ms`);
        sleep(decision.delayMs, signal).then(
          () => cb(null),
          () => cb(err),
        );
      },
    };

    const timeout = spec.timeoutMs ?? this.timeoutMs;
    const opts = {
      origin: this.origin,
      path,
      method: spec.method,
      headers,
      body,
      signal,
      headersTimeout: timeout,
      bodyTimeout: timeout,
      retryOptions,
    } as unknown as Dispatcher.RequestOptions;
    try {
      const res = await this.dispatcher.request(opts);
      observe(res.statusCode, false);
      let text = "";
      let buffer: Buffer | undefined;
      if (asBuffer) buffer = Buffer.from(await res.body.arrayBuffer());
      else text = await res.body.text();
      // Building this line redacts the URL (a URL parse): skip it when nobody reads debug lines.
      if (logger.debugEnabled !== false) {
        logger.debug(
          `${describe()} -> ${res.statusCode} in ${Date.now() - started} ms (attempts ${state.attempts}, x-ms-request-id ${headerValue(res.headers["x-ms-request-id"]) ?? "-"})`,
        );
      }
      return { res, text, buffer, clientRequestId, attempts: state.attempts, path, bearerToken };
    } catch (e) {
      if (e instanceof ApiError) throw e;
      observe(0, false);
      const err = e as RetryableError & { name?: string };
      const aborted = signal?.aborted || err.name === "AbortError";
      const code = aborted ? "RequestAborted" : (err.code ?? "ConnectionError");
      const message = aborted
        ? "the request was cancelled"
        : `no response from ${this.origin} after ${state.attempts} attempt(s) in ${Date.now() - started} ms: ${err.message}`;
      throw new ApiError({
        operation: spec.operation,
        status: 0,
        code,
        message: this.scrub(message),
        method: spec.method,
        url: redactUrl(this.origin + path),
        clientRequestId,
        attempts: state.attempts,
      });
    }
  }

  /** Sets the Authorization header; resolves to the token it used. */
  private async applyBearer(headers: Record<string, string>, spec: RequestSpec): Promise<string | undefined> {
    const auth = this.auth;
    if (auth.kind === "bearer") {
      let token;
      try {
        token = await auth.credential.getToken(auth.scopes, { abortSignal: spec.signal });
      } catch (e) {
        // A cancelled call is a cancelled call, even while it waits for its token.
        if (spec.signal?.aborted)
          throw new ApiError({
            operation: spec.operation,
            status: 0,
            code: "RequestAborted",
            message: "the request was cancelled",
            method: spec.method,
            url: this.displayUrl(spec),
          });
        throw new ApiError({
          operation: spec.operation,
          status: 0,
          code: "CredentialUnavailable",
          message: scrubTokens((e as Error).message),
          method: spec.method,
          url: this.displayUrl(spec),
        });
      }
      if (!token)
        throw new ApiError({
          operation: spec.operation,
          status: 0,
          code: "CredentialUnavailable",
          message: "the credential returned no token",
          method: spec.method,
          url: this.displayUrl(spec),
        });
      this.secrets.add(token.token);
      headers.authorization = `Bearer ${token.token}`;
      return token.token;
    }
    return undefined;
  }

  /** The request's URL for errors, redacted; it needs no valid path (a refused link is shown as it was given). */
  private displayUrl(spec: RequestSpec): string {
    return redactUrl(/^https?:\/\//i.test(spec.path) ? spec.path : this.origin + this.basePath + spec.path);
  }

  private error(spec: RequestSpec, raw: RawResult, status: number, code: string, message: string): ApiError {
    return new ApiError({
      operation: spec.operation,
      status,
      code: this.scrub(code),
      message: this.scrub(message),
      method: spec.method,
      url: redactUrl(this.origin + raw.path),
      requestId: headerValue(raw.res.headers["x-ms-request-id"]),
      clientRequestId: raw.clientRequestId,
      attempts: raw.attempts,
    });
  }

  private scrub(text: string): string {
    return scrubTokens(scrubSecrets(text, this.secrets));
  }
}

interface RawResult {
  res: Dispatcher.ResponseData;
  text: string;
  buffer?: Buffer;
  clientRequestId: string;
  attempts: number;
  path: string;
  /** The bearer token the request carried, if any. */
  bearerToken?: string;
}

interface RetryableError extends Error {
  statusCode?: number;
  code?: string;
  headers?: Record<string, string | string[] | undefined> | null;
}

function hasDefined(query: RequestSpec["query"]): boolean {
  if (!query) return false;
  for (const k in query) if (query[k] !== undefined) return true;
  return false;
}

function isOk(spec: RequestSpec, status: number): boolean {
  return spec.okStatuses ? spec.okStatuses.includes(status) : status >= 200 && status < 300;
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  408: "RequestTimeout",
  409: "Conflict",
  410: "Gone",
  429: "TooManyRequests",
  500: "InternalServerError",
  502: "BadGateway",
  503: "ServiceUnavailable",
  504: "GatewayTimeout",
};
function httpReason(status: number): string {
  return REASONS[status] ?? `HTTP${status}`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
