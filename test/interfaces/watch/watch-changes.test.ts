import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../src/domain/audit/audit-entry";
import { MonitorClient } from "../../../src/services/monitor/client";
import { SqlClient } from "../../../src/services/sql/client";
import { runCliProcess, startCli, type CliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import type { EmulatorOptions } from "../../../src/emulator/server";
import { eventually, metricValue } from "./watch-metrics";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver";

// Issue 32: change records drive targeted re-reads; drift found through one names who made it.
// Against the emulator, with the real CLI in a child process (as watch-scenario.test.ts does).
// Event Grid's deliveries are posted here as Event Grid posts them (the published example's shape).

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 200
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: pushed, transparentDataEncryption: Enabled }
        - { name: swept, transparentDataEncryption: Enabled }
        - { name: quiet, transparentDataEncryption: Enabled }
`;
const stackYaml = (...dbs: string[]) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${dbs
    .map((d) => `    - { resourceGroup: rg, server: s1, database: ${d}, transparentDataEncryption: Enabled }\n`)
    .join("")}`;
const NOTIFY_SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const EVENTS_SECRET = randomBytes(24).toString("hex");

let t: TestEmulator;
let sql: SqlClient;
let receiver: WebhookReceiver;
const running: CliProcess[] = [];
const emulators: TestEmulator[] = [];
const ref = (database: string) => ({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database });
const tdeId = (database: string) =>
  `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/${database}/transparentDataEncryption/current`;

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  receiver = await startReceiver(NOTIFY_SECRET);
});
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await receiver.stop();
  await t.close();
  for (const e of emulators) await e.close();
});

function watch(stack: string, args: string[], env: NodeJS.ProcessEnv = {}, te: TestEmulator = t): { dir: string; w: CliProcess } {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-changes-"));
  mkdirSync(join(dir, "stacks"));
  writeFileSync(join(dir, "stacks", "Pulumi.dev.yaml"), stack);
  const w = startCli(["watch", "--stack", "dev", "--listen", "127.0.0.1:0", ...args], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      STACKWARDEN_ARM_ENDPOINT: te.url,
      STACKWARDEN_IMDS_ENDPOINT: `${te.url}/metadata`,
      STACKWARDEN_NOTIFY_SECRET: NOTIFY_SECRET,
      ...env,
    },
  });
  running.push(w);
  return { dir, w };
}

async function listening(p: CliProcess): Promise<string> {
  return /listening on (http:\/\/\S+)/.exec(await p.line(/listening on http/))![1];
}

function remediations(dir: string): AuditEntry[] {
  let text: string;
  try {
    text = readFileSync(join(dir, ".stackwarden", "audit", "dev.jsonl"), "utf8");
  } catch {
    return [];
  }
  return text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AuditEntry)
    .filter((e) => e.command === "remediate" && e.exitCode !== null);
}

async function outOfBand(database: string, te: TestEmulator = t): Promise<void> {
  const client = te === t ? sql : new SqlClient({ endpoint: te.url, credential: te.credential, retry: FAST_RETRY });
  await client.putTransparentDataEncryption(ref(database), "Disabled");
  await eventually(`the scan of ${database} to end`, async () =>
    (await client.listTransparentDataEncryptionActivities(ref(database))).length === 0 ? true : undefined,
  );
}

/** `stackwarden emulator change`, as a person changes TDE in the portal: a PUT through the emulator's Resource Manager. */
async function emulatorChange(te: TestEmulator, database: string): Promise<void> {
  const r = await runCliProcess(["emulator", "change", "--database", `rg/s1/${database}`, "--tde", "Disabled"], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH, STACKWARDEN_EMULATOR: te.url },
    timeoutMs: 60_000,
  });
  expect(r.code, r.output).toBe(0);
}

/** The caller the emulator's Activity Log names for the last Succeeded TDE write of a database. */
async function callerInActivityLog(te: TestEmulator, database: string): Promise<string> {
  const monitor = new MonitorClient({ endpoint: te.url, credential: te.credential, retry: FAST_RETRY });
  const q = { subscriptionId: SUB, from: new Date(Date.now() - 3_600_000), to: new Date(Date.now() + 60_000) };
  for await (const page of monitor.activityLog(q))
    for (const e of page)
      if (e.resourceId?.toLowerCase() === tdeId(database).toLowerCase() && e.status?.value === "Succeeded" && e.caller) return e.caller;
  throw new Error(`no Succeeded write of ${database} in the Activity Log`);
}

async function startEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const te = await startTestEmulator({ seed: seedFromYaml(SEED), ...opts });
  emulators.push(te);
  return te;
}

