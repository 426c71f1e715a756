import { StackwardenError } from "../errors/stackwarden-error";

/** The variable that sets a blob lease's length, in seconds. */
export const LEASE_SECONDS_VAR = "STACKWARDEN_LEASE_SECONDS";
/** The variable that sets each storage try's client-side deadline, in ms. */
export const STATE_TIMEOUT_VAR = "STACKWARDEN_STATE_TIMEOUT_MS";
/** A blob lease's length when STACKWARDEN_LEASE_SECONDS is unset, in seconds. */
export const DEFAULT_LEASE_SECONDS = 30;
/** Each storage try's deadline when STACKWARDEN_STATE_TIMEOUT_MS is unset (and the lease leaves room for it), in ms. */
export const DEFAULT_STATE_TIMEOUT_MS = 5_000;
/** The shortest deadline a try may have, in ms: below it a healthy store's answers would be cut off. */
const MIN_STATE_TIMEOUT_MS = 100;

/** A blob lease's length in ms: 15 to 60 s, as Blob Storage allows (SW_SETTING_INVALID otherwise, naming the variable). */
export function leaseMsOf(seconds: number | string = DEFAULT_LEASE_SECONDS): number {
  const n = Number(seconds);
  if (!(n >= 15 && n <= 60))
    throw new StackwardenError("SW_SETTING_INVALID", `${LEASE_SECONDS_VAR}: a blob lease lasts 15 to 60 s, got ${String(seconds)}`);
  return n * 1000;
}

/**
 * Each storage try's client-side deadline for a lease of `leaseMs`: `requested`
 * (STACKWARDEN_STATE_TIMEOUT_MS), or 5 s, or a quarter of the lease when that is shorter. At most
 * a quarter of the lease: a store that stops answering is then found out (a try and its one retry)
 * before half the lease is gone, so a holder gives up its lease, and ends, within half a lease and
 * one more try of the store's last answer (SW_SETTING_INVALID otherwise, naming the variable).
 */
export function stateTimeoutMs(leaseMs: number, requested?: number | string): number {
  if (requested === undefined || requested === "") return Math.min(DEFAULT_STATE_TIMEOUT_MS, Math.floor(leaseMs / 4));
  const n = Number(requested);
  if (!Number.isInteger(n) || n < MIN_STATE_TIMEOUT_MS || n > leaseMs / 4)
    throw new StackwardenError(
      "SW_SETTING_INVALID",
      `${STATE_TIMEOUT_VAR}: each try's deadline is whole milliseconds from ${MIN_STATE_TIMEOUT_MS} to a quarter of the lease (${leaseMs / 4} ms of ${leaseMs / 1000} s, ${LEASE_SECONDS_VAR}), got ${String(requested)}`,
    );
  return n;
}
