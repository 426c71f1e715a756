/** Everything a caller needs to act on a failed API call; the message is already redacted. */
export interface ApiErrorDetails {
  /** Logical operation, e.g. `TransparentDataEncryptions_Get`. */
  operation: string;
  /** HTTP status, or 0 when no response arrived (connection error, timeout, abort). */
  status: number;
  /** ARM error code from the body (`error.code`), or a transport code such as `ECONNRESET`. */
  code: string;
  message: string;
  method: string;
  /** The request URL with non-allowlisted query values redacted. */
  url: string;
  /** `x-ms-request-id` from the response, when the service sent one. */
  requestId?: string;
  /** The `x-ms-client-request-id` we sent. */
  clientRequestId?: string;
  /** How many attempts were made in all. */
  attempts?: number;
}

/** The one error type the transport throws for a failed call. */
export class ApiError extends Error {
  readonly operation: string;
  readonly status: number;
  readonly code: string;
  readonly method: string;
  readonly url: string;
  readonly requestId?: string;
  readonly clientRequestId?: string;
  readonly attempts?: number;
  readonly detail: string;

  constructor(d: ApiErrorDetails) {
    super(formatApiError(d));
    this.name = "ApiError";
    this.operation = d.operation;
    this.status = d.status;
    this.code = d.code;
    this.method = d.method;
    this.url = d.url;
    this.requestId = d.requestId;
    this.clientRequestId = d.clientRequestId;
    this.attempts = d.attempts;
    this.detail = d.message;
  }
}

function formatApiError(d: ApiErrorDetails): string {
  const status = d.status ? `HTTP ${d.status} ` : "";
  const ids = d.requestId
    ? ` (x-ms-request-id: ${d.requestId})`
    : d.clientRequestId
      ? ` (x-ms-client-request-id: ${d.clientRequestId})`
      : "";
  return `${d.operation} failed: ${status}${d.code}: ${d.message}${ids}`;
}

/** Extracts `{ code, message }` from an ARM (`{error:{code,message}}`), OData or IMDS (`{error, error_description}`) body. */
export function parseErrorBody(body: unknown): { code?: string; message?: string } {
  if (!body || typeof body !== "object") return {};
  const b = body as Record<string, unknown>;
  const inner = b.error;
  if (inner && typeof inner === "object") {
    const e = inner as Record<string, unknown>;
    return { code: asString(e.code), message: asString(e.message) };
  }
  if (typeof inner === "string") {
    const description = asString(b.error_description) ?? asString(b.message);
    // IMDS's instance and attested errors are `{ "error": "<sentence>" }`: a message, not a code.
    if (description === undefined && /\s/.test(inner)) return { message: inner };
    return { code: inner, message: description };
  }
  return { code: asString(b.code), message: asString(b.message) };
}

function asString(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 ? v : undefined;
}
