import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PROJECT_ROOT } from "../src/platform/version";
import { startChildEmulator } from "./bench-emulator";
import { reportGoal } from "./goal";

/**
 * `stackwarden watch --all` over BENCH_FLEET_STACKS stacks (default 50) of BENCH_FLEET_DATABASES
 * databases each (default 20), all in one subscription, for BENCH_FLEET_TICKS ticks each (default 10)
 * against the emulator in a child process with `--throttle` (the documented buckets, refill scaled
 * by BENCH_FLEET_REFILL_SCALE, default 20, to keep the run short). The stacks tick at once and
 * share the subscription's read budget through the one client set. While it runs, this process
 * reads `/api/v1/stacks` back to back (timing each) and samples the watcher's peak RSS (VmHWM).
 * Goals: zero 429s, every stack's ticks done, peak RSS under 400 MB, `/api/v1/stacks` p99 under 50 ms.
 */
const STACKS = Number(process.env.BENCH_FLEET_STACKS ?? 50);
const DATABASES = Number(process.env.BENCH_FLEET_DATABASES ?? 20);
const TICKS = Number(process.env.BENCH_FLEET_TICKS ?? 10);
const SCALE = Number(process.env.BENCH_FLEET_REFILL_SCALE ?? 20);
const SUB = "00000000-0000-0000-0000-000000000000";

function seed() {
  return {
    sql: {
      subscriptionId: SUB,
      servers: Array.from({ length: STACKS }, (_, s) => ({
        name: `sql-fleet-${s}`,
        resourceGroup: "rg-fleet",
        databases: Array.from({ length: DATABASES }, (_, d) => ({ name: `db${d}`, transparentDataEncryption: "Enabled" })),
      })),
    },
  };
}

function stackFile(s: number): string {
  const dbs = Array.from(
    { length: DATABASES },
    (_, d) => `    - { resourceGroup: rg-fleet, server: sql-fleet-${s}, database: db${d}, transparentDataEncryption: Enabled }\n`,
  );
  return `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${dbs.join("")}`;
}

function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  const emu = await startChildEmulator(seed(), ["--throttle", "--throttle-refill-scale", String(SCALE)]);
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-fleet-"));
  try {
    mkdirSync(join(dir, "stacks"));
    for (let s = 0; s < STACKS; s++) writeFileSync(join(dir, "stacks", `Pulumi.fleet-${s}.yaml`), stackFile(s));
    process.stdout.write(
      `watch --all: ${STACKS} stacks x ${DATABASES} databases, one subscription, ${TICKS} ticks each; ARM throttling (refill x ${SCALE}); emulator in a child process\n`,
    );
    const before = await emu.stats();
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        join(PROJECT_ROOT, "bin", "stackwarden.js"),
        "watch",
        "--all",
        "--interval",
        "1s",
        "--max-ticks",
        String(TICKS),
        "--listen",
        "127.0.0.1:0",
      ],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          STACKWARDEN_ARM_ENDPOINT: emu.url,
          STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    let done = false;
    void exited.then(() => (done = true));
    while (!done && !/listening on http/.test(out)) await sleep(20);
    const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    if (!url) throw new Error(`the watcher did not listen:\n${err.slice(-2000)}`);
    const latencies: number[] = [];
    let rss = 0;
    while (!done) {
      const a = performance.now();
      try {
        const res = await fetch(`${url}/api/v1/stacks`);
        await res.arrayBuffer();
        if (res.ok) latencies.push(performance.now() - a);
      } catch {
        // The watcher stops listening as it exits.
      }
      rss = Math.max(rss, peakRssMb(child.pid!));
      await sleep(20);
    }
    const code = await exited;
    const seconds = (performance.now() - t0) / 1000;
    const after = await emu.stats();
    const throttled = after.throttled - before.throttled;
    const ticks = (out.match(/\] tick \d+: \d+ drifted/g) ?? []).length;
    const failed = (out.match(/FAILED/g) ?? []).length;
    process.stdout.write(
      `watch exited ${code} after ${seconds.toFixed(1)} s: ${ticks} ticks (${failed} failed), ${after.total - before.total} requests served, ${throttled} answered 429\n`,
    );
    process.stdout.write(
      `GET /api/v1/stacks: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; watcher peak RSS ${rss.toFixed(0)} MB\n`,
    );
    const all = ticks === STACKS * TICKS && failed === 0;
    reportGoal({
      figure: `watch --all peak RSS, ${STACKS} stacks x ${DATABASES} databases, ${TICKS} ticks each`,
      value: rss,
      limit: 400,
      unit: " MB",
      digits: 0,
      also: [
        { ok: throttled === 0, what: `${throttled} 429s` },
        { ok: all, what: `${ticks} of ${STACKS * TICKS} ticks ran, ${failed} failed` },
      ],
    });
    reportGoal({
      figure: `GET /api/v1/stacks p99 during the run (${STACKS} stacks)`,
      value: percentile(latencies, 99),
      limit: 50,
      unit: " ms",
      digits: 1,
    });
  } finally {
    emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`watch-fleet bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
