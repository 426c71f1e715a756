import { afterEach, describe, expect, it, vi } from "vitest";
import { ArmPacer } from "../../../src/platform/arm/arm-pacer";
import { SqlClient } from "../../../src/services/sql/client";
import { mapBounded } from "../../../src/platform/bounded-map";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

const READS = "x-ms-ratelimit-remaining-subscription-reads";
const GLOBAL_READS = "x-ms-ratelimit-remaining-subscription-global-reads";

describe("ArmPacer, on a manual clock", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends at once until an answer names a bucket, then keeps a token in reserve and releases waiters in order as answers re-sync it", async () => {
    const now = 0;
    const pacer = new ArmPacer(() => now);
    const lane = pacer.lane("/subscriptions/S-1/resourceGroups/rg?api-version=1", "GET");
    expect(pacer.acquire(lane)).toBe(1);
    // The server had 3 left after request 1 (the global bucket has plenty).
    pacer.observe(lane, 1, 200, { [READS]: "3", [GLOBAL_READS]: "900" });
    expect(pacer.acquire(lane)).toBe(2); // 3 -> 2
    expect(pacer.acquire(lane)).toBe(3); // 2 -> 1: the reserve
    const fourth = pacer.acquire(lane);
    const fifth = pacer.acquire(lane);
    expect(fourth).toBeInstanceOf(Promise);
    expect(fifth).toBeInstanceOf(Promise);
    // Request 2's answer: 3 left after it, and request 3 (sent after it) will take one: 2 now, one waiter goes.
    pacer.observe(lane, 2, 200, { [READS]: "3", [GLOBAL_READS]: "899" });
    expect(await fourth).toBe(4);
    // An older answer arriving late changes nothing.
    pacer.observe(lane, 1, 200, { [READS]: "50" });
    const stillWaiting = await Promise.race([fifth, new Promise((r) => setTimeout(() => r("waiting"), 5))]);
    expect(stillWaiting).toBe("waiting");
    pacer.observe(lane, 4, 200, { [READS]: "10", [GLOBAL_READS]: "897" });
    expect(await fifth).toBe(5);
    expect(pacer.stats().waited).toBe(2);
  });

  it("before a lane's first answer at most 8 requests go; the first answer releases the rest, and after an answer without budget headers nothing waits", async () => {
    const pacer = new ArmPacer(() => 0);
    const lane = pacer.lane("/subscriptions/s-first/x", "GET");
    const tickets = Array.from({ length: 20 }, () => pacer.acquire(lane));
    expect(tickets.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(tickets.slice(8).every((t) => t instanceof Promise)).toBe(true);
    // A request that fails without an answer lets one waiter go.
    pacer.failed(lane);
    expect(await tickets[8]).toBe(9);
    // The first answer names no bucket (a service without throttling headers): the rest go at once.
    pacer.observe(lane, 1, 200, {});
    expect(await Promise.all(tickets.slice(9))).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(pacer.acquire(lane)).toBe(21);
  });

  it("a 429 holds the lane for its Retry-After; other subscriptions and kinds are separate lanes", async () => {
    vi.useFakeTimers();
    let now = 0;
    const pacer = new ArmPacer(() => now);
    const lane = pacer.lane("/subscriptions/s1/x", "GET");
    const seq = pacer.acquire(lane) as number;
    pacer.observe(lane, seq, 429, { [READS]: "0", "retry-after": "2" });
    expect(pacer.stats().throttled).toBe(1);
    const held = pacer.acquire(lane) as Promise<number>;
    let released = false;
    void held.then(() => (released = true));
    now = 1500;
    await vi.advanceTimersByTimeAsync(1500);
    expect(released).toBe(false);
    now = 2100; // past Retry-After, and the documented 25/s has refilled the reserve and one more
    await vi.advanceTimersByTimeAsync(600);
    expect(await held).toBe(2);
    // Writes of the same subscription, and another subscription's reads, were never held.
    expect(pacer.acquire(pacer.lane("/subscriptions/s1/x", "PUT"))).toBe(1);
    expect(pacer.acquire(pacer.lane("/subscriptions/s2/x", "GET"))).toBe(1);
  });

  it("knows the scope from the path: subscriptions behind a base path, and tenant-level requests with the tenant header", () => {
    const now = 0;
    const pacer = new ArmPacer(() => now);
    expect(pacer.lane("/gateway/subscriptions/ABC/providers/x", "GET")).toBe(pacer.lane("/subscriptions/abc?api-version=1", "GET"));
    const tenant = pacer.lane("/providers/Microsoft.BatchAI/operations?api-version=1", "GET");
    pacer.acquire(tenant);
    pacer.observe(tenant, 1, 200, { "x-ms-ratelimit-remaining-tenant-reads": "1" });
    expect(pacer.acquire(tenant)).toBeInstanceOf(Promise);
  });

  it("a waiting request whose signal aborts is rejected and leaves the queue", async () => {
    const pacer = new ArmPacer(() => 0);
    const lane = pacer.lane("/subscriptions/s/x", "GET");
    pacer.observe(lane, pacer.acquire(lane) as number, 200, { [READS]: "0" });
    const ac = new AbortController();
    const waiting = pacer.acquire(lane, ac.signal) as Promise<number>;
    ac.abort(new Error("cancelled"));
    await expect(waiting).rejects.toThrow("cancelled");
    pacer.observe(lane, 1, 200, { [READS]: "100" });
    expect(pacer.acquire(lane)).toBe(2);
  });

  it("learns the refill rate from the answers (remaining went from R1 to R2 while n requests were served)", () => {
    let now = 0;
    const pacer = new ArmPacer(() => now);
    const lane = pacer.lane("/subscriptions/s/x", "GET");
    // A server refilling 400 tokens a second, serving one request every ms from a bucket of 1000.
    let level = 1000;
    for (let i = 0; i < 2000; i++) {
      const seq = pacer.acquire(lane);
      if (typeof seq !== "number") break;
      now += 1;
      level = Math.min(1000, level + 0.4) - 1;
      pacer.observe(lane, seq, 200, { [READS]: String(Math.floor(level)) });
    }
    const [rate] = Object.values(pacer.stats().rates);
    expect(rate).toBeGreaterThan(380);
    expect(rate).toBeLessThan(420);
  });
});

