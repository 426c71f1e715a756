import { CERTIFICATE_ERRORS, type CertificateErrorBody } from "../../../services/certificates/types";
import type { EmulatorReply } from "../../kit/emulator-app";
import type { EmulatorErrorKind } from "../../kit/local-service";

/** A reply carrying the spec's error body. */
export function errorReply(status: number, body: CertificateErrorBody, headers?: Record<string, string>): EmulatorReply {
  return { status, body, ...(headers ? { headers } : {}) };
}

/** The spec's body for a status it documents (the first code listed for it), or a body of the same shape for one it does not. */
export function specErrorBody(status: number): CertificateErrorBody {
  const documented = (CERTIFICATE_ERRORS as Record<number, Record<string, string>>)[status];
  if (documented) {
    const [error, errorDescription] = Object.entries(documented)[0];
    return { error, errorDescription };
  }
  if (status === 429)
    return { error: "too_many_requests", errorDescription: "Too many requests: retry after the time given in Retry-After" };
  if (status >= 500) return { error: "internal_server_error", errorDescription: CERTIFICATE_ERRORS[500].internal_server_error };
  return { error: "invalid_parameter", errorDescription: CERTIFICATE_ERRORS[400].invalid_parameter };
}

/**
 * The emulator's own answers on the issuers' paths, in the spec's error form: injected faults get
 * the spec's body for their status (500, 502, 503, 504), an unrouted path or method 404
 * `url_not_found`, a body that is not JSON 400 `invalid_parameter`.
 */
export function emulatorErrorReply(status: number, kind: EmulatorErrorKind): EmulatorReply {
  switch (kind) {
    case "no-route":
      return errorReply(404, { error: "url_not_found", errorDescription: CERTIFICATE_ERRORS[404].url_not_found });
    case "invalid-body":
      return errorReply(400, { error: "invalid_parameter", errorDescription: CERTIFICATE_ERRORS[400].invalid_parameter, field: "body" });
    default:
      return errorReply(status, specErrorBody(status));
  }
}
