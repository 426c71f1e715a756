import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyTrailText } from "../../../src/domain/audit/audit-chain";
import type { AuditEntry } from "../../../src/domain/audit/audit-entry";
import { SqlClient } from "../../../src/services/sql/client";
import { startCli, type CliProcess } from "../../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { git } from "../../helpers/git";
import { eventually, metricValue } from "./watch-metrics";

// The watch scenario of issue 14, against the emulator, with the real CLI in child processes
// (signals, kill -9 and exit codes are process matters). Each case has its own databases and
// stack files, so the cases do not depend on one another's order.

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 200
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: oob, transparentDataEncryption: Enabled }
        - { name: legacy, transparentDataEncryption: Enabled }
        - { name: slow, transparentDataEncryption: Disabled, scan: { durationMs: 15000 } }
        - { name: stuck, transparentDataEncryption: Disabled, scan: { outcome: stall, failAtPercent: 30 } }
        - { name: other, transparentDataEncryption: Enabled }
        - { name: ready, transparentDataEncryption: Enabled }
        - { name: term, transparentDataEncryption: Disabled, scan: { durationMs: 600000 } }
        - { name: gitdb, transparentDataEncryption: Disabled }
        - { name: graceful, transparentDataEncryption: Disabled, scan: { durationMs: 1500 } }
        - { name: throttled, transparentDataEncryption: Enabled }
`;
const stackYaml = (...dbs: [string, "Enabled" | "Disabled"][]) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${dbs
    .map(([d, s]) => `    - { resourceGroup: rg, server: s1, database: ${d}, transparentDataEncryption: ${s} }\n`)
    .join("")}`;

let t: TestEmulator;
let sql: SqlClient;
const running: CliProcess[] = [];
const ref = (database: string) => ({ subscriptionId: SUB, resourceGroup: "rg", server: "s1", database });

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
});
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await t.close();
});

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`, ...extra };
}

function cli(args: string[], cwd: string, extra: NodeJS.ProcessEnv = {}): CliProcess {
  const p = startCli(args, { cwd, env: env(extra) });
  running.push(p);
  return p;
}

async function listening(p: CliProcess): Promise<string> {
  return /listening on (http:\/\/\S+)/.exec(await p.line(/listening on http/))![1];
}

const metrics = async (url: string) => (await fetch(`${url}/metrics`)).text();

async function waitScanIdle(database: string): Promise<void> {
  await eventually(`the scan of ${database} to end`, async () =>
    (await sql.listTransparentDataEncryptionActivities(ref(database))).length === 0 ? true : undefined,
  );
}

function trail(dir: string, stack: string): AuditEntry[] {
  return readFileSync(join(dir, ".stackwarden", "audit", `${stack}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AuditEntry);
}

