/**
 * `stackwarden check` at fleet scale under Resource Manager's throttling: 10 000 databases on 50
 * servers, the emulator in a child process with `--throttle` (the documented buckets; refill rates
 * scaled by BENCH_REFILL_SCALE, default 20, so that a run takes a minute instead of twenty), and
 * `check` as a whole process, as a pipeline runs it, with every rule that reads live facts enabled
 * (their default levels):
 * - `sql-tde-enabled` and `sql-tier-advisor-drift`: each database's TDE configuration and its service
 *   tier advisors (every tenth database has an advisor that recommends another tier);
 * - `batch-quota-headroom`: the usages of the stack's location;
 * - `data-residency`: every database placed by its region (from the TDE configuration `check` already
 *   reads, shared) and the subscription's Batch AI workspaces discovered;
 * - the key custody rules, `sql-tde-customer-managed-key`, `tde-key-validity` and
 *   `tde-key-vault-recoverable`: each server's TDE protector; half the servers use a customer-managed
 *   key in one of five vaults (one without purge protection, one key near its expiry), so the
 *   subscription's vaults are listed and each vault and key version is read once.
 *
 * The reads are counted by the emulator (every GET under /subscriptions/). The floor is the larger of
 * what the throttle allows for that many reads, (reads - bucket) / refill rate, with the bucket full
 * at the start, and what the rig alone costs: a bare undici client replaying the same reads (recorded
 * from check's process) against the same emulator with its throttling switched off. Beside it, the
 * CLI's own CPU (its process, reported by bench/child-usage.ts at exit) per read and per database,
 * its peak RSS, and the emulator's CPU (`cpuMicros`) per read; then `plan` over the same stack as a
 * process, for its CPU per read. Goals: check's wall time at most 1.1x the floor, with zero 429s;
 * check's CPU per read at most 1.5x plan's; peak RSS under 1 GB.
 *
 * Settings (environment): BENCH_CHECK_DATABASES (default 10 000), BENCH_CHECK_SERVERS (default 50),
 * BENCH_REFILL_SCALE (default 20), BENCH_CHECK_CONCURRENCY (default 16, check's own default),
 * BENCH_CHILD_PROF=DIR (a CPU profile of each CLI process there).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { PROJECT_ROOT } from "../src/platform/version";
import { setTimeout as sleep } from "node:timers/promises";
import { startChildEmulator, type ChildEmulator } from "./bench-emulator";
import type { ChildUsage } from "./child-usage";
import { reportGoal } from "./goal";
import { replayReads } from "./rig-floor";

const DATABASES = Number(process.env.BENCH_CHECK_DATABASES ?? 10_000);
const SERVERS = Number(process.env.BENCH_CHECK_SERVERS ?? 50);
const SCALE = Number(process.env.BENCH_REFILL_SCALE ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CHECK_CONCURRENCY ?? 16);
const BUCKET = 250;
const RATE = 25 * SCALE;
const SUB = "00000000-0000-0000-0000-000000000000";
const RG = "rg-fleet";

const serverOf = (i: number) => `sql-fleet-${String(i % SERVERS).padStart(2, "0")}`;
const VAULTS = 5;
const vaultOf = (s: number) => `kv-fleet-${s % VAULTS}`;
const KEY_VERSION = "0123456789abcdef0123456789abcdef";
/** Even servers use a customer-managed key (in vault s % 5), odd ones the service-managed protector. */
const protectorOf = (s: number) =>
  s % 2 === 0 ? { encryptionProtector: { keyUri: `https://${vaultOf(s)}.vault.azure.net/keys/tde-fleet/${KEY_VERSION}` } } : {};
const dbName = (i: number) => `db-${String(i).padStart(5, "0")}`;

