import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../../src/services/sql/client";
import { startCli, type CliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// Issue 42 item 5: a database created in a watched stack's scope (through the emulator's Resource
// Manager) is judged from its Event Grid record, within 5 s and without a sweep; its deletion
// removes it from the counts. The real CLI in a child process, as watch-changes.test.ts runs it.

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
const FRESH = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/fresh`;

let t: TestEmulator;
let sql: SqlClient;
let w: CliProcess | undefined;

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
});
afterAll(async () => {
  w?.child.kill("SIGKILL");
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

describe("watch: a database created in scope is judged from its change record", () => {
  it("judged within 5 s through Event Grid without a sweep; deleted, it is no longer counted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-discovered-"));
    mkdirSync(join(dir, "stacks"));
    writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), STACK);
    w = startCli(
      [
        "watch",
        "--stack",
        "dev",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "1h",
        "--changes-interval",
        "1h",
        "--events",
        "--events-secret-env",
        "EG_SECRET",
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          STACKWARDEN_ARM_ENDPOINT: t.url,
          STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
          EG_SECRET: EVENTS_SECRET,
        },
      },
    );
    const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
    await w.line(/tick 1: /);
    const res = await fetch(`${t.url}/_emulator/event-subscriptions/watch`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpointUrl: `${url}/events/azure?key=${EVENTS_SECRET}` }),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);

    // Someone creates a database in the scope, then turns its encryption off: two ARM writes.
    expect(await arm("PUT", FRESH, { location: "East US" })).toBe(201);
    await sql.putTransparentDataEncryption({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database: "fresh" }, "Disabled");
    const changedAt = Date.now();
    // Judged as a discovered database: desired Enabled (the scope's default), live Disabled; not repaired (no remediate).
    await w.line(/re-read \d+: the stack now has 1 drifted, 1 mandatory/, 5_000);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
    expect(w.out()).toMatch(/re-read \d+: \d changed resource\(s\) reach 1 database\(s\)/);
    expect(w.out()).toMatch(/~ rg\/s1\/fresh TDE live Disabled, desired Enabled/);
    expect(w.out()).not.toMatch(/tick 2/);

    expect(await arm("DELETE", FRESH)).toBe(200);
    await w.line(/1 database\(s\) of the scope deleted: no longer counted/, 5_000);
    const status = (await (await fetch(`${url}/metrics`)).text()).split("\n");
    expect(status.filter((l) => /^stackwarden_findings\{.*level="mandatory".*\} [1-9]/.test(l))).toEqual([]);
    expect(w.out()).not.toMatch(/tick 2/);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });
});