describe("paced ARM clients against the emulator's throttling", () => {
  let t: TestEmulator | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const SUB = "00000000-0000-0000-0000-000000000000";
  // Refill rates this low let any client outrun them, however loaded the machine.
  const seed = (bucket: number, refillPerSecond: number) =>
    seedFromYaml(`
emulator:
  throttling: { reads: { bucket: ${bucket}, refillPerSecond: ${refillPerSecond} } }
sql:
  subscriptionId: ${SUB}
  servers:
    - name: s1
      resourceGroup: rg
      databases: [${Array.from({ length: 20 }, (_, i) => `{ name: db${i}, transparentDataEncryption: Enabled }`).join(", ")}]
`);
  const dbs = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: `db${i % 20}` }));

  it("paced: 200 GETs at concurrency 16 through a bucket of 40 refilled at 50/s get no 429, and the refill rate is learned", async () => {
    t = await startTestEmulator({ seed: seed(40, 50) });
    const pacer = new ArmPacer();
    const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY, pacing: pacer });
    const got = await mapBounded(dbs(200), 16, (db) => sql.getTransparentDataEncryption(db));
    expect(got).toHaveLength(200);
    expect(t.emu.throttle.throttled).toBe(0);
    const s = pacer.stats();
    expect(s.throttled).toBe(0);
    expect(s.waited).toBeGreaterThan(0);
    const rate = s.rates[`${SUB}|reads ${READS}`];
    expect(rate).toBeGreaterThan(25);
    expect(rate).toBeLessThan(75);
  });

  it("unpaced (pacing: false): the same client bursts into 429s and backs off", async () => {
    t = await startTestEmulator({ seed: seed(40, 50) });
    const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: { ...FAST_RETRY, maxElapsedMs: 30_000 }, pacing: false });
    const got = await mapBounded(dbs(100), 16, (db) => sql.getTransparentDataEncryption(db));
    expect(got).toHaveLength(100);
    expect(t.emu.throttle.throttled).toBeGreaterThan(0);
  });
});
