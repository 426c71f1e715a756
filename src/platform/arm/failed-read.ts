import { ApiError } from "../http/api-error";

/**
 * The cloud's answer about the one resource a failed call asked for (403: no role grants the read;
 * 404: it is gone, or was never there; a 5xx that outlasted the retries …), as a plain value: what
 * the domain judges and reports, without knowing the HTTP layer's error type.
 */
export interface FailedRead {
  /** The HTTP status. */
  status: number;
  /** The error code the service answered (`AuthorizationFailed`, `ResourceNotFound` …). */
  code: string;
  /** The service's message, as it answered it. */
  message: string;
  /** The spec's operation that failed. */
  operation: string;
  /** The service's id for the call (Resource Manager's `x-ms-request-id`), when it answered one. */
  requestId?: string;
}

/**
 * What a failed call is, when it is the cloud's answer about the resource it asked for: an HTTP
 * error other than 401, which refuses every read alike. Undefined for anything else (no answer at
 * all, no credential, a refused token, a cancellation, a bug): the caller rethrows those, since
 * every other read would fail the same way.
 */
export function failedReadOf(e: unknown): FailedRead | undefined {
  if (!(e instanceof ApiError) || e.status < 400 || e.status === 401) return undefined;
  return {
    status: e.status,
    code: e.code,
    message: e.detail,
    operation: e.operation,
    ...(e.requestId ? { requestId: e.requestId } : {}),
  };
}