/** A user's Resource Manager token from the emulator (`POST /_emulator/user-token`): their writes are recorded with their UPN as caller. */
async function userSql(te: TestEmulator, upn: string): Promise<SqlClient> {
  const res = await fetch(`${te.url}/_emulator/user-token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upn }),
  });
  expect(res.status).toBe(200);
  const { access_token, expires_on } = (await res.json()) as { access_token: string; expires_on: string };
  const credential = { getToken: async () => ({ token: access_token, expiresOnTimestamp: Number(expires_on) * 1000 }) };
  return new SqlClient({ endpoint: te.url, credential, retry: FAST_RETRY });
}

/** An Event Grid subscription of the emulator's system topic to the watcher's webhook; answers once the handshake is over. */
async function subscribe(
  te: TestEmulator,
  name: string,
  endpointUrl: string,
  eventDeliverySchema: "EventGridSchema" | "CloudEventSchemaV1_0",
) {
  const res = await fetch(`${te.url}/_emulator/event-subscriptions/${name}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ endpointUrl, eventDeliverySchema, includedEventTypes: ["Microsoft.Resources.ResourceWriteSuccess"] }),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as { validated?: boolean };
}

describe("watch: Event Grid deliveries drive a targeted re-read, and the repair names who made the drift", () => {
  it("passes both handshakes, refuses a delivery without the secret, repairs a user's change within 15 s once for two deliveries", async () => {
    const { dir, w } = watch(
      stackYaml("pushed", "quiet"),
      [
        "--interval",
        "1h",
        "--changes-interval",
        "1h",
        "--auto-remediate",
        "--events",
        "--events-secret-env",
        "EG_SECRET",
        "--notify",
        receiver.url,
      ],
      { EG_SECRET: EVENTS_SECRET },
    );
    const url = await listening(w);
    await w.line(/tick 1: 0 drifted/);
    const endpoint = `${url}/events/azure?key=${EVENTS_SECRET}`;
    // The emulator validates each endpoint as Event Grid does: the validation event, and CloudEvents' OPTIONS.
    expect(await subscribe(t, "eg-schema", endpoint, "EventGridSchema")).toMatchObject({ validated: true });
    expect(await subscribe(t, "ce-schema", endpoint, "CloudEventSchemaV1_0")).toMatchObject({ validated: true });
    expect(w.out()).toMatch(/events: answered Event Grid's subscription validation/);
    const unauthenticated = await fetch(`${url}/events/azure?key=wrong`, { method: "POST", body: "[]" });
    expect(unauthenticated.status).toBe(401);

    // Alice disables TDE in the portal: the emulator delivers the write to both subscriptions (one event id).
    const alice = await userSql(t, "alice@contoso.com");
    await alice.putTransparentDataEncryption(ref("pushed"), "Disabled");
    const changedAt = Date.now();
    await eventually(
      "the repair",
      async () => ((await sql.getTransparentDataEncryption(ref("pushed"))).properties?.status === "Enabled" ? true : undefined),
      15_000,
    );
    expect(Date.now() - changedAt).toBeLessThan(15_000);
    await eventually("the remediation's audit entry", async () => (remediations(dir).length > 0 ? true : undefined));
    const cause = {
      caller: "alice@contoso.com",
      operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
      source: "event-grid",
    };
    const [entry] = remediations(dir);
    expect(entry.what).toEqual([expect.objectContaining({ outcome: "converged", cause: expect.objectContaining(cause) })]);
    expect(entry.what[0].cause?.correlationId).toMatch(/./);

    const detected = await eventually("drift.detected", async () =>
      receiver.events.find((e) => e.type === "com.stackwarden.drift.detected"),
    );
    expect(detected.data.resources).toEqual([
      expect.objectContaining({ label: "rg/s1/pushed", changedBy: expect.objectContaining(cause) }),
    ]);
    const lastApply = await eventually("the repair in /api/v1/stacks/dev", async () => {
      const status = (await (await fetch(`${url}/api/v1/stacks/dev`)).json()) as {
        deployment: { lastApply: { changedBy: unknown[] } | null };
      };
      return status.deployment.lastApply ?? undefined;
    });
    expect(lastApply.changedBy).toEqual([expect.objectContaining(cause)]);
    expect(w.out()).toMatch(/re-read 1: 1 changed resource\(s\) reach 1 database\(s\)/);
    expect(w.out()).toMatch(
      /~ rg\/s1\/pushed TDE live Disabled, desired Enabled, by alice@contoso\.com through Microsoft\.Sql\/servers\/databases\/transparentDataEncryption\/write/,
    );

    // The second delivery (the other schema, the same event id) was dropped by its id; the watcher's
    // own repair is delivered too, and re-reads a database already as desired: one remediation.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(remediations(dir)).toHaveLength(1);
    for (const name of ["eg-schema", "ce-schema"]) await fetch(`${t.url}/_emulator/event-subscriptions/${name}`, { method: "DELETE" });
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });

  it("with every record lost (--changes off), the sweep still finds and repairs the drift, and says so", async () => {
    const { dir, w } = watch(stackYaml("swept"), ["--interval", "2s", "--changes", "off", "--auto-remediate"]);
    await listening(w);
    await w.line(/tick 1: 0 drifted/);
    await outOfBand("swept");
    await eventually("the sweep's repair", async () => (remediations(dir).length > 0 ? true : undefined), 30_000);
    expect(remediations(dir)[0].what[0]).not.toHaveProperty("cause");
    expect(w.out()).toMatch(/~ rg\/s1\/swept TDE live Disabled, desired Enabled, by the sweep/);
    expect(w.out()).not.toMatch(/re-read/);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });
});

describe("watch: the Activity Log drives a targeted re-read (issue 32's done-when)", () => {
  it("watch --stack dev --interval 1h --changes-interval 2s --auto-remediate repairs an out-of-band change within 15 s, naming its caller", async () => {
    const te = await startEmulator();
    const { dir, w } = watch(
      stackYaml("pushed"),
      ["--interval", "1h", "--changes-interval", "2s", "--auto-remediate", "--notify", receiver.url],
      {},
      te,
    );
    const url = await listening(w);
    await w.line(/tick 1: 0 drifted/);
    const before = receiver.events.length;

    await emulatorChange(te, "pushed");
    const changedAt = Date.now();
    const client = new SqlClient({ endpoint: te.url, credential: te.credential, retry: FAST_RETRY });
    await eventually(
      "the repair",
      async () => ((await client.getTransparentDataEncryption(ref("pushed"))).properties?.status === "Enabled" ? true : undefined),
      15_000,
    );
    expect(Date.now() - changedAt).toBeLessThan(15_000);

    const caller = await callerInActivityLog(te, "pushed");
    const cause = { caller, operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write", source: "activity-log" };
    await eventually("the remediation's audit entry", async () => (remediations(dir).length > 0 ? true : undefined));
    expect(remediations(dir)[0].what).toEqual([expect.objectContaining({ outcome: "converged", cause: expect.objectContaining(cause) })]);
    expect(remediations(dir)[0].what[0].cause?.correlationId).toMatch(/./);
    const detected = await eventually("drift.detected", async () =>
      receiver.events.slice(before).find((e) => e.type === "com.stackwarden.drift.detected"),
    );
    expect(detected.data.resources).toEqual([
      expect.objectContaining({ label: "rg/s1/pushed", changedBy: expect.objectContaining(cause) }),
    ]);
    const lastApply = await eventually("the repair in /api/v1/stacks/dev", async () => {
      const status = (await (await fetch(`${url}/api/v1/stacks/dev`)).json()) as {
        deployment: { lastApply: { changedBy: unknown[] } | null };
      };
      return status.deployment.lastApply ?? undefined;
    });
    expect(lastApply.changedBy).toEqual([expect.objectContaining(cause)]);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });

  it("every record duplicated: exactly one remediation", async () => {
    const te = await startEmulator({ faults: { rules: [{ record: "duplicate", channel: "activityLog", rate: 1 }] } });
    const { dir, w } = watch(stackYaml("pushed"), ["--interval", "1h", "--changes-interval", "1s", "--auto-remediate"], {}, te);
    const url = await listening(w);
    await w.line(/tick 1: 0 drifted/);
    await outOfBand("pushed", te);
    await eventually("the remediation", async () => (remediations(dir).length > 0 ? true : undefined), 15_000);
    // Several pulls later (each window overlaps the last by 5 minutes): still one.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(remediations(dir)).toHaveLength(1);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metricValue(metrics, "stackwarden_change_records_total", { source: "activity-log", result: "duplicate" })).toBeGreaterThan(0);
    expect(metricValue(metrics, "stackwarden_rereads_total", { stack: "dev" })).toBeGreaterThan(0);
    expect(remediations(dir)[0].what[0].cause?.source).toBe("activity-log");
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });

  it("every record dropped: the sweep still finds and repairs the drift, by the sweep", async () => {
    const te = await startEmulator({ faults: { rules: [{ record: "drop", channel: "activityLog", rate: 1 }] } });
    const { dir, w } = watch(stackYaml("pushed"), ["--interval", "3s", "--changes-interval", "1s", "--auto-remediate"], {}, te);
    await listening(w);
    await w.line(/tick 1: 0 drifted/);
    await outOfBand("pushed", te);
    await eventually("the sweep's repair", async () => (remediations(dir).length > 0 ? true : undefined), 30_000);
    expect(remediations(dir)[0].what[0]).not.toHaveProperty("cause");
    expect(w.out()).toMatch(/~ rg\/s1\/pushed TDE live Disabled, desired Enabled, by the sweep/);
    expect(w.out()).not.toMatch(/re-read \d+:/);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });
});
