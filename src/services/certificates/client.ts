import { randomUUID } from "node:crypto";
import { ApiError, HttpTransport, type ApiResponse, type Logger, type RequestSpec, type RetryPolicyOptions } from "../../platform/http";
import { redactUrl, scrubSecrets, scrubTokens } from "../../platform/redaction";
import { AZURE_REQUEST_IDS } from "../../platform/arm/azure-request-ids";
import type { Dispatcher } from "undici";
import type { NamingStyle } from "../../platform/settings/naming-style";
import { DOCTYPE_INFO, defaultFormat, operationPath, type CertificateFormat, type Doctype } from "./catalogue";
import { documentKind } from "./document-kind";
import { keyHeaderNames } from "./header-names";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type {
  CertificateErrorBody,
  CertificateParametersByDoctype,
  CertificateRequestBody,
  ConsentArtifact,
  FormatsByDoctype,
  IssuedDocument,
} from "./types";

export interface CertificatesClientOptions {
  /** The part of the base address before `/<issuer>/v3`: `https://apisetu.gov.in`, or `<emulator>/apisetu`. */
  endpoint: string;
  /** What chose the endpoint (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_EMULATOR`, `--emulator`, `the default of …`): named when nothing answers there. */
  endpointSetting?: string;
  /** Sent as `X-APISETU-APIKEY` (or `X-GATEWAY-APIKEY`); redacted from every log line and error. */
  apiKey: string;
  /** Sent as `X-APISETU-CLIENTID` (or `X-GATEWAY-CLIENTID`); a credential too, redacted like the key. */
  clientId: string;
  /** `real` (default) sends the spec's header names, `described` the product description's. */
  naming?: NamingStyle;
  retry?: Partial<RetryPolicyOptions>;
  /** Per-attempt timeout in ms. Default 30 000. */
  timeoutMs?: number;
  logger?: Logger;
  dispatcher?: Dispatcher;
}

/** What to ask one issuer for. */
export interface IssueRequest<D extends Doctype> {
  certificateParameters: CertificateParametersByDoctype[D];
  /** Default: the first format the doctype's spec lists that is `pdf`, else its first. */
  format?: FormatsByDoctype[D];
  consentArtifact?: ConsentArtifact;
  signal?: AbortSignal;
}

/**
 * A certificate pull is a read: it changes nothing at the issuer, and its txnId names it, so
 * 429 and 5xx answers are worth another try even though the method is POST.
 */
const CERTIFICATE_RETRY: Partial<RetryPolicyOptions> = { retryNonIdempotent: true };

/** Every status: error bodies are read here, in the spec's `{ error, errorDescription }` form. */
const EVERY_STATUS: readonly number[] = Array.from({ length: 500 }, (_, i) => 100 + i);

/**
 * A client for the 12 certificate operations of the four issuers (`POST <endpoint>/<issuer>/v3/<doctype>/certificate`).
 *
 * Strict in what it sends: the doctype's own `certificateParameters` (every required field, no
 * others), only a format its spec allows, a fresh UUID `txnId` per call. It reads the answer by
 * content type: the document's bytes for PDF and XML; the spec's error bodies become an ApiError
 * whose code is the spec's `error` (`record_not_found`, `invalid_authentication` ...) and whose
 * message is its `errorDescription`. Key values (the API key and the client id) and the parameters
 * sent are scrubbed from every error text, in case an issuer echoes them.
 */
export class CertificatesClient {
  private readonly http: HttpTransport;
  /** The key values sent on every call (API key and client id), scrubbed from every error text. */
  private readonly keys: readonly string[];

  constructor(opts: CertificatesClientOptions) {
    const names = keyHeaderNames(opts.naming);
    this.keys = [opts.apiKey, opts.clientId];
    this.http = new HttpTransport({
      baseUrl: opts.endpoint,
      endpointSetting: opts.endpointSetting,
      auth: { kind: "header", headers: { [names.apiKey]: opts.apiKey, [names.clientId]: opts.clientId } },
      // Neither key header is declared safe: the redactor hides both values in logged headers, and the
      // transport registers both as secrets (the client id is a key variable of the contract too).
      // Not an Azure API, but its calls have always carried Azure's request ids (the emulator answers
      // every service with them, and errors quote them): kept, so that errors read as before
      // (the issuers' own `x-request-id` is read into an issued document's requestId below).
      requestIds: AZURE_REQUEST_IDS,
      retry: { ...CERTIFICATE_RETRY, ...opts.retry },
      timeoutMs: opts.timeoutMs,
      logger: opts.logger,
      dispatcher: opts.dispatcher,
    });
  }

