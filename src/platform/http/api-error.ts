import { CallFailure } from "../errors/call-failure";
import { callFailureCode } from "../errors/call-failure-code";

/** Everything a caller needs to act on a failed API call; the message is already redacted. */
export interface ApiErrorDetails {
  /** Logical operation, e.g. `TransparentDataEncryptions_Get`. */
  operation: string;
  /** HTTP status, or 0 when no response arrived (connection error, timeout, abort). */
  status: number;
  /** The error code from the body (`error.code`, as ARM and OData put it), or a transport code such as `ECONNRESET`. */
  code: string;
  message: string;
  method: string;
  /** The request URL with non-allowlisted query values redacted. */
  url: string;
  /** The service's id for the call, from the answer (ARM's `x-ms-request-id`), when it sent one. */
  requestId?: string;
  /** The header `requestId` came from, named in the message. */
  requestIdHeader?: string;
  /** The id the transport sent with the call (ARM's `x-ms-client-request-id`), when the service names a header for it. */
  clientRequestId?: string;
  /** The header `clientRequestId` was sent in, named in the message. */
  clientRequestIdHeader?: string;
  /** How many attempts were made in all. */
  attempts?: number;
}

/**
 * The one error type the transport throws for a failed call; its stable code follows from what
 * happened (callFailureCode). Beyond the CallFailure the domain reads, it says how the call was sent.
 */
export class ApiError extends CallFailure {
  readonly operation: string;
  readonly status: number;
  readonly code: string;
  readonly method: string;
  readonly url: string;
  readonly requestId?: string;
  readonly requestIdHeader?: string;
  readonly clientRequestId?: string;
  readonly clientRequestIdHeader?: string;
  readonly attempts?: number;
  readonly detail: string;

  constructor(d: ApiErrorDetails) {
    super(callFailureCode(d.status, d.code), formatApiError(d));
    this.name = "ApiError";
    this.operation = d.operation;
    this.status = d.status;
    this.code = d.code;
    this.method = d.method;
    this.url = d.url;
    this.requestId = d.requestId;
    this.requestIdHeader = d.requestIdHeader;
    this.clientRequestId = d.clientRequestId;
    this.clientRequestIdHeader = d.clientRequestIdHeader;
    this.attempts = d.attempts;
    this.detail = d.message;
  }

  /** The same failure told another way (a clearer code or message); status, URL, request ids and attempts are kept. */
  restate(change: { code?: string; message: string }): ApiError {
    return new ApiError({
      operation: this.operation,
      status: this.status,
      code: change.code ?? this.code,
      message: change.message,
      method: this.method,
      url: this.url,
      requestId: this.requestId,
      requestIdHeader: this.requestIdHeader,
      clientRequestId: this.clientRequestId,
      clientRequestIdHeader: this.clientRequestIdHeader,
      attempts: this.attempts,
    });
  }
}

function formatApiError(d: ApiErrorDetails): string {
  const status = d.status ? `HTTP ${d.status} ` : "";
  // The service's id if it sent one, else ours: either lets the service's operators find the call.
  const ids = d.requestId
    ? ` (${d.requestIdHeader ?? "request id"}: ${d.requestId})`
    : d.clientRequestId
      ? ` (${d.clientRequestIdHeader ?? "client request id"}: ${d.clientRequestId})`
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
