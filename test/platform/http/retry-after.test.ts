import { describe, expect, it } from "vitest";
import { parseRetryAfterMs } from "../../../src/platform/http/retry-after";

const NOW = Date.parse("2026-03-01T12:00:00Z");

describe("parseRetryAfterMs", () => {
  it.each([
    [{ "retry-after": "5" }, 5000],
    [{ "retry-after": "0" }, 0],
    [{ "retry-after": " 2 " }, 2000],
    [{ "retry-after": "1.5" }, 1500],
    [{ "retry-after": ["7", "9"] }, 7000],
    [{ "retry-after-ms": "250" }, 250],
    [{ "x-ms-retry-after-ms": "120" }, 120],
  ])("%j -> %i ms", (headers, ms) => {
    expect(parseRetryAfterMs(headers, NOW)).toBe(ms);
  });

  it("reads an HTTP date relative to now, and a past date as 0", () => {
    expect(parseRetryAfterMs({ "retry-after": "Sun, 01 Mar 2026 12:00:30 GMT" }, NOW)).toBe(30_000);
    expect(parseRetryAfterMs({ "retry-after": new Date(NOW + 90_000).toUTCString() }, NOW)).toBe(90_000);
    expect(parseRetryAfterMs({ "retry-after": "Sun, 01 Mar 2026 11:00:00 GMT" }, NOW)).toBe(0);
  });

  it("prefers retry-after-ms, then x-ms-retry-after-ms, then Retry-After", () => {
    expect(parseRetryAfterMs({ "retry-after": "10", "x-ms-retry-after-ms": "300", "retry-after-ms": "200" }, NOW)).toBe(200);
    expect(parseRetryAfterMs({ "retry-after": "10", "x-ms-retry-after-ms": "300" }, NOW)).toBe(300);
    expect(parseRetryAfterMs({ "retry-after": "10" }, NOW)).toBe(10_000);
  });

  it("skips an unparseable millisecond header for the next one", () => {
    expect(parseRetryAfterMs({ "retry-after-ms": "soon", "x-ms-retry-after-ms": "40" }, NOW)).toBe(40);
    expect(parseRetryAfterMs({ "retry-after-ms": "-5", "retry-after": "1" }, NOW)).toBe(1000);
  });

  it.each([
    [undefined],
    [{}],
    [{ "retry-after": "" }],
    [{ "retry-after": "soon" }],
    [{ "retry-after": "-3" }],
    [{ "retry-after": "1e3" }],
    [{ "retry-after": "0x10" }],
    [{ "retry-after": "Someday, 99 Foo 20xx" }],
    [{ "retry-after-ms": "abc" }],
    [{ "x-ms-retry-after-ms": "12ms" }],
    [{ "retry-after": [] as string[] }],
  ])("garbage %j -> undefined", (headers) => {
    expect(parseRetryAfterMs(headers, NOW)).toBeUndefined();
  });
});
