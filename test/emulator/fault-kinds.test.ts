import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { FaultInjector } from "../../src/emulator/fault-injector";
import { scanPhase } from "../../src/emulator/services/sql/tde-scan";
import { applyTde, waitForScan } from "../../src/domain/reconcile/tde-apply";
import { planTde } from "../../src/domain/reconcile/tde-plan";
import { SqlClient } from "../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { memoryLogger } from "../services/batchai/batchai-harness";

/**
 * The fault kinds a chaos campaign needs beyond 429, 503 and dropped connections: answers cut off
 * in their body, latency spikes, and TDE scans that stall for a while or fail.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const DB = (name: string) => ({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: name });
const TDE = "/subscriptions/";

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 200
  servers:
    - name: s1
      resourceGroup: rg
      databases:
${Array.from({ length: 8 }, (_, i) => `        - { name: db${i}, transparentDataEncryption: Disabled }`).join("\n")}
`),
  });
});
afterAll(() => t.close());
beforeEach(() => {
  t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
  t.emu.faults.resetInjectedCount();
});

const client = () => {
  const logger = memoryLogger();
  return { logger, sql: new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger }) };
};

describe("an answer cut off in its body", () => {
  it("the client sends the request again and reads the whole answer", async () => {
    const { sql, logger } = client();
    await sql.getTransparentDataEncryption(DB("db0")); // token first, so the fault falls on ARM
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [{ match: TDE, truncate: true, count: 2 }] });
    const tde = await sql.getTransparentDataEncryption(DB("db0"));
    expect(tde.properties?.status).toBe("Disabled");
    expect(t.emu.faults.injectedCount).toBe(2);
    expect(logger.warnings.join("\n")).toMatch(/the answer was cut off on attempt \d; sending again/);
  });

  it("a cut-off PUT has taken effect; sending it again is harmless (PUT is idempotent)", async () => {
    const { sql } = client();
    await sql.getTransparentDataEncryption(DB("db1"));
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 3,
      rules: [{ match: TDE, methods: ["PUT"], truncate: true, count: 1 }],
    });
    const put = await sql.putTransparentDataEncryption(DB("db1"), "Enabled");
    expect(put.properties?.status).toBe("Enabled");
    expect(t.emu.faults.injectedCount).toBe(1);
  });

  it("a body cut more often than the retries allow is one clear error", async () => {
    const sql = new SqlClient({
      endpoint: t.url,
      credential: t.credential,
      retry: { ...FAST_RETRY, maxAttempts: 2 },
      logger: memoryLogger(),
    });
    await sql.getTransparentDataEncryption(DB("db2"));
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 0, rules: [{ match: TDE, truncate: true, rate: 1 }] });
    const e = (await sql.getTransparentDataEncryption(DB("db2")).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /^TransparentDataEncryptions_Get failed: UND_ERR_\w+: no response from http:\/\/127\.0\.0\.1:\d+ after 2 attempt\(s\)/,
    );
  });
});

describe("latency spikes", () => {
  it("delay the answer, do not fail it, and do not count as a failure in a row", () => {
    const f = new FaultInjector({ seed: 3, latencyMs: 0, maxConsecutive: 1, rules: [{ delayMs: 40, rate: 1 }] });
    for (let i = 0; i < 5; i++) expect(f.decide("GET", "/x")).toEqual({ kind: "delay", ms: 40 });
  });

  it("the emulator waits that long before answering", async () => {
    const { sql } = client();
    await sql.getTransparentDataEncryption(DB("db3"));
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [{ match: TDE, delayMs: 150, count: 1 }] });
    const started = Date.now();
    expect((await sql.getTransparentDataEncryption(DB("db3"))).properties?.status).toBe("Disabled");
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });
});

describe("scans that stall or fail", () => {
  it("a stall with stallMs stands still at failAtPercent, then goes on and finishes", () => {
    const scan = {
      from: "Disabled",
      to: "Enabled",
      startedAt: 0,
      durationMs: 1000,
      outcome: "stall",
      failAtPercent: 30,
      stallMs: 2000,
    } as const;
    expect(scanPhase(scan, 200)).toEqual({ running: true, activity: "Encrypting", percentComplete: 20 });
    expect(scanPhase(scan, 300)).toMatchObject({ percentComplete: 30 });
    expect(scanPhase(scan, 2200)).toMatchObject({ percentComplete: 30 });
    expect(scanPhase(scan, 2500)).toMatchObject({ percentComplete: 50 });
    expect(scanPhase(scan, 3001)).toEqual({ running: false, status: "Enabled" });
    // Without stallMs a stall never ends (the seed's `stall`, as before).
    expect(scanPhase({ ...scan, stallMs: undefined }, 1e9)).toMatchObject({ running: true, percentComplete: 30 });
  });

  it("an injected stall makes apply wait it out, then converge", async () => {
    const { sql } = client();
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 3,
      rules: [{ match: TDE, methods: ["PUT"], scan: "stall", failAtPercent: 40, stallMs: 300, count: 1 }],
    });
    const stack = {
      subscriptionId: SUB,
      databases: [{ resourceGroup: "rg", server: "s1", database: "db4", transparentDataEncryption: "Enabled" as const }],
    };
    const progress: number[] = [];
    const [outcome] = await applyTde(sql, (await planTde(sql, stack)).changes, {
      pollIntervalMs: 20,
      scanTimeoutMs: 10_000,
      onEvent: (e) => e.kind === "progress" && progress.push(e.percentComplete),
    });
    expect(outcome.ok).toBe(true);
    expect(progress.filter((p) => p === 40).length).toBeGreaterThan(3); // it stood still
    expect((await sql.getTransparentDataEncryption(DB("db4"))).properties?.status).toBe("Enabled");
  });

  it("an injected failure ends the scan and puts the old status back; a second apply converges", async () => {
    const { sql } = client();
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 3,
      rules: [{ match: TDE, methods: ["PUT"], scan: "fail", failAtPercent: 25, count: 1 }],
    });
    const stack = {
      subscriptionId: SUB,
      databases: [{ resourceGroup: "rg", server: "s1", database: "db5", transparentDataEncryption: "Enabled" as const }],
    };
    const [first] = await applyTde(sql, (await planTde(sql, stack)).changes, { pollIntervalMs: 20, scanTimeoutMs: 10_000 });
    expect(first.ok).toBe(false);
    expect(first.error).toMatch(/the encryption scan ended (at \d+(\.\d+)?% )?but the status is Disabled, not Enabled; the scan failed/);
    const [second] = await applyTde(sql, (await planTde(sql, stack)).changes, { pollIntervalMs: 20, scanTimeoutMs: 10_000 });
    expect(second.ok).toBe(true);
    await waitForScan(sql, { ref: DB("db5"), desired: stack.databases[0] }, { pollIntervalMs: 20 });
  });

  it("the seed validates the new fault fields", async () => {
    expect(() => seedFromYaml("faults:\n  rules:\n    - { scan: explode }\n")).toThrow(/faults\.rules\[0\]\.scan/);
    expect(
      seedFromYaml("faults:\n  rules:\n    - { truncate: true, rate: 0.1 }\n    - { delayMs: 500, rate: 0.05 }\n").faults?.rules,
    ).toHaveLength(2);
  });
});
