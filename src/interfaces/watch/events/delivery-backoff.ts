export interface BackoffOptions {
  /** The delay before the first retry, in ms. Default 1000 (1 second). */
  initialMs?: number;
  /** The longest delay between attempts, in ms. Default 300 000 (5 minutes). */
  maxMs?: number;
}

/** The longest wait a receiver's Retry-After can ask for, in ms (1 hour): beyond it, our own backoff applies. */
export const MAX_RETRY_AFTER_MS = 3_600_000;

/**
 * How long to wait before attempt `failures + 1` of a delivery, after `failures` failed ones:
 * exponential (initial × 2^(failures-1), capped), with equal jitter (half fixed, half random) so
 * retries of many deliveries spread out. A receiver's Retry-After wins when it asks for longer.
 */
export function retryDelayMs(
  failures: number,
  opts: BackoffOptions = {},
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const initial = opts.initialMs ?? 1000;
  const max = opts.maxMs ?? 300_000;
  const ceiling = Math.min(max, initial * 2 ** Math.max(0, failures - 1));
  const delay = ceiling / 2 + (random() * ceiling) / 2;
  return Math.round(Math.max(delay, Math.min(retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)));
}

/** Reads Retry-After (seconds or an HTTP date) in ms; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}