describe("watch: drift, remediation, metrics", () => {
  it("an out-of-band change shows on the next tick and /metrics shows drift 1; SIGTERM exits 0", async () => {
    const dir = workdir({ "Pulumi.oob.yaml": stackYaml(["oob", "Enabled"]) });
    const w = cli(["watch", "--config", "Pulumi.oob.yaml", "--interval", "100ms", "--listen", "127.0.0.1:0"], dir);
    const url = await listening(w);
    await eventually(
      "a clean tick",
      async () => (metricValue(await metrics(url), "stackwarden_watch_ticks_total", { result: "ok" }) ?? 0) >= 1 || undefined,
    );
    expect(metricValue(await metrics(url), "stackwarden_drifted_resources", { stack: "oob" })).toBe(0);

    await sql.putTransparentDataEncryption(ref("oob"), "Disabled");
    await waitScanIdle("oob");
    await eventually("drift 1 in /metrics", async () =>
      metricValue(await metrics(url), "stackwarden_drifted_resources", { stack: "oob" }) === 1 ? true : undefined,
    );
    const text = await metrics(url);
    expect(metricValue(text, "stackwarden_findings", { stack: "oob", rule: "sql-tde-enabled", level: "mandatory" })).toBe(1);
    expect(metricValue(text, "stackwarden_api_requests_total", { service: "sql", status: "200" })).toBeGreaterThan(0);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^stackwarden_watch_tick_duration_seconds_count\{stack="oob"\} \d+/m);
    expect(w.out()).toMatch(/tick \d+:\s+~ rg\/s1\/oob TDE live Disabled, desired Enabled/);
    // Without --auto-remediate nothing is changed.
    expect((await sql.getTransparentDataEncryption(ref("oob"))).properties?.status).toBe("Disabled");
    expect(existsSync(join(dir, ".stackwarden", "audit"))).toBe(false);

    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.out()).toMatch(/stopping: received SIGTERM/);
  });

  it("with --auto-remediate the drift is repaired and audited, and /metrics shows drift 0", async () => {
    // Depends on nothing above: make the drift here if the case above has not.
    if ((await sql.getTransparentDataEncryption(ref("oob"))).properties?.status !== "Disabled") {
      await sql.putTransparentDataEncryption(ref("oob"), "Disabled");
      await waitScanIdle("oob");
    }
    const dir = workdir({ "Pulumi.fix.yaml": stackYaml(["oob", "Enabled"]) });
    const w = cli(
      [
        "watch",
        "--config",
        "Pulumi.fix.yaml",
        "--interval",
        "100ms",
        "--listen",
        "127.0.0.1:0",
        "--auto-remediate",
        "--poll-interval",
        "50",
      ],
      dir,
    );
    const url = await listening(w);
    await eventually("a repair in /metrics", async () =>
      metricValue(await metrics(url), "stackwarden_remediations_total", { stack: "fix", outcome: "converged" }) === 1 ? true : undefined,
    );
    await eventually("drift 0 in /metrics", async () =>
      metricValue(await metrics(url), "stackwarden_drifted_resources", { stack: "fix" }) === 0 ? true : undefined,
    );
    expect((await sql.getTransparentDataEncryption(ref("oob"))).properties?.status).toBe("Enabled");
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);

    const entries = trail(dir, "fix");
    expect(entries).toHaveLength(1);
    const e = entries[0];
    expect(e).toMatchObject({ seq: 1, stack: "fix", command: "remediate", exitCode: 0 });
    expect(e.what).toEqual([
      expect.objectContaining({
        resource: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/oob`,
        before: "Disabled",
        after: "Enabled",
        outcome: "converged",
        scanDurationMs: expect.any(Number),
      }),
    ]);
    // Who: the token's claims and the VM, never the token.
    const token = await t.credential.getToken("https://management.azure.com/.default");
    const claims = JSON.parse(Buffer.from(token.token.split(".")[1], "base64url").toString()) as {
      tid: string;
      oid: string;
      appid: string;
    };
    expect(e.who).toMatchObject({ claims: "decoded", tid: claims.tid, oid: claims.oid, appid: claims.appid });
    expect(e.who.vm).toMatchObject({ vmId: expect.any(String), signatureVerified: true, signer: "metadata.azure.com" });
    const raw = readFileSync(join(dir, ".stackwarden", "audit", "fix.jsonl"), "utf8");
    expect(raw).not.toContain(token.token.split(".")[2]);
    expect(raw).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    expect(verifyTrailText(raw).intact).toBe(true);
  });

  it("a repair a mandatory rule would flag (decrypting because the stack says Disabled) is reported and audited, never applied", async () => {
    const dir = workdir({ "Pulumi.keep.yaml": stackYaml(["legacy", "Disabled"]) });
    const w = cli(["watch", "--config", "Pulumi.keep.yaml", "--interval", "100ms", "--listen", "127.0.0.1:0", "--auto-remediate"], dir);
    const url = await listening(w);
    await w.line(/not repairing rg\/s1\/legacy: sql-tde-enabled \(mandatory\) would flag it/);
    await eventually("three ticks", async () =>
      (metricValue(await metrics(url), "stackwarden_watch_ticks_total", { result: "ok" }) ?? 0) >= 3 ? true : undefined,
    );
    const text = await metrics(url);
    expect(metricValue(text, "stackwarden_drifted_resources", { stack: "keep" })).toBe(1);
    expect(metricValue(text, "stackwarden_remediations_total", { stack: "keep", outcome: "refused" })).toBe(1);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect((await sql.getTransparentDataEncryption(ref("legacy"))).properties?.status).toBe("Enabled");
    // Reported once in the trail, not once per tick.
    const entries = trail(dir, "keep");
    expect(entries).toHaveLength(1);
    expect(entries[0].what).toEqual([
      expect.objectContaining({
        before: "Enabled",
        after: "Enabled",
        outcome: "refused",
        reason: expect.stringContaining("sql-tde-enabled (mandatory)"),
      }),
    ]);
  });

  it("/readyz turns unready when ticks fail, and ready again when they pass", async () => {
    const dir = workdir({ "Pulumi.ready.yaml": stackYaml(["ready", "Enabled"]) });
    const w = cli(["watch", "--config", "Pulumi.ready.yaml", "--interval", "100ms", "--listen", "127.0.0.1:0"], dir);
    const url = await listening(w);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    await eventually("ready", async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined));
    // A database that does not exist: every tick fails with the API's 404 until the file is fixed.
    writeFileSync(join(dir, "Pulumi.ready.yaml"), stackYaml(["ready", "Enabled"], ["missing", "Enabled"]));
    // Waits for the failed tick's reason: on a loaded machine a 100 ms schedule can also be unready
    // for a moment because its last good tick is a few ms past two periods (another true reason).
    const body = await eventually("unready", async () => {
      const r = await fetch(`${url}/readyz`);
      const text = r.status === 503 ? await r.text() : "";
      return /failed/.test(text) ? text : undefined;
    });
    expect(body).toMatch(/^not ready: tick \d+ failed: .*missing/);
    expect(metricValue(await metrics(url), "stackwarden_watch_ticks_total", { result: "error" })).toBeGreaterThanOrEqual(1);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(w.out()).toMatch(/tick \d+: FAILED: /);
    writeFileSync(join(dir, "Pulumi.ready.yaml"), stackYaml(["ready", "Enabled"]));
    await eventually("ready again", async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined));
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
  });

  it("SIGTERM during a tick's apply: the apply stops between requests after the grace period, is audited, the lock is released, exit 0", async () => {
    const dir = workdir({ "Pulumi.term.yaml": stackYaml(["term", "Enabled"]) });
    const w = cli(
      ["watch", "--config", "Pulumi.term.yaml", "--interval", "100ms", "--auto-remediate", "--grace", "300ms", "--poll-interval", "50"],
      dir,
    );
    await w.line(/rg\/s1\/term: encryption requested/);
    expect(existsSync(join(dir, ".stackwarden", "locks", "term.lock", "holder.json"))).toBe(true);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.out()).toMatch(/an apply is running: it may finish within the grace period of 300ms/);
    expect(existsSync(join(dir, ".stackwarden", "locks", "term.lock"))).toBe(false);
    const entries = trail(dir, "term");
    expect(entries).toHaveLength(1);
    expect(entries[0].what).toEqual([expect.objectContaining({ before: "Disabled", outcome: "interrupted" })]);
  });
});

describe("watch: grace, schedules, throttling", () => {
  it("SIGTERM while an apply runs within the grace period: the apply finishes, then exit 0", async () => {
    const dir = workdir({ "Pulumi.graceful.yaml": stackYaml(["graceful", "Enabled"]) });
    const w = cli(
      ["watch", "--config", "Pulumi.graceful.yaml", "--interval", "100ms", "--auto-remediate", "--grace", "60s", "--poll-interval", "50"],
      dir,
    );
    await w.line(/rg\/s1\/graceful: encryption requested/);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect(w.out()).toMatch(/remediation: 1 of 1 converged; audit entry 1/);
    expect((await sql.getTransparentDataEncryption(ref("graceful"))).properties?.status).toBe("Enabled");
    expect(trail(dir, "graceful")[0].what).toEqual([
      expect.objectContaining({ before: "Disabled", after: "Enabled", outcome: "converged" }),
    ]);
    expect(existsSync(join(dir, ".stackwarden", "locks", "graceful.lock"))).toBe(false);
  });

  it("--schedule ticks at a cron schedule (6 fields: every second); --max-ticks ends it with exit 0", async () => {
    const dir = workdir({ "Pulumi.cron.yaml": stackYaml(["other", "Enabled"]) });
    const w = cli(["watch", "--config", "Pulumi.cron.yaml", "--schedule", "* * * * * *", "--max-ticks", "2"], dir);
    expect(await w.exited).toBe(0);
    expect(w.out()).toMatch(/watching stack cron \(Pulumi\.cron\.yaml\) cron "\* \* \* \* \* \*"/);
    expect(w.out()).toMatch(/tick 2: 0 drifted/);
    expect(w.out()).toMatch(/stopping: 2 tick\(s\) done \(--max-ticks\)/);
  });

  it("429s from the API are retried and counted by service in /metrics", async () => {
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 3,
      rules: [
        {
          match: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/throttled/transparentDataEncryption`,
          status: 429,
          count: 2,
          retryAfterMs: 10,
        },
      ],
    });
    try {
      const dir = workdir({ "Pulumi.throttled.yaml": stackYaml(["throttled", "Enabled"]) });
      const w = cli(["watch", "--config", "Pulumi.throttled.yaml", "--interval", "100ms", "--listen", "127.0.0.1:0"], dir);
      const url = await listening(w);
      await eventually("a clean tick", async () =>
        (metricValue(await metrics(url), "stackwarden_watch_ticks_total", { result: "ok" }) ?? 0) >= 1 ? true : undefined,
      );
      const text = await metrics(url);
      expect(metricValue(text, "stackwarden_api_throttled_total", { service: "sql" })).toBe(2);
      expect(metricValue(text, "stackwarden_api_retries_total", { service: "sql" })).toBe(2);
      expect(metricValue(text, "stackwarden_api_requests_total", { service: "sql", status: "429" })).toBe(2);
      expect(metricValue(text, "stackwarden_api_requests_total", { service: "imds", status: "200" })).toBeGreaterThanOrEqual(1);
      w.child.kill("SIGTERM");
      expect(await w.exited).toBe(0);
    } finally {
      t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
    }
  });
});