  /** Asks the doctype's issuer for a certificate; resolves to the document, or throws ApiError with the issuer's error. */
  async issue<D extends Doctype>(doctype: D, request: IssueRequest<D>): Promise<IssuedDocument> {
    const info = DOCTYPE_INFO[doctype];
    if (!info) throw new StackwardenError("SW_CONFIG_INVALID", `unknown certificate doctype "${String(doctype)}"`);
    const format: CertificateFormat = request.format ?? defaultFormat(doctype);
    if (!info.formats.includes(format)) {
      throw new StackwardenError(
        "SW_CONFIG_INVALID",
        `${info.issuer}/${doctype}: format "${format}" is not offered; its spec allows ${info.formats.join(", ")}`,
      );
    }
    const parameters = checkParameters(doctype, request.certificateParameters as unknown as Record<string, unknown>);
    const txnId = randomUUID();
    const body: CertificateRequestBody = {
      txnId,
      format,
      certificateParameters: parameters as unknown as CertificateRequestBody["certificateParameters"],
      ...(request.consentArtifact ? { consentArtifact: request.consentArtifact } : {}),
    };
    const spec: RequestSpec = {
      operation: `${info.issuer}.${doctype}`,
      method: "POST",
      path: `/${info.issuer}/v3${operationPath(doctype)}`,
      headers: {
        accept: format === "pdf" ? "application/pdf, application/json;q=0.5" : "application/xml, text/xml;q=0.9, application/json;q=0.5",
      },
      json: body,
      okStatuses: EVERY_STATUS,
      signal: request.signal,
    };
    const secrets = [...this.keys, ...Object.values(parameters)];
    const res = await this.send(spec, secrets);
    const contentType = headerValue(res.headers["content-type"]) ?? "";
    const kind = documentKind(contentType);
    if (res.status >= 400 || (kind === "other" && /json/i.test(contentType) && isErrorBody(res.body))) {
      throw this.errorOf(spec, res, secrets);
    }
    return {
      issuer: info.issuer,
      doctype,
      format,
      kind,
      contentType,
      bytes: res.body,
      txnId,
      status: res.status,
      requestId: res.requestId ?? headerValue(res.headers["x-request-id"]),
    };
  }

  private async send(spec: RequestSpec, secrets: string[]): Promise<ApiResponse<Buffer>> {
    try {
      return await this.http.bytes(spec);
    } catch (e) {
      // The transport scrubs the key values; an error that quotes the request could still hold a parameter.
      if (e instanceof ApiError) throw rescrub(e, secrets);
      throw e;
    }
  }

  /** The spec's error body (`{ error, errorDescription }`) as an ApiError; any other body is described, not quoted at length. */
  private errorOf(spec: RequestSpec, res: ApiResponse<Buffer>, secrets: string[]): ApiError {
    const parsed = parseCertificateError(res.body);
    const fallbackCode = res.status >= 400 ? `HTTP${res.status}` : "InvalidResponse";
    const text = res.body.toString("utf8");
    const message = parsed
      ? `${parsed.errorDescription ?? parsed.error}${parsed.field ? ` (field ${parsed.field})` : ""}`
      : text.trim()
        ? text.slice(0, 200)
        : `HTTP ${res.status} with no body`;
    const scrub = (s: string) => scrubTokens(scrubSecrets(s, secrets));
    return new ApiError({
      operation: spec.operation,
      status: res.status,
      code: scrub(parsed?.error ?? fallbackCode),
      message: scrub(message),
      method: spec.method,
      url: redactUrl(this.http.urlOf(spec)),
      requestId: res.requestId,
      requestIdHeader: res.requestIdHeader,
      clientRequestId: res.clientRequestId,
      clientRequestIdHeader: res.clientRequestIdHeader,
      attempts: res.attempts,
    });
  }
}

/** Reads `{ error, errorDescription, field? }` from a body; undefined when it is not that shape. */
export function parseCertificateError(body: Buffer | string): CertificateErrorBody | undefined {
  let value: unknown;
  try {
    value = JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!value || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.error !== "string" || !v.error) return undefined;
  return {
    error: v.error,
    errorDescription: typeof v.errorDescription === "string" && v.errorDescription ? v.errorDescription : v.error,
    ...(typeof v.field === "string" && v.field ? { field: v.field } : {}),
  };
}

function isErrorBody(body: Buffer): boolean {
  return parseCertificateError(body) !== undefined;
}

/** The doctype's parameters as the spec names them, each a non-empty string; refuses missing and unknown fields. */
function checkParameters(doctype: Doctype, given: Record<string, unknown> | undefined): Record<string, string> {
  const info = DOCTYPE_INFO[doctype];
  if (!given || typeof given !== "object")
    throw new StackwardenError("SW_CONFIG_INVALID", `${info.issuer}/${doctype}: certificateParameters are required`);
  const out: Record<string, string> = {};
  for (const field of info.parameters) {
    const v = given[field.name];
    if (v === undefined || v === null || v === "") {
      if (field.required)
        throw new StackwardenError(
          "SW_CONFIG_INVALID",
          `${info.issuer}/${doctype}: certificateParameters.${field.name} (${field.description}) is required`,
        );
      continue;
    }
    if (typeof v !== "string")
      throw new StackwardenError("SW_CONFIG_INVALID", `${info.issuer}/${doctype}: certificateParameters.${field.name} must be a string`);
    out[field.name] = v;
  }
  const unknown = Object.keys(given).filter((k) => !info.parameters.some((f) => f.name === k));
  if (unknown.length) {
    throw new StackwardenError(
      "SW_CONFIG_INVALID",
      `${info.issuer}/${doctype}: certificateParameters has no field ${unknown.map((k) => `"${k}"`).join(", ")}; the spec defines ${info.parameters.map((f) => f.name).join(", ")}`,
    );
  }
  return out;
}

function rescrub(e: ApiError, secrets: string[]): ApiError {
  const scrub = (s: string) => scrubSecrets(s, secrets);
  const detail = scrub(e.detail);
  const code = scrub(e.code);
  if (detail === e.detail && code === e.code) return e;
  return e.restate({ code, message: detail });
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
