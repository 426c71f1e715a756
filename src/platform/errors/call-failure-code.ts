import type { ErrorCode } from "./error-codes";

// How a failed call (a CallFailure: the HTTP transport's ApiError, or any other) maps to the stable
// codes of the catalogue. Here, below the transport, so that the domain can say why a resource could
// not be read without naming the HTTP layer.

/**
 * Transport codes of a call that reached nothing: no one listens at the address, its name does not
 * resolve, or no route leads there. The endpoint is down or wrong; no credential is to blame.
 */
export const UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "ENETUNREACH",
  "EHOSTUNREACH",
]);

/** Whether a transport code means the endpoint could not be reached at all. */
export function isUnreachableCode(code: string | undefined): boolean {
  return code !== undefined && UNREACHABLE_CODES.has(code);
}

/** Transport codes of a call whose answer did not come in time (undici's per-attempt timeouts, the system's). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT", "TimeoutError"]);

/**
 * The stable code of a failed call, by what happened: no answer at all (unreachable, timed out,
 * cut off, cancelled, no credential, an endpoint a token must not be sent to), or the service's
 * answer (401/403 refused, 404 no such resource, 429 still throttled after the retries, 5xx, another
 * 4xx), or an answer that cannot be used. `status` is 0 when no answer came; `code` is the service's
 * code or the transport's.
 */
export function callFailureCode(status: number, code: string): ErrorCode {
  if (status === 0) return noAnswerCode(code);
  if (status === 401 || status === 403) return "SW_ACCESS_DENIED";
  if (status === 404) return "SW_RESOURCE_NOT_FOUND";
  if (status === 408) return "SW_TIMEOUT";
  if (status === 429) return "SW_THROTTLED";
  if (status >= 500) return "SW_SERVICE_ERROR";
  if (status >= 400) return "SW_REQUEST_REJECTED";
  return "SW_RESPONSE_INVALID";
}

function noAnswerCode(code: string): ErrorCode {
  if (isUnreachableCode(code)) return "SW_ENDPOINT_UNREACHABLE";
  if (TIMEOUT_CODES.has(code)) return "SW_TIMEOUT";
  switch (code) {
    case "RequestAborted":
      return "SW_CANCELLED";
    case "CredentialUnavailable":
      return "SW_CREDENTIAL_UNAVAILABLE";
    case "InsecureConnection":
      return "SW_SETTING_INVALID";
    case "InvalidLink":
      return "SW_RESPONSE_INVALID";
    default:
      return "SW_CONNECTION_LOST";
  }
}