describe("per-stack locks", () => {
  const SHARED = mkdtempSync(join(tmpdir(), "stackwarden-locks-"));
  const shared = { STACKWARDEN_LOCK_DIR: SHARED };

  it("two concurrent applies: the second fails at once naming the holder; with --lock-timeout it waits and then applies", async () => {
    const a = workdir({ "Pulumi.pair.yaml": stackYaml(["slow", "Enabled"]) });
    const b = workdir({ "Pulumi.pair.yaml": stackYaml(["other", "Enabled"]) });
    const first = cli(["apply", "--config", "Pulumi.pair.yaml", "--yes", "--poll-interval", "50"], a, shared);
    await first.line(/rg\/s1\/slow: encryption requested/);

    const second = cli(["apply", "--config", "Pulumi.pair.yaml", "--yes"], b, shared);
    expect(await second.exited).toBe(1);
    expect(second.err().trim().split("\n")).toHaveLength(1);
    expect(second.err()).toMatch(
      new RegExp(`stack pair is locked by pid ${first.pid} on host \\S+ since \\d{4}-\\d\\d-\\d\\dT[^ ]+ \\(apply`),
    );
    expect(second.out()).toBe("");
    // A read-only command takes no lock.
    const plan = cli(["plan", "--config", "Pulumi.pair.yaml"], b, shared);
    expect(await plan.exited).toBe(0);

    const waiting = cli(["apply", "--config", "Pulumi.pair.yaml", "--yes", "--lock-timeout", "60s"], b, shared);
    expect(await waiting.exited).toBe(0);
    expect(waiting.err()).toMatch(/stack pair is locked by pid \d+ .*; waiting up to 1m/);
    expect(await first.exited).toBe(0);
  });

  it("after kill -9 of the holder, the next apply gets the lock", async () => {
    const a = workdir({ "Pulumi.crash.yaml": stackYaml(["stuck", "Enabled"]) });
    const b = workdir({ "Pulumi.crash.yaml": stackYaml(["other", "Enabled"]) });
    const holder = cli(["apply", "--config", "Pulumi.crash.yaml", "--yes", "--poll-interval", "50"], a, shared);
    await holder.line(/rg\/s1\/stuck: encryption requested/);
    expect(existsSync(join(SHARED, "crash.lock"))).toBe(true);
    holder.child.kill("SIGKILL");
    expect(await holder.exited).toBe("SIGKILL");
    expect(existsSync(join(SHARED, "crash.lock")), "kill -9 leaves the lock behind").toBe(true);

    const next = cli(["apply", "--config", "Pulumi.crash.yaml", "--yes"], b, shared);
    expect(await next.exited).toBe(0);
    expect(next.err()).toMatch(new RegExp(`recovered the lock left by pid ${holder.pid} on host \\S+ .*: that process no longer runs`));
    expect(existsSync(join(SHARED, "crash.lock"))).toBe(false);
  });
});

