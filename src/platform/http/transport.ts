import { randomUUID } from "node:crypto";
import type { Dispatcher } from "undici";
import { ApiError, parseErrorBody } from "./api-error";
import type { AuthPolicy } from "./auth-policy";
import { composeRetry, dispatchTo, sharedDispatcher } from "./dispatch";
import { type Logger, loggerFromEnv } from "./logger";
import { composeStages, type OutgoingRequest, type RawResponse, type Send, type Stage } from "./pipeline";
import { httpRedactor, redactUrl, type SafeNames } from "../redaction";
import { normalizeRequestIdHeaders, readRequestId, requestIdHeaderNames, type RequestIdHeaders } from "./request-ids";
import type { ApiResponse, RequestSpec } from "./request-spec";
import { DEFAULT_RETRY, type RetryPolicyOptions } from "./retry-policy";
import { apiKeyStage } from "./stages/api-key-stage";
import { bearerTokenStage } from "./stages/bearer-token-stage";
import { loggingStage } from "./stages/logging-stage";
import { TransportContext } from "./transport-context";
import { VERSION } from "../version";
import { StackwardenError } from "../errors/stackwarden-error";

export { composeRetry, sharedDispatcher } from "./dispatch";
export type { RequestIdHeaders } from "./request-ids";
export type { ApiResponse, HttpMethod, RequestSpec } from "./request-spec";

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
  /** Query parameters and headers of this service that are safe to print in logs and errors; everything else is redacted. */
  safeNames?: SafeNames;
  /**
   * The headers of the service's request-id convention (ARM: `x-ms-client-request-id` sent,
   * `x-ms-request-id` read; see src/platform/arm/azure-request-ids.ts). Default: none, so no id is
   * sent and none is read into responses, errors or log lines.
   */
  requestIds?: RequestIdHeaders;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  /** Stages run after auth and before logging (outermost first), for concerns of one client. */
  stages?: readonly Stage[];
  logger?: Logger;
  /** The service name in request events (metrics). Default: derived from each request (see `serviceOfRequest`). */
  service?: string;
  /** The undici dispatcher to send through (the retry interceptor is composed in unless it already is). Default: one shared keep-alive Agent. */
  dispatcher?: Dispatcher;
}

const USER_AGENT = `stackwarden/${VERSION} node/${process.versions.node}`;

/**
 * The one HTTP transport. A call goes down a pipeline of stages (auth, then the client's own, then
 * logging), then to undici, whose retry interceptor retries by the retry policy. This class builds
 * URLs, parses responses and maps failures to one ApiError; every client sends through one.
 */
export class HttpTransport {
  readonly baseUrl: URL;
  private readonly ctx: TransportContext;
  private readonly headers: Record<string, string>;
  private readonly query: Record<string, string>;
  /** `this.query` encoded once, for requests that add no query of their own. */
  private readonly defaultSearch: string;
  /** The header each call's own id is sent in, when the service names one. */
  private readonly clientIdHeader?: string;
  private readonly send: Send;

  constructor(opts: TransportOptions) {
    let base: URL;
    try {
      base = new URL(opts.baseUrl);
    } catch {
      throw new StackwardenError("SW_SETTING_INVALID", `invalid endpoint URL "${opts.baseUrl}": expected an absolute http(s) URL`);
    }
    if (base.protocol !== "http:" && base.protocol !== "https:") {
      throw new StackwardenError("SW_SETTING_INVALID", `invalid endpoint URL "${redactUrl(base)}": only http and https are supported`);
    }
    this.baseUrl = base;
    const requestIds = normalizeRequestIdHeaders(opts.requestIds);
    const idHeaders = requestIdHeaderNames(requestIds);
    const safe = idHeaders.length ? { ...opts.safeNames, headers: [...(opts.safeNames?.headers ?? []), ...idHeaders] } : opts.safeNames;
    const redactor = safe ? httpRedactor.allow(safe) : httpRedactor;
    this.ctx = new TransportContext(base, redactor, opts.logger ?? loggerFromEnv(), opts.service, requestIds, opts.endpointSetting);
    this.clientIdHeader = requestIds.client;
    this.headers = { "user-agent": USER_AGENT, accept: "application/json", ...opts.headers };
    this.query = { ...opts.query };
    this.defaultSearch = new URLSearchParams(this.query).toString();
    // Without the retry interceptor a custom dispatcher would silently make one attempt only.
    const dispatcher = opts.dispatcher ? composeRetry(opts.dispatcher) : sharedDispatcher();
    const stages = [...authStages(this.ctx, opts.auth ?? { kind: "none" }), ...(opts.stages ?? []), loggingStage(this.ctx)];
    this.send = composeStages(stages, dispatchTo(this.ctx, dispatcher, { ...DEFAULT_RETRY, ...opts.retry }, opts.timeoutMs ?? 30_000));
  }

