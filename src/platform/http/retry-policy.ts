import { parseRetryAfterMs } from "./retry-after";

/** Settings of the retry policy; every field is optional where it is accepted and has a default. */
export interface RetryPolicyOptions {
  /** Attempts in all, the first included. Default 5. */
  maxAttempts: number;
  /** Total time budget across attempts and waits, in ms. Default 60 000. */
  maxElapsedMs: number;
  /** First backoff, in ms; it doubles on each retry. Default 500. */
  baseDelayMs: number;
  /** Cap of one backoff wait, in ms. Default 20 000. */
  maxDelayMs: number;
  /** Statuses worth another try. Default: 408, 429 and 5xx except 501 and 505. */
  retryStatuses: (status: number) => boolean;
  /**
   * Statuses that are retried for at least this long whatever `maxAttempts` says
   * (IMDS asks for 410 to be retried for 70 s while it boots).
   */
  minRetryWindowMs: Record<number, number>;
  /** Whether non-idempotent methods (POST, PATCH) may be retried after a response or a sent request. */
  retryNonIdempotent: boolean;
  /**
   * Whether to retry when no connection could be made at all (refused, unreachable, connect
   * timeout). Default true; IMDS turns it off until it has answered once, so that a machine
   * without IMDS fails at once instead of after the whole retry budget.
   */
  retryUnreachable: boolean;
  /** Random source for jitter, in [0, 1). */
  random: () => number;
}

export function defaultRetryStatuses(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599 && status !== 501 && status !== 505);
}

export const DEFAULT_RETRY: RetryPolicyOptions = {
  maxAttempts: 5,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  retryStatuses: defaultRetryStatuses,
  minRetryWindowMs: {},
  retryNonIdempotent: false,
  retryUnreachable: true,
  random: Math.random,
};

/** Connection-level failures after which the request can safely be sent again. */
const RETRYABLE_ERROR_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CLOSED",
]);

/** Errors where no connection could be made: nothing is listening there, or nothing is there. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENETUNREACH", "EHOSTUNREACH"]);

/** Errors where the request never reached the server, so even a POST may be sent again. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"]);

const IDEMPOTENT = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"]);

export interface RetryInput {
  method: string;
  /** Attempts made so far (1 after the first failure). */
  attempt: number;
  /** Time since the first attempt started, in ms. */
  elapsedMs: number;
  /** Response status, when a response arrived. */
  status?: number;
  /** Error code, when the connection failed. */
  errorCode?: string;
  headers?: Record<string, string | string[] | undefined>;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string };

/** Decides whether and when to try again. Pure: all inputs are passed in. */
export function decideRetry(input: RetryInput, opts: RetryPolicyOptions): RetryDecision {
  const { status, errorCode } = input;
  const idempotent = IDEMPOTENT.has(input.method.toUpperCase()) || opts.retryNonIdempotent;
  if (status !== undefined) {
    if (!opts.retryStatuses(status)) return { retry: false, reason: `status ${status} is not retryable` };
    if (!idempotent && status !== 429) return { retry: false, reason: `${input.method} is not idempotent` };
  } else {
    if (!errorCode || !RETRYABLE_ERROR_CODES.has(errorCode))
      return { retry: false, reason: `error ${errorCode ?? "unknown"} is not retryable` };
    if (!opts.retryUnreachable && UNREACHABLE_CODES.has(errorCode))
      return { retry: false, reason: `${errorCode}: the endpoint is unreachable` };
    if (!idempotent && !NOT_SENT_CODES.has(errorCode)) return { retry: false, reason: `${input.method} is not idempotent` };
  }

  const window = status !== undefined ? opts.minRetryWindowMs[status] : undefined;
  const inWindow = window !== undefined && input.elapsedMs < window;
  if (input.attempt >= opts.maxAttempts && !inWindow) {
    return { retry: false, reason: `gave up after ${input.attempt} attempts` };
  }

  const serverDelay = parseRetryAfterMs(input.headers);
  const backoff = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (input.attempt - 1));
  // Equal jitter: half fixed, half random, so callers that failed together spread out.
  const jittered = backoff / 2 + opts.random() * (backoff / 2);
  const delayMs = Math.round(serverDelay !== undefined ? serverDelay : jittered);

  const budget = Math.max(opts.maxElapsedMs, window ?? 0);
  if (input.elapsedMs + delayMs > budget) {
    return { retry: false, reason: `retry budget of ${budget} ms would be exceeded` };
  }
  return { retry: true, delayMs };
}