describe("audit verify", () => {
  it("an intact trail exits 0; an edited, a removed and a reordered line each exit 5 naming the line", async () => {
    const dir = workdir({ "Pulumi.trail.yaml": stackYaml(["other", "Enabled"]) });
    for (let i = 0; i < 3; i++) {
      const a = cli(["apply", "--config", "Pulumi.trail.yaml", "--yes"], dir);
      expect(await a.exited).toBe(0);
    }
    const file = join(dir, ".stackwarden", "audit", "trail.jsonl");
    const verify = async () => {
      const v = cli(["audit", "verify", "--stack", "trail"], dir);
      return { code: await v.exited, out: v.out(), err: v.err() };
    };
    const intact = await verify();
    expect(intact.code, intact.err).toBe(0);
    expect(intact.out).toMatch(/intact, 3 entries; head seq 3 sha256 [0-9a-f]{64}/);

    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    writeFileSync(file, [lines[0], lines[1].replace('"exitCode":0', '"exitCode":1'), lines[2]].join("\n") + "\n");
    const edited = await verify();
    expect(edited.code).toBe(5);
    expect(edited.out).toMatch(/line 2: edited: line 2 \(seq 2\) was edited/);

    writeFileSync(file, [lines[0], lines[2]].join("\n") + "\n");
    const removed = await verify();
    expect(removed.code).toBe(5);
    expect(removed.out).toMatch(/line 2: removed: entry seq 2 was removed before line 2/);

    writeFileSync(file, [lines[0], lines[2], lines[1]].join("\n") + "\n");
    const reordered = await verify();
    expect(reordered.code).toBe(5);
    expect(reordered.out).toMatch(/line 2: reordered: line 2 holds seq 3, not 2/);

    const missing = cli(["audit", "verify", "--stack", "nothing-here"], dir);
    expect(await missing.exited).toBe(1);
    expect(missing.err()).toMatch(/no audit trail at .*nothing-here\.jsonl/);
  });
});

