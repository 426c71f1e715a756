import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../../src/services/sql/client";
import { BAD, G } from "../../domain/stack/bad-stacks";
import { runCliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { emulatorEnv, runCli, stackDir } from "./cli-harness";

const SEED = `
sql:
  scanDurationMs: 300
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
        - { name: billing, transparentDataEncryption: Enabled }
        - { name: broken, transparentDataEncryption: Disabled, scan: { outcome: fail, failAtPercent: 40 } }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${G}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: billing, transparentDataEncryption: Enabled }
`;
const BROKEN = `${STACK}    - { resourceGroup: rg, server: s1, database: broken, transparentDataEncryption: Enabled }\n`;

let t: TestEmulator;
let dir: string;
const ORDERS = { subscriptionId: G, resourceGroup: "rg", server: "s1", database: "orders" };
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  dir = stackDir({
    "stack.yaml": STACK,
    "broken.yaml": BROKEN,
    ...Object.fromEntries(BAD.map(([_name, text], i) => [`bad-${i}.yaml`, text])),
  });
});
afterAll(() => t.close());

describe("plan and apply end to end", () => {
  it("plan exits 2 and names the database to encrypt", async () => {
    const r = await runCli(["plan", "--config", "stack.yaml"], t.url, dir);
    expect(r.code, r.err).toBe(2);
    expect(r.out).toContain("rg/s1/orders");
    expect(r.out).toContain("TDE Disabled -> Enabled");
    expect(r.out).not.toContain("rg/s1/billing  TDE");
  });

  it("plan --output json and markdown describe the same change", async () => {
    const json = await runCli(["plan", "--config", "stack.yaml", "--output", "json"], t.url, dir);
    const doc = JSON.parse(json.out) as {
      changes: { database: string; live: string; desired: string; action: string }[];
      summary: { unchanged: number };
    };
    expect(doc.changes).toEqual([expect.objectContaining({ database: "orders", live: "Disabled", desired: "Enabled", action: "enable" })]);
    expect(doc.summary.unchanged).toBe(1);
    const md = await runCli(["plan", "--config", "stack.yaml", "--output", "markdown"], t.url, dir);
    expect(md.out).toMatch(/\| `rg\/s1\/orders` \| Disabled \| Enabled \| enable \|/);
  });

  it("apply --yes exits 0 after the scan, then plan exits 0", async () => {
    const a = await runCli(["apply", "--config", "stack.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toContain("rg/s1/orders: done: TDE Enabled");
    expect(a.out).toContain("Apply: 1 of 1 change(s) converged.");
    expect((await runCli(["plan", "--config", "stack.yaml"], t.url, dir)).code).toBe(0);
  });

  it("an out-of-band PUT that disables TDE makes plan exit 2 again", async () => {
    const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    await sql.putTransparentDataEncryption(ORDERS, "Disabled");
    for (let i = 0; i < 100 && (await sql.listTransparentDataEncryptionActivities(ORDERS)).length; i++) await delay(50);
    const r = await runCli(["plan", "--config", "stack.yaml"], t.url, dir);
    expect(r.code).toBe(2);
    expect(r.out).toContain("rg/s1/orders");
  });

  it("a scan that fails makes apply exit 1 with one line for that database; the others converge", async () => {
    const r = await runCli(["apply", "--config", "broken.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("Apply: 1 of 2 change(s) converged, 1 failed.");
    const failures = r.out.split("\n").filter((l) => l.startsWith("  ! "));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/rg\/s1\/broken: .*scan ended at \d+(\.\d+)?% but the status is Disabled, not Enabled/);
  });

  it("the exit code crosses the process boundary (the real binary)", async () => {
    // Asynchronous: the emulator lives in this process and must keep answering.
    const r = await runCliProcess(["plan", "--config", join(dir, "broken.yaml")], { env: emulatorEnv(t.url) });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toContain("rg/s1/broken");
  });
});

describe("a bad stack file stops everything before any API call", () => {
  it.each(BAD.map(([name, , line, column], i) => [name, i, line, column] as const))("%s", async (_name, i, line, column) => {
    const before = t.emu.stats.total;
    const r = await runCli(["plan", "--config", `bad-${i}.yaml`], t.url, dir);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toContain(`bad-${i}.yaml:${line}:${column}: `);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(r.out).toBe("");
    expect(t.emu.stats.total - before, "requests made to the emulator").toBe(0);
  });
});