/** The estate: every 7th database Disabled, every 10th with an advisor recommending S3 over its S1; Batch AI usages. */
function seed() {
  return {
    // Usages of the stack's location, one of them at 92% of its limit (batch-quota-headroom flags it).
    batchai: {
      usages: [
        {
          location: "eastus",
          usages: [
            { name: "cores", currentValue: 92, limit: 100 },
            { name: "clusters", currentValue: 2, limit: 20 },
          ],
        },
      ],
    },
    sql: {
      subscriptionId: SUB,
      servers: Array.from({ length: SERVERS }, (_, s) => ({
        name: serverOf(s),
        resourceGroup: RG,
        ...protectorOf(s),
        databases: Array.from({ length: DATABASES }, (_, i) => i)
          .filter((i) => i % SERVERS === s)
          .map((i) => ({
            name: dbName(i),
            transparentDataEncryption: i % 7 === 0 ? "Disabled" : "Enabled",
            serviceObjective: "S1",
            ...(i % 10 === 0 ? { serviceTierAdvisors: [{ overallRecommendationServiceLevelObjective: "S3", confidence: 0.9 }] } : {}),
          })),
      })),
    },
    keyvault: {
      subscriptionId: SUB,
      vaults: Array.from({ length: VAULTS }, (_, v) => ({
        name: vaultOf(v),
        resourceGroup: "rg-fleet-keys",
        location: "eastus",
        enablePurgeProtection: v !== 1,
        keys: [{ name: "tde-fleet", version: KEY_VERSION, expirationDate: v === 2 ? "now+10d" : "now+730d" }],
      })),
    },
  };
}

/** The stack: every database, the location's usages, and residency in the US (where the estate is). */
function stack(): string {
  return stringify({
    config: {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": Array.from({ length: DATABASES }, (_, i) => ({
        resourceGroup: RG,
        server: serverOf(i),
        database: dbName(i),
        transparentDataEncryption: "Enabled",
        serviceObjective: "S1",
      })),
      "stackwarden:batch": { locations: ["eastus"] },
      "stackwarden:residency": { allowedCountries: ["US"] },
    },
  });
}

/** A CLI process as the bench ran it: exit code, output, wall time (ms), and what it reported of itself. */
interface CliRun {
  code: number | null;
  out: string;
  err: string;
  ms: number;
  usage: ChildUsage;
}

/**
 * Runs `stackwarden <args>` as a process with the usage preload (bench/child-usage.ts): its own CPU
 * time and peak RSS come back with it, and with `readsFile` the GETs it sent. BENCH_CHILD_PROF=DIR
 * writes a CPU profile of it there.
 */
