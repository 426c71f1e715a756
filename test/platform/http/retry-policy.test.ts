import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, decideRetry, type RetryInput, type RetryPolicyOptions } from "../../../src/platform/http/retry-policy";
import { IMDS_RETRY } from "../../../src/services/imds/client";

/** The defaults with a fixed random source, so delays are exact. */
const policy = (over: Partial<RetryPolicyOptions> = {}): RetryPolicyOptions => ({ ...DEFAULT_RETRY, random: () => 0.5, ...over });
const input = (over: Partial<RetryInput>): RetryInput => ({ method: "GET", attempt: 1, elapsedMs: 0, ...over });

describe("decideRetry: which statuses are retried", () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [504, true],
    [507, true],
    [501, false],
    [505, false],
    [400, false],
    [401, false],
    [403, false],
    [404, false],
    [409, false],
    [410, false],
    [412, false],
  ])("GET answered %i -> retry %s", (status, retried) => {
    const d = decideRetry(input({ status }), policy());
    expect(d.retry).toBe(retried);
    if (!d.retry) expect(d.reason).toBe(`status ${status} is not retryable`);
  });

  it.each(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "get"])("%s is idempotent: a 503 is retried", (method) => {
    expect(decideRetry(input({ method, status: 503 }), policy()).retry).toBe(true);
  });

  it.each([
    ["POST", 503, false],
    ["POST", 500, false],
    ["POST", 408, false],
    ["PATCH", 502, false],
    ["POST", 429, true],
    ["PATCH", 429, true],
  ] as const)("%s answered %i -> retry %s", (method, status, retried) => {
    const d = decideRetry(input({ method, status }), policy());
    expect(d.retry).toBe(retried);
    if (!d.retry) expect(d.reason).toBe(`${method} is not idempotent`);
  });

  it("retryNonIdempotent lets a POST be retried after a 503", () => {
    expect(decideRetry(input({ method: "POST", status: 503 }), policy({ retryNonIdempotent: true })).retry).toBe(true);
  });

  it("a custom status set replaces the default one (IMDS retries 404 and 410)", () => {
    const imds = policy(IMDS_RETRY);
    expect(decideRetry(input({ status: 404 }), imds).retry).toBe(true);
    expect(decideRetry(input({ status: 410 }), imds).retry).toBe(true);
    expect(decideRetry(input({ status: 400 }), imds).retry).toBe(false);
  });
});

describe("decideRetry: connection errors", () => {
  it.each([
    ["GET", "ECONNRESET", true],
    ["GET", "UND_ERR_SOCKET", true],
    ["GET", "UND_ERR_HEADERS_TIMEOUT", true],
    ["GET", "ECONNREFUSED", true],
    ["GET", "EPIPE", true],
    ["GET", "ENOTFOUND", false],
    ["GET", "UND_ERR_ABORTED", false],
    ["GET", undefined, false],
    // A POST may only be sent again when it cannot have reached the server.
    ["POST", "ECONNREFUSED", true],
    ["POST", "UND_ERR_CONNECT_TIMEOUT", true],
    ["POST", "EAI_AGAIN", true],
    ["POST", "ECONNRESET", false],
    ["POST", "UND_ERR_SOCKET", false],
    ["POST", "UND_ERR_HEADERS_TIMEOUT", false],
  ] as const)("%s failing with %s -> retry %s", (method, errorCode, retried) => {
    expect(decideRetry(input({ method, errorCode }), policy()).retry).toBe(retried);
  });
});

describe("decideRetry: retryUnreachable false (IMDS before it has answered once)", () => {
  it.each([
    ["ECONNREFUSED", false],
    ["UND_ERR_CONNECT_TIMEOUT", false],
    ["EHOSTUNREACH", false],
    ["ENETUNREACH", false],
    // A connection was made: something is there, so the usual advice holds.
    ["ECONNRESET", true],
    ["UND_ERR_SOCKET", true],
    ["UND_ERR_HEADERS_TIMEOUT", true],
  ] as const)("GET failing with %s -> retry %s", (errorCode, retried) => {
    const d = decideRetry(input({ errorCode }), policy({ retryUnreachable: false }));
    expect(d.retry).toBe(retried);
    if (!d.retry) expect(d.reason).toBe(`${errorCode}: the endpoint is unreachable`);
  });

  it("statuses are unaffected", () => {
    expect(decideRetry(input({ status: 503 }), policy({ retryUnreachable: false })).retry).toBe(true);
  });
});

