import { afterEach, describe, expect, it } from "vitest";
import type { StackConfig } from "../../../src/domain/stack/stack-config";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { applyTde } from "../../../src/domain/reconcile/tde-apply";
import type { TdeApi } from "../../../src/domain/reconcile/tde-api";
import { planTde } from "../../../src/domain/reconcile/tde-plan";
import { SqlClient } from "../../../src/services/sql/client";
import type { EmulatorOptions } from "../../../src/emulator/server";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

const SUB = "00000000-0000-0000-0000-000000000000";
const PUT_ROUTE = /^PUT .*transparentDataEncryption/;

function stack(dbs: [string, "Enabled" | "Disabled"][]): StackConfig {
  return {
    file: "test",
    subscriptionId: SUB,
    elasticPools: [],
    exemptions: [],
    policies: resolveRuleSettings(undefined),
    batch: { locations: [], workspaces: [] },
    databases: dbs.map(([database, t]) => ({ resourceGroup: "rg", server: "s1", database, transparentDataEncryption: t })),
  };
}

function seed(dbs: string): EmulatorOptions["seed"] {
  return seedFromYaml(`sql:\n  scanDurationMs: 200\n  servers:\n    - name: s1\n      resourceGroup: rg\n      databases:\n${dbs}`);
}

let t: TestEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function setup(dbs: string, opts: Omit<EmulatorOptions, "seed"> = {}) {
  t = await startTestEmulator({ seed: seed(dbs), ...opts });
  return { t, sql: new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY }) };
}

const puts = (t: TestEmulator) =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => PUT_ROUTE.test(k))
    .reduce((n, [, v]) => n + v, 0);
const FAST = { pollIntervalMs: 20, scanTimeoutMs: 10_000 };

describe("the TDE reconciler against the emulator", () => {
  it("plan, apply, plan is idempotent: the second apply makes no PUT", async () => {
    const { t, sql } = await setup(
      "        - { name: a, transparentDataEncryption: Disabled }\n        - { name: b, transparentDataEncryption: Enabled }\n        - { name: c, transparentDataEncryption: Enabled }\n",
    );
    const s = stack([
      ["a", "Enabled"],
      ["b", "Enabled"],
      ["c", "Disabled"],
    ]);
    const first = await planTde(sql, s);
    expect(first.changes.map((c) => [c.ref.database, c.action])).toEqual([
      ["a", "enable"],
      ["c", "disable"],
    ]);
    const outcomes = await applyTde(sql, first.changes, FAST);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(puts(t)).toBe(2);
    const second = await planTde(sql, s);
    expect(second.changes).toEqual([]);
    expect(await applyTde(sql, second.changes, FAST)).toEqual([]);
    expect(puts(t)).toBe(2);
  });

  it("a scan that fails gives a ScanError naming the database; the other change still converges", async () => {
    const { sql } = await setup(
      "        - { name: bad, transparentDataEncryption: Disabled, scan: { outcome: fail, failAtPercent: 30 } }\n        - { name: good, transparentDataEncryption: Disabled }\n",
    );
    const plan = await planTde(
      sql,
      stack([
        ["bad", "Enabled"],
        ["good", "Enabled"],
      ]),
    );
    const events: string[] = [];
    const outcomes = await applyTde(sql, plan.changes, { ...FAST, onEvent: (e) => events.push(`${e.kind}:${e.item.ref.database}`) });
    const bad = outcomes.find((o) => o.item.ref.database === "bad")!;
    expect(bad.ok).toBe(false);
    expect(bad.error).toMatch(/^rg\/s1\/bad: the encryption scan ended at .* but the status is Disabled, not Enabled; the scan failed/);
    expect(outcomes.find((o) => o.item.ref.database === "good")!.ok).toBe(true);
    expect(events).toContain("failed:bad");
    expect(events).toContain("converged:good");
  });

  it("a scan that never ends hits the timeout with the progress it had reached", async () => {
    const { sql } = await setup(
      "        - { name: stuck, transparentDataEncryption: Disabled, scan: { outcome: stall, failAtPercent: 40 } }\n",
    );
    const plan = await planTde(sql, stack([["stuck", "Enabled"]]));
    const [o] = await applyTde(sql, plan.changes, { pollIntervalMs: 20, scanTimeoutMs: 600 });
    expect(o.ok).toBe(false);
    expect(o.error).toBe(
      "rg/s1/stuck: the encrypting scan did not finish within 1 s (stuck at 40%); raise --scan-timeout or investigate the database",
    );
  });

  it("converges while the service answers 429 (with Retry-After) and 503 to a third of the requests", async () => {
    const dbs = Array.from({ length: 8 }, (_, i) => `        - { name: d${i}, transparentDataEncryption: Disabled }\n`).join("");
    const { t, sql } = await setup(dbs, {
      faults: {
        seed: 42,
        rules: [
          { match: "/subscriptions/", status: 429, rate: 0.15, retryAfterMs: 5 },
          { match: "/subscriptions/", status: 503, rate: 0.15 },
        ],
      },
    });
    const s = stack(Array.from({ length: 8 }, (_, i) => [`d${i}`, "Enabled"] as [string, "Enabled"]));
    const outcomes = await applyTde(sql, (await planTde(sql, s)).changes, FAST);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(t.emu.faults.injectedCount).toBeGreaterThan(5);
    t.emu.faults.configure({ seed: 1, latencyMs: 0, rules: [], maxConsecutive: 3 });
    expect((await planTde(sql, s)).changes).toEqual([]);
  });

  it("keeps at most `concurrency` calls in flight", async () => {
    const dbs = Array.from({ length: 20 }, (_, i) => `        - { name: d${i}, transparentDataEncryption: Disabled }\n`).join("");
    const { sql } = await setup(dbs, { faults: { latencyMs: 15 } });
    let inFlight = 0;
    let peak = 0;
    const measure =
      <A extends unknown[], R>(fn: (...a: A) => Promise<R>) =>
      async (...a: A): Promise<R> => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        try {
          return await fn(...a);
        } finally {
          inFlight -= 1;
        }
      };
    const counting: TdeApi = {
      getTransparentDataEncryption: measure(sql.getTransparentDataEncryption.bind(sql)),
      putTransparentDataEncryption: measure(sql.putTransparentDataEncryption.bind(sql)),
      listTransparentDataEncryptionActivities: measure(sql.listTransparentDataEncryptionActivities.bind(sql)),
    };
    const s = stack(Array.from({ length: 20 }, (_, i) => [`d${i}`, "Enabled"] as [string, "Enabled"]));
    const plan = await planTde(counting, s, { concurrency: 5 });
    expect(peak).toBe(5);
    peak = 0;
    await applyTde(counting, plan.changes, { ...FAST, concurrency: 3 });
    expect(peak).toBe(3);
  });
});
