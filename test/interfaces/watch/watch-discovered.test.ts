import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../../src/services/sql/client";
import { startCli, type CliProcess } from "../../helpers/cli-process";
import { metricValue } from "./watch-metrics";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// Issue 42 item 5: a database created in a watched stack's scope (through the emulator's Resource
// Manager) is judged from its change record, without a sweep: within 5 s of its creation's PUT from
// Event Grid, within the changes interval + 5 s from the Activity Log; its deletion removes it from
// the counts. The real CLI in a child process, as watch-changes.test.ts runs it. The bounds are
// correctness properties with a margin (a re-read is one read per database), not speed figures.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 0
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: listed, transparentDataEncryption: Enabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: listed, transparentDataEncryption: Enabled }
  stackwarden:scope:
    subscriptions: [${SUB}]
`;
const EVENTS_SECRET = randomBytes(24).toString("hex");
const DATABASES = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases`;

let t: TestEmulator;
let sql: SqlClient;
const watchers: CliProcess[] = [];

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
});
afterAll(async () => {
  for (const w of watchers) w.child.kill("SIGKILL");
  await t.close();
});

/** A raw Resource Manager request with the emulator's token. */
async function arm(method: string, path: string, body?: unknown): Promise<number> {
  const token = (await t.credential.getToken("https://management.azure.com/.default"))!.token;
  const res = await fetch(`${t.url}${path}?api-version=2021-11-01`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}

/** `watch --stack dev` on the scoped stack, its sweep every hour; `flags` choose the change records. Resolves after its first sweep. */
async function watch(flags: string[]): Promise<{ w: CliProcess; url: string }> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-discovered-"));
  mkdirSync(join(dir, "stacks"));
  writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), STACK);
  const w = startCli(["watch", "--stack", "dev", "--listen", "127.0.0.1:0", "--interval", "1h", ...flags], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      STACKWARDEN_ARM_ENDPOINT: t.url,
      STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
      EG_SECRET: EVENTS_SECRET,
    },
  });
  watchers.push(w);
  const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
  await w.line(/tick 1: /);
  return { w, url };
}

/**
 * Someone creates database `name` in the scope, then turns its encryption off (two ARM writes); the
 * watcher must judge it as a discovered database (desired Enabled, the scope's default; live
 * Disabled; not repaired, no remediate) within `boundMs` of the creation's PUT, by a re-read (no
 * second tick). Then it is deleted and must leave the counts within the same bound.
 */
async function createdThenDeleted(w: CliProcess, url: string, name: string, boundMs: number): Promise<void> {
  const id = `${DATABASES}/${name}`;
  const createdAt = Date.now();
  expect(await arm("PUT", id, { location: "East US" })).toBe(201);
  await sql.putTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: name }, "Disabled");
  await w.line(/re-read \d+: the stack now has 1 drifted, 1 mandatory/, boundMs + 2_000);
  expect(Date.now() - createdAt).toBeLessThan(boundMs);
  expect(w.out()).toMatch(/re-read \d+: \d changed resource\(s\) reach 1 database\(s\)/);
  expect(w.out()).toMatch(new RegExp(`~ rg/s1/${name} TDE live Disabled, desired Enabled`));
  const metrics = await (await fetch(`${url}/metrics`)).text();
  expect(metricValue(metrics, "stackwarden_rereads_total", { stack: "dev" })).toBeGreaterThan(0);
  expect(metricValue(metrics, "stackwarden_watch_ticks_total", { stack: "dev", result: "ok" })).toBe(1);

  const deletedAt = Date.now();
  expect(await arm("DELETE", id)).toBe(200);
  // The line naming this database: an Activity Log read may also bring an earlier deletion's record.
  await w.line(new RegExp(`1 database\\(s\\) of the scope deleted: no longer counted \\(\\S+/databases/${name}\\)`), boundMs + 2_000);
  expect(Date.now() - deletedAt).toBeLessThan(boundMs);
  const after = (await (await fetch(`${url}/metrics`)).text()).split("\n");
  expect(after.filter((l) => /^stackwarden_findings\{.*level="mandatory".*\} [1-9]/.test(l))).toEqual([]);
  expect(after.filter((l) => /^stackwarden_drifted_resources\{.*\} [1-9]/.test(l))).toEqual([]);
  expect(w.out()).not.toMatch(/tick 2/);
  w.child.kill("SIGTERM");
  expect(await w.exited).toBe(0);
}

describe("watch: a database created in scope is judged from its change record", () => {
  it("through Event Grid: judged within 5 s of its creation without a sweep; deleted, it is no longer counted", async () => {
    const { w, url } = await watch(["--changes-interval", "1h", "--events", "--events-secret-env", "EG_SECRET"]);
    const res = await fetch(`${t.url}/_emulator/event-subscriptions/watch`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpointUrl: `${url}/events/azure?key=${EVENTS_SECRET}` }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    await createdThenDeleted(w, url, "fresh", 5_000);
    expect((await fetch(`${t.url}/_emulator/event-subscriptions/watch`, { method: "DELETE" })).status).toBeLessThan(300);
  });

  it("through the Activity Log read every 1 s: judged within 1 s + 5 s of its creation without a sweep; deleted, no longer counted", async () => {
    const { w, url } = await watch(["--changes-interval", "1s"]);
    await createdThenDeleted(w, url, "fresh-al", 1_000 + 5_000);
    expect(w.out()).not.toMatch(/events/i);
  });
});
