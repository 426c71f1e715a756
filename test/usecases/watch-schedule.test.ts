import { describe, expect, it } from "vitest";
import { formatDuration, parseDuration } from "../../src/platform/duration";
import { cronSchedule, nextTickAt, periodOf } from "../../src/usecases/watch-schedule";
import { parseListen } from "../../src/interfaces/watch/watch-server";

describe("durations", () => {
  it.each([
    ["250ms", 250],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1.5s", 1500],
    ["2d", 172_800_000],
  ])("%s is %d ms", (text, ms) => expect(parseDuration(text)).toBe(ms));

  it.each(["30", "", "5 m", "-1s", "1y", "s"])("%j is refused with what was expected", (text) =>
    expect(() => parseDuration(text)).toThrow(/expected a duration such as 500ms, 30s, 5m or 1h30m/),
  );

  it("formats for people", () => {
    expect([450, 12_000, 300_000, 5_400_000].map(formatDuration)).toEqual(["450ms", "12s", "5m", "1h30m"]);
  });
});

describe("tick schedules", () => {
  it("an interval is due one interval after the last start; an overrun makes the next due at once, never twice", () => {
    const s = { kind: "interval" as const, ms: 30_000 };
    expect(nextTickAt(s, 1_000)).toBe(31_000);
    // A tick that started at 1 000 and ran 95 s: the next is due in the past, i.e. now; one tick, not three.
    expect(nextTickAt(s, 1_000)).toBeLessThan(96_000);
    expect(periodOf(s, 0)).toBe(30_000);
  });

  it("a cron schedule is due at its next time after the last start", () => {
    const s = cronSchedule("*/5 * * * *");
    const start = Date.parse("2026-01-01T10:01:30Z");
    expect(new Date(nextTickAt(s, start)).toISOString()).toBe("2026-01-01T10:05:00.000Z");
    expect(periodOf(s, start)).toBe(300_000);
  });

  it("a bad cron expression says why", () => {
    expect(() => cronSchedule("every five minutes")).toThrow(/invalid cron expression "every five minutes": 3 field\(s\); give 5/);
  });
});

describe("--listen", () => {
  it.each([
    ["127.0.0.1:9090", { host: "127.0.0.1", port: 9090 }],
    [":9090", { host: "127.0.0.1", port: 9090 }],
    ["0.0.0.0:0", { host: "0.0.0.0", port: 0 }],
    ["[::1]:9090", { host: "::1", port: 9090 }],
  ])("%s", (text, want) => expect(parseListen(text)).toEqual(want));

  it.each(["9090", "host:", "host:99999", "a:b:c"])("%j is refused", (text) =>
    expect(() => parseListen(text)).toThrow(/expected HOST:PORT/),
  );
});