function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string, dir: string, readsFile?: string): Promise<CliRun> {
  const usageFile = join(dir, `usage-${args[0]}.json`);
  const prof = process.env.BENCH_CHILD_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CHILD_PROF}`] : [];
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...prof, "--require", join(__dirname, "child-usage.js"), join(PROJECT_ROOT, "bin", "stackwarden.js"), ...args],
      {
        cwd,
        env: {
          ...env,
          BENCH_USAGE_FILE: usageFile,
          BENCH_TIMES_FILE: join(dir, `times-${args[0]}.txt`),
          ...(readsFile ? { BENCH_READS_FILE: readsFile } : {}),
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      resolve({ code, out, err, ms, usage: JSON.parse(readFileSync(usageFile, "utf8")) as ChildUsage });
    });
  });
}

/** Reads served by the emulator, 429s and its CPU (ms) while `run` ran. */
async function served<T>(emu: ChildEmulator, run: () => Promise<T>) {
  const before = await emu.stats();
  const gets0 = await emu.gets();
  const result = await run();
  const reads = (await emu.gets()) - gets0;
  const after = await emu.stats();
  return {
    result,
    reads,
    before,
    after,
    throttled: after.throttled - before.throttled,
    emulatorCpu: (after.cpuMicros - before.cpuMicros) / 1000,
  };
}

/** Where a CLI process's wall time went: start-up to its first request, the requests, the tail after its last answer. */
function phases(u: ChildUsage, wall: number): string {
  if (u.firstRequestMs === undefined || u.lastAnswerMs === undefined) return "";
  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  return `  phases: start-up to the first request ${s(u.firstRequestMs)}, requests ${s(u.lastAnswerMs - u.firstRequestMs)}, after the last answer ${s(wall - u.lastAnswerMs)} (process spawn and exit included)`;
}

/**
 * Where the send rate fell short during the reads: the half-second windows (from the first request)
 * in which fewer than 90 % of the refill's reads were sent, with how many. A window short of reads
 * while work waited is time the throttle did not cost; the bucket refills then, up to its size.
 */
function slowWindows(timesFile: string): string {
  const times = readFileSync(timesFile, "utf8")
    .split("\n")
    .map((line) => Number(line.slice(0, line.indexOf(" "))));
  const WINDOW = 500;
  const counts = new Map<number, number>();
  for (const t of times) {
    const w = Math.floor((t - times[0]) / WINDOW);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const last = Math.floor((times[times.length - 1] - times[0]) / WINDOW);
  const expected = (RATE * WINDOW) / 1000;
  const slow: string[] = [];
  for (let w = 0; w < last; w++) {
    const n = counts.get(w) ?? 0;
    if (n < 0.9 * expected) slow.push(`${((w * WINDOW) / 1000).toFixed(1)} s: ${n}`);
  }
  return `  send-rate windows (${WINDOW} ms) under 90% of ${expected} reads: ${slow.length ? slow.join(", ") : "none"}\n`;
}

const perRead = (ms: number, reads: number) => `${((ms * 1000) / reads).toFixed(0)} µs/read`;
const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
/** A full read bucket again (the documented size at the scaled rate), plus a margin. */
const refill = () => sleep(Math.ceil((BUCKET / RATE) * 1000) + 500);

async function main(): Promise<void> {
  const throttling = { refillScale: SCALE };
  const emu = await startChildEmulator(seed(), ["--throttle", "--throttle-refill-scale", String(SCALE)]);
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-check-"));
  try {
    writeFileSync(join(dir, "Pulumi.fleet.yaml"), stack());
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STACKWARDEN_ARM_ENDPOINT: emu.url,
      STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
      STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
      STACKWARDEN_GEOCODING_API_KEY: "bench",
    };
    process.stdout.write(
      `${DATABASES} databases on ${SERVERS} servers, check --concurrency ${CONCURRENCY} as a process; throttling: read bucket ${BUCKET}, refill ${RATE}/s (the documented 25/s x ${SCALE}); emulator in a child process; load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    const readsFile = join(dir, "reads.txt");
    const cli = ["--config", "Pulumi.fleet.yaml", "--output", "json", "--concurrency", String(CONCURRENCY)];
    const c = await served(emu, () => runCli(["check", ...cli], env, dir, dir, readsFile));
    const r = c.result;
    const { reads, throttled } = c;
    if (r.code !== 0 && r.code !== 3) throw new Error(`check exited ${r.code}:\n${r.err.slice(-2000)}`);
    const doc = JSON.parse(r.out) as { summary: Record<string, number>; findings: { ruleId: string; verdict: string }[] };
    const byRule = new Map<string, number>();
    for (const f of doc.findings) byRule.set(f.ruleId, (byRule.get(f.ruleId) ?? 0) + 1);
    const byRoute = Object.entries(c.after.byRoute)
      .filter(([k]) => k.startsWith("GET /subscriptions/"))
      .map(([k, v]) => [k, v - (c.before.byRoute[k] ?? 0)] as const)
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `  ${String(v).padStart(6)}  ${k}`);
    process.stdout.write(
      `check: exit ${r.code}, wall ${(r.ms / 1000).toFixed(2)} s; findings by rule: ${[...byRule].map(([k, v]) => `${k} ${v}`).join(", ")}\n`,
    );
    process.stdout.write(`reads served (GET /subscriptions/…): ${reads}, answered 429: ${throttled}\n${byRoute.join("\n")}\n`);
    process.stdout.write(`${phases(r.usage, r.ms)}\n${slowWindows(join(dir, "times-check.txt"))}`);
    const missing = [
      "sql-tde-enabled",
      "sql-tier-advisor-drift",
      "batch-quota-headroom",
      "data-residency",
      "sql-tde-customer-managed-key",
      "tde-key-validity",
      "tde-key-vault-recoverable",
    ].filter((id) => !byRule.has(id));
    if (missing.length) throw new Error(`check judged nothing for ${missing.join(", ")}: the bench would not measure what it says`);
    const checkCpu = r.usage.cpuMicros / 1000;
    process.stdout.write(
      `check CPU (the CLI process): ${(checkCpu / 1000).toFixed(2)} s, ${perRead(checkCpu, reads)}, ${((checkCpu * 1000) / DATABASES).toFixed(0)} µs/database (${((100 * r.usage.systemMicros) / r.usage.cpuMicros).toFixed(0)}% of it system time); peak RSS ${mb(r.usage.maxRssBytes)}; emulator CPU ${(c.emulatorCpu / 1000).toFixed(2)} s, ${perRead(c.emulatorCpu, reads)}\n`,
    );

    // plan beside it: the same stack, the same emulator, a full bucket again.
    await refill();
    const p = await served(emu, () => runCli(["plan", ...cli], env, dir, dir));
    if (p.result.code !== 0 && p.result.code !== 2) throw new Error(`plan exited ${p.result.code}:\n${p.result.err.slice(-2000)}`);
    const planCpu = p.result.usage.cpuMicros / 1000;
    const planFloor = throttleFloor(p.reads);
    process.stdout.write(
      `plan (same stack, as a process): wall ${(p.result.ms / 1000).toFixed(2)} s, ${(p.result.ms / planFloor).toFixed(2)}x its throttle floor (${p.reads} reads, ${p.throttled} 429s); CPU ${(planCpu / 1000).toFixed(2)} s, ${perRead(planCpu, p.reads)} (${((100 * p.result.usage.systemMicros) / p.result.usage.cpuMicros).toFixed(0)}% system); peak RSS ${mb(p.result.usage.maxRssBytes)}; emulator ${perRead(p.emulatorCpu, p.reads)}\n${phases(p.result.usage, p.result.ms)}\n`,
    );

    // The rig alone: a bare client replaying check's reads against the same emulator, unthrottled.
    const urls = readFileSync(readsFile, "utf8")
      .split("\n")
      .filter((u) => u.includes("/subscriptions/"));
    const rig = await replayReads(emu, urls, { concurrency: CONCURRENCY, throttling });
    process.stdout.write(
      `rig (bare undici replaying check's ${rig.reads} reads, throttling off): wall ${(rig.wall / 1000).toFixed(2)} s, client ${perRead(rig.clientCpu, rig.reads)}, emulator ${perRead(rig.emulatorCpu, rig.reads)}${rig.notOk ? `, ${rig.notOk} not 200` : ""}\n`,
    );
    const throttle = throttleFloor(reads);
    const floor = Math.max(throttle, rig.wall);
    process.stdout.write(
      `floor: max(throttle floor (${reads} reads - ${BUCKET}) / ${RATE}/s = ${(throttle / 1000).toFixed(2)} s, rig ${(rig.wall / 1000).toFixed(2)} s) = ${(floor / 1000).toFixed(2)} s; load average now ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}\n`,
    );
    if (throttle === 0) {
      process.stdout.write(
        `(${reads} reads fit in the bucket: no floor to compare with; give BENCH_CHECK_DATABASES above ${BUCKET / 2})\n`,
      );
      return;
    }
    reportGoal({
      figure: `check over ${DATABASES} databases (${SERVERS} servers) under ARM throttling vs max(throttle floor, rig) of its ${reads} reads`,
      value: r.ms / floor,
      limit: 1.1,
      also: [{ ok: throttled === 0, what: `${throttled} 429s` }],
    });
    reportGoal({
      figure: `check's CLI CPU per read vs plan's, same stack and run (${perRead(checkCpu, reads)} vs ${perRead(planCpu, p.reads)})`,
      value: checkCpu / reads / (planCpu / p.reads),
      limit: 1.5,
    });
    reportGoal({
      figure: `check's peak RSS at ${DATABASES} databases`,
      value: r.usage.maxRssBytes / 2 ** 20,
      limit: 1024,
      unit: " MB",
      digits: 0,
    });
  } finally {
    emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the throttle allows: (reads - bucket) / refill rate, in ms, with the bucket full at the start. */
function throttleFloor(reads: number): number {
  return (Math.max(0, reads - BUCKET) / RATE) * 1000;
}

main().catch((e: unknown) => {
  process.stderr.write(`check-throttled bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
