import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseList } from "../../../src/interfaces/watch/status/database-list";
import type { StackStatus } from "../../../src/interfaces/watch/status/stack-status";
import { SqlClient } from "../../../src/services/sql/client";
import { startCli, type CliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { eventually } from "./watch-metrics";

// Issue 45, item 4: a targeted re-read between ticks is `lastReread` (its number, when, how long,
// what it re-read); `lastTick` stays the last full tick's. The watcher's re-read line gives the
// stack's counts after the re-read, and what the re-read itself changed. One tick and two re-reads,
// the real CLI against the emulator, changes found through its Activity Log.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 50
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Disabled }
        - { name: b, transparentDataEncryption: Enabled }
        - { name: c, transparentDataEncryption: Enabled }
`;
const STACK = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${["a", "b", "c"]
  .map((d) => `    - { resourceGroup: rg, server: s1, database: ${d}, transparentDataEncryption: Enabled }\n`)
  .join("")}`;

let t: TestEmulator;
let w: CliProcess;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(async () => {
  w?.child.kill("SIGKILL");
  await t?.close();
});

async function disable(database: string): Promise<void> {
  const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  await sql.putTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database }, "Disabled");
}

describe("watch: a tick and two re-reads", () => {
  it("lastTick stays the tick's, lastReread is the second re-read's, and each re-read line gives the stack's counts and what it changed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-reread-"));
    mkdirSync(join(dir, "stacks"));
    writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), STACK);
    w = startCli(["watch", "--stack", "dev", "--listen", "127.0.0.1:0", "--interval", "1h", "--changes-interval", "1s"], {
      cwd: dir,
      env: { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` },
    });
    const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
    await w.line(/tick 1: 1 drifted, 1 mandatory/);
    const status = async () => (await (await fetch(`${url}/api/v1/stacks/dev`)).json()) as StackStatus;
    const afterTick = await eventually("tick 1 on the status", async () => (await status()).lastTick ?? undefined);
    expect(afterTick.number).toBe(1);
    // Every database of the stack, as the tick read it, through the filter of the stack's page.
    const databases = async (query = "") => (await (await fetch(`${url}/api/v1/stacks/dev/databases${query}`)).json()) as DatabaseList;
    const tickRows = await databases();
    expect(tickRows.items.map((d) => [d.label, d.sync, d.compliance])).toEqual([
      ["rg/s1/a", "drifted", "non-compliant"],
      ["rg/s1/b", "in-sync", "compliant"],
      ["rg/s1/c", "in-sync", "compliant"],
    ]);

    await disable("b");
    const first = await w.line(/re-read 1: the stack now/);
    expect(first).toMatch(
      /re-read 1: the stack now has 2 drifted, 2 mandatory and \d+ advisory finding\(s\); this re-read changed 1 newly drifted, 1 mandatory finding\(s\) raised/,
    );
    await disable("c");
    const second = await w.line(/re-read 2: the stack now/);
    expect(second).toMatch(
      /re-read 2: the stack now has 3 drifted, 3 mandatory and \d+ advisory finding\(s\); this re-read changed 1 newly drifted, 1 mandatory finding\(s\) raised/,
    );

    const s = await eventually("re-read 2 on the status", async () => {
      const x = await status();
      return x.lastReread?.number === 2 ? x : undefined;
    });
    // The tick's figures, untouched by the re-reads after it.
    expect(s.lastTick).toEqual(afterTick);
    expect(Date.parse(s.lastTick!.finishedAt)).toBeLessThanOrEqual(Date.parse(s.lastReread!.startedAt));
    expect(s.lastReread).toMatchObject({ number: 2, afterTick: 1, outcome: "succeeded", databases: 1, error: null });
    expect(s.lastReread!.changed).toBeGreaterThanOrEqual(1);
    expect(s.lastReread!.rules).toBeGreaterThan(0);
    expect(s.lastReread!.durationMs).toBe(Date.parse(s.lastReread!.finishedAt) - Date.parse(s.lastReread!.startedAt));
    expect(s.sync).toMatchObject({ state: "drifted", drifted: 3 });
    expect(s.compliance.mandatory).toBe(3);
    // The re-reads updated the databases they read, and the filter sees it.
    const drifted = await databases("?sync=drifted&compliance=non-compliant");
    expect(drifted).toMatchObject({ total: 3, unfiltered: 3 });
    expect(drifted.items.map((d) => d.label)).toEqual(["rg/s1/a", "rg/s1/b", "rg/s1/c"]);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  }, 120_000);
});
