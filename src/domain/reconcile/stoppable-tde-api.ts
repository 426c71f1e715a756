import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { TdeApi } from "./tde-api";

/** The apply was stopped (shutdown) before it could send its next request (`SW_CANCELLED`). */
export class StoppedError extends StackwardenError {
  constructor(reason: string) {
    super("SW_CANCELLED", reason);
    this.name = "StoppedError";
  }
}

/**
 * Wraps a TdeApi so that `stop` ends an apply between requests, never in the middle of one: a
 * request already sent is allowed to finish (a PUT that reached Azure is answered, so its
 * outcome is known), and no request starts once `stop` is aborted. Per-call signals are not
 * forwarded: pass `stop` as the apply's signal, so that it ends the waits between polls.
 */
export function stopBetweenRequests(api: TdeApi, stop: AbortSignal): TdeApi {
  const check = () => {
    if (stop.aborted) throw new StoppedError(`stopped before the next request: ${(stop.reason as Error)?.message ?? "shutting down"}`);
  };
  return {
    getTransparentDataEncryption: (db) => (check(), api.getTransparentDataEncryption(db)),
    putTransparentDataEncryption: (db, status) => (check(), api.putTransparentDataEncryption(db, status)),
    listTransparentDataEncryptionActivities: (db) => (check(), api.listTransparentDataEncryptionActivities(db)),
  };
}