describe("decideRetry: bounds", () => {
  it("stops after maxAttempts attempts", () => {
    const p = policy({ maxAttempts: 3 });
    expect(decideRetry(input({ status: 503, attempt: 1 }), p).retry).toBe(true);
    expect(decideRetry(input({ status: 503, attempt: 2 }), p).retry).toBe(true);
    expect(decideRetry(input({ status: 503, attempt: 3 }), p)).toEqual({ retry: false, reason: "gave up after 3 attempts" });
  });

  it("stops when the wait would overrun the total time budget", () => {
    const p = policy({ maxElapsedMs: 10_000, baseDelayMs: 1000, random: () => 0 });
    // attempt 2: backoff 2000, equal jitter with random 0 gives 1000 ms.
    expect(decideRetry(input({ status: 503, attempt: 2, elapsedMs: 9_000 }), p)).toEqual({ retry: true, delayMs: 1000 });
    expect(decideRetry(input({ status: 503, attempt: 2, elapsedMs: 9_001 }), p)).toEqual({
      retry: false,
      reason: "retry budget of 10000 ms would be exceeded",
    });
  });

  it("a server delay beyond the budget gives up rather than waiting", () => {
    const d = decideRetry(input({ status: 429, headers: { "retry-after": "120" } }), policy());
    expect(d).toEqual({ retry: false, reason: "retry budget of 60000 ms would be exceeded" });
  });

  it("minRetryWindowMs keeps 410 going past maxAttempts until the window closes", () => {
    const p = policy(IMDS_RETRY); // maxAttempts 6, 410 retried for 70 s
    expect(decideRetry(input({ status: 410, attempt: 6, elapsedMs: 30_000 }), p).retry).toBe(true);
    expect(decideRetry(input({ status: 410, attempt: 12, elapsedMs: 62_000 }), p).retry).toBe(true);
    // The window also widens the time budget past maxElapsedMs (60 s) ...
    expect(decideRetry(input({ status: 410, attempt: 12, elapsedMs: 69_000, headers: { "retry-after-ms": "500" } }), p)).toEqual({
      retry: true,
      delayMs: 500,
    });
    // ... but not beyond the window itself.
    expect(decideRetry(input({ status: 410, attempt: 12, elapsedMs: 70_000 }), p).retry).toBe(false);
    // Other statuses keep the attempt bound.
    expect(decideRetry(input({ status: 503, attempt: 6, elapsedMs: 30_000 }), p)).toEqual({
      retry: false,
      reason: "gave up after 6 attempts",
    });
  });
});

describe("decideRetry: delays", () => {
  it.each([
    // attempt, random, expected delay: base 500 doubling, equal jitter (half fixed, half random)
    [1, 0, 250],
    [1, 0.999999, 500],
    [1, 0.5, 375],
    [2, 0, 500],
    [2, 0.999999, 1000],
    [3, 0, 1000],
    [3, 0.5, 1500],
    [10, 0, 10_000],
    [10, 0.999999, 20_000], // capped at maxDelayMs
  ])("attempt %i with random %f waits %i ms", (attempt, r, expected) => {
    const d = decideRetry(input({ status: 503, attempt }), policy({ random: () => r, maxAttempts: 20, maxElapsedMs: 1e9 }));
    expect(d).toEqual({ retry: true, delayMs: expected });
  });

  it("jitter stays within [backoff/2, backoff] for any random value", () => {
    for (let attempt = 1; attempt <= 6; attempt++) {
      const backoff = Math.min(20_000, 500 * 2 ** (attempt - 1));
      for (const r of [0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999999]) {
        const d = decideRetry(input({ status: 502, attempt }), policy({ random: () => r, maxAttempts: 10, maxElapsedMs: 1e9 }));
        if (!d.retry) throw new Error(d.reason);
        expect(d.delayMs).toBeGreaterThanOrEqual(backoff / 2);
        expect(d.delayMs).toBeLessThanOrEqual(backoff);
      }
    }
  });

  it("the server's delay wins over the backoff, in milliseconds or seconds", () => {
    expect(decideRetry(input({ status: 429, headers: { "retry-after-ms": "1234" } }), policy())).toEqual({ retry: true, delayMs: 1234 });
    expect(decideRetry(input({ status: 503, headers: { "retry-after": "3" } }), policy())).toEqual({ retry: true, delayMs: 3000 });
    expect(decideRetry(input({ status: 503, attempt: 4, headers: { "x-ms-retry-after-ms": "0" } }), policy())).toEqual({
      retry: true,
      delayMs: 0,
    });
  });

  it("an unparseable Retry-After falls back to the backoff", () => {
    expect(decideRetry(input({ status: 429, headers: { "retry-after": "soon" } }), policy({ random: () => 0 }))).toEqual({
      retry: true,
      delayMs: 250,
    });
  });
});