  /** Sends a request and parses a JSON response body; throws ApiError for a non-success status. */
  async json<T>(spec: RequestSpec): Promise<T> {
    // One async step per call (build, send, read): every await layer is paid on every request.
    const req = this.build(spec, false);
    return this.read<T>(req, await this.send(req), true).body;
  }

  /**
   * Like `json`, but returns the whole answer: status, headers and the call's ids (the service's
   * request id among them), for callers that must show where a value came from (evidence bundles).
   */
  async jsonResponse<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    const req = this.build(spec, false);
    return this.read<T>(req, await this.send(req), true);
  }

  /** Sends a request; the body is parsed as JSON when the response says so, else returned as text. */
  async request<T>(spec: RequestSpec): Promise<ApiResponse<T>> {
    const req = this.build(spec, false);
    return this.read<T>(req, await this.send(req), false);
  }

  /** Sends a request and returns the raw body bytes (for binary and XML payloads). */
  async bytes(spec: RequestSpec): Promise<ApiResponse<Buffer>> {
    const req = this.build(spec, true);
    const raw = await this.send(req);
    if (!isOk(spec, raw.res.statusCode)) {
      const text = raw.buffer!.toString("utf8");
      let parsed: { code?: string; message?: string } = {};
      try {
        parsed = parseErrorBody(JSON.parse(text));
      } catch {
        /* not JSON: use the text */
      }
      throw this.error(
        req,
        raw,
        parsed.code ?? httpReason(raw.res.statusCode),
        parsed.message ?? (text.slice(0, 200) || httpReason(raw.res.statusCode)),
      );
    }
    return this.response(req, raw, raw.buffer!);
  }

  /** The absolute URL a request spec resolves to (query values unredacted: do not log it). */
  urlOf(spec: Pick<RequestSpec, "path" | "query">): string {
    return this.ctx.origin + this.pathOf(spec);
  }

  /** The request's URL as errors and logs show it: redacted to this service's safe names. */
  displayUrl(spec: Pick<RequestSpec, "path" | "query">): string {
    try {
      return this.ctx.url(this.pathOf(spec));
    } catch {
      return this.ctx.displayUrl(spec);
    }
  }

  /** Parses an answer: JSON when it says so (or says nothing), an ApiError for a failure status. */
  private read<T>(req: OutgoingRequest, raw: RawResponse, requireJson: boolean): ApiResponse<T> {
    const spec = req.spec;
    const { res, text } = raw;
    const contentType = String(res.headers["content-type"] ?? "");
    let body: unknown = text;
    if (text.length > 0 && (contentType.includes("json") || contentType === "")) {
      try {
        body = JSON.parse(text);
      } catch {
        throw this.error(
          req,
          raw,
          "InvalidResponse",
          `the response body is not valid JSON (${text.length} bytes${isOk(spec, res.statusCode) ? ", possibly truncated" : ""})`,
        );
      }
    } else if (requireJson && text.length > 0 && isOk(spec, res.statusCode)) {
      // json() promises parsed data: an HTML page from a proxy or portal is not a result.
      throw this.error(req, raw, "InvalidResponse", `expected a JSON body, got ${contentType || "no content type"} (${text.length} bytes)`);
    }
    if (!isOk(spec, res.statusCode)) {
      const parsed = parseErrorBody(body);
      const fallback = typeof body === "string" && body ? body.slice(0, 200) : httpReason(res.statusCode);
      throw this.error(req, raw, parsed.code ?? httpReason(res.statusCode), parsed.message ?? fallback);
    }
    return this.response(req, raw, body as T);
  }

  /** Builds the outgoing request (URL, headers, body), to send down the stages. */
  private build(spec: RequestSpec, asBuffer: boolean): OutgoingRequest {
    const clientRequestId = this.clientIdHeader ? randomUUID() : undefined;
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
        url: this.ctx.displayUrl(spec),
        ...this.ctx.ids(clientRequestId),
      });
    }
    // Object.assign, not spread: a spread of these header objects costs about 1 us, on every request.
    const headers: Record<string, string> = Object.assign({}, this.headers);
    // Set here, not in a stage of its own: the header object is being built anyway, and a stage
    // would copy it once more on every request. Before the spec's headers, so a call may set its own.
    if (clientRequestId !== undefined) headers[this.clientIdHeader!] = clientRequestId;
    if (spec.headers) Object.assign(headers, spec.headers);
    let body: OutgoingRequest["body"];
    if (spec.json !== undefined) {
      body = JSON.stringify(spec.json);
      headers["content-type"] = "application/json";
    } else if (spec.body) {
      body = spec.body.data;
      headers["content-type"] = spec.body.contentType;
    } else if (spec.form) {
      // undici writes the multipart boundary into the content type itself.
      body = spec.form as unknown as OutgoingRequest["body"];
    }
    return { spec, path, headers, body, asBuffer, clientRequestId };
  }

  private pathOf(spec: Pick<RequestSpec, "path" | "query">): string {
    let path: string;
    let search: string;
    if (/^https?:\/\//i.test(spec.path)) {
      const u = new URL(spec.path);
      if (u.origin !== this.ctx.origin) {
        throw new Error(`refusing to follow a link to ${u.origin}: the endpoint is ${this.ctx.origin}`);
      }
      path = u.pathname;
      search = u.search.slice(1);
    } else {
      const q = spec.path.indexOf("?");
      path = this.ctx.basePath + (q < 0 ? spec.path : spec.path.slice(0, q));
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

  private error(req: OutgoingRequest, raw: RawResponse, code: string, message: string): ApiError {
    return new ApiError({
      operation: req.spec.operation,
      status: raw.res.statusCode,
      code: this.ctx.scrub(code),
      message: this.ctx.scrub(message),
      method: req.spec.method,
      url: this.ctx.url(raw.sentPath),
      ...this.ctx.ids(req.clientRequestId, raw.res.headers),
      attempts: raw.attempts,
    });
  }

  private response<T>(req: OutgoingRequest, raw: RawResponse, body: T): ApiResponse<T> {
    // The ids written field by field (the keys `ctx.ids` gives, in its order), not spread from a
    // second object: every answer of every client is built here.
    const headers = raw.res.headers;
    const theirs = readRequestId(headers, this.ctx.requestIds.response);
    const clientRequestId = req.clientRequestId;
    return {
      status: raw.res.statusCode,
      headers,
      body,
      requestId: theirs?.value,
      requestIdHeader: theirs?.header,
      clientRequestId,
      clientRequestIdHeader: clientRequestId === undefined ? undefined : this.ctx.requestIds.client,
      attempts: raw.attempts,
    };
  }
}

/** The stages an auth policy needs. */
function authStages(ctx: TransportContext, auth: AuthPolicy): Stage[] {
  switch (auth.kind) {
    case "bearer":
      return [bearerTokenStage(ctx, auth.credential, auth.scopes)];
    case "header":
      return [apiKeyStage(ctx, { headers: auth.headers })];
    case "query":
      return [apiKeyStage(ctx, { query: { name: auth.name, value: auth.value } })];
    default:
      return [];
  }
}

function hasDefined(query: RequestSpec["query"]): boolean {
  if (!query) return false;
  for (const k in query) if (query[k] !== undefined) return true;
  return false;
}

function isOk(spec: RequestSpec, status: number): boolean {
  return spec.okStatuses ? spec.okStatuses.includes(status) : status >= 200 && status < 300;
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
