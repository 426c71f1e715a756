import type { EmulatorReply } from "../../kit/emulator-app";
import type { ErrorBody } from "../../../services/binary-analysis/types";

/** A request the service refuses: answered with the spec's error body (`status`, `message`) plus a `code`. */
export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Partial<ErrorBody> = {},
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

/** The reply for a ServiceError. */
export function errorReply(e: ServiceError): EmulatorReply {
  const body: ErrorBody = { status: e.status, message: e.message, code: e.code, ...e.extra };
  return { status: e.status, body };
}