describe("watch --git", () => {
  it("a new commit on the branch is planned and applied with --auto-apply; its sha is in the audit entry", async () => {
    const root = mkdtempSync(join(tmpdir(), "stackwarden-git-"));
    git(root, "init", "--quiet", "--bare", "--initial-branch=main", "remote.git");
    git(root, "clone", "--quiet", join(root, "remote.git"), "author");
    const author = join(root, "author");
    mkdirSync(join(author, "stacks"), { recursive: true });
    writeFileSync(join(author, "stacks", "Pulumi.gitops.yaml"), stackYaml(["gitdb", "Disabled"]));
    git(author, "add", ".");
    git(author, "commit", "--quiet", "-m", "first");
    git(author, "push", "--quiet", "origin", "HEAD:main");
    git(root, "clone", "--quiet", "--branch", "main", join(root, "remote.git"), "checkout");

    const w = cli(
      ["watch", "--git", join(root, "checkout"), "--stack", "gitops", "--interval", "100ms", "--auto-apply", "--poll-interval", "50"],
      root,
    );
    await w.line(/tick \d+ @[0-9a-f]{12}: new commit: applying 0 change\(s\)/);
    writeFileSync(join(author, "stacks", "Pulumi.gitops.yaml"), stackYaml(["gitdb", "Enabled"]));
    git(author, "commit", "--quiet", "-am", "encrypt gitdb");
    git(author, "push", "--quiet", "origin", "HEAD:main");
    const sha = git(author, "rev-parse", "HEAD");
    await w.line(new RegExp(`tick \\d+ @${sha.slice(0, 12)}: new commit: applying 1 change\\(s\\)`));
    await w.line(/apply: 1 of 1 converged; audit entry 1/);
    w.child.kill("SIGTERM");
    expect(await w.exited).toBe(0);
    expect((await sql.getTransparentDataEncryption(ref("gitdb"))).properties?.status).toBe("Enabled");
    const entries = trail(root, "gitops");
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ command: "watch", commit: sha, exitCode: 0 });
    expect(entries[0].what).toEqual([expect.objectContaining({ before: "Disabled", after: "Enabled", outcome: "converged" })]);
  });
});
