import { StackwardenError } from "./stackwarden-error";

/**
 * A call to a service that failed, as the code that made the call reasons about it: which
 * operation, and what the service answered (its status, 0 when no answer came, and its own code and
 * message). The HTTP transport's ApiError is one (src/platform/http/api-error.ts); the domain judges
 * failures through this type and never names the transport's (dependency-cruiser: domain-knows-no-http).
 */
export abstract class CallFailure extends StackwardenError {
  /** The spec's operation, e.g. `TransparentDataEncryptions_Get`. */
  abstract readonly operation: string;
  /** The answer's status, or 0 when no answer came (no connection, a timeout, a cancellation). */
  abstract readonly status: number;
  /** The service's error code, or the transport's (`ECONNRESET`, `RequestAborted`). */
  abstract readonly code: string;
  /** The service's message, without the request's details (the error's `message` has those). */
  abstract readonly detail: string;
  /** The service's id for the call, when it answered with one. */
  abstract readonly requestId?: string;
}
