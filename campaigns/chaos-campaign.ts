import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { main } from "../src/interfaces/cli/main";
import type { CommandIO } from "../src/interfaces/cli/command-io";
import type { FaultConfig, FaultRule } from "../src/emulator/fault-injector";
import { loadSeedFile } from "../src/emulator/seed";
import { startEmulator, type RunningEmulator } from "../src/emulator/server";
import { LOCAL_SERVICES } from "../src/emulator/services";
import { StateStore } from "../src/emulator/state-store";
import { between, campaignEstate, intBetween, prng, stateMismatches, writeCampaignFiles, type CampaignDatabase } from "./campaign-estate";

/**
 * The fault campaign: `apply` on a 40-database stack against the emulator while it injects
 * randomized faults (429 with Retry-After, 503, dropped connections, answers cut off in their body,
 * latency spikes, scans that stall or fail) and, in some runs, restarts. A run converges when,
 * after at most MAX_APPLIES applies (an injected scan failure makes apply report it and exit 1, as
 * it must; the next apply fixes it), `plan` exits 0 and the emulator's state (in memory and as
 * loaded back from its --state directory) matches the stack. Every run is decided by its seed.
 */
export const CHAOS_DATABASES = 40;
const MAX_APPLIES = 3;

export interface ChaosRunResult {
  seed: number;
  converged: boolean;
  /** Applies it took (1 when the first converged). */
  applies: number;
  faultsInjected: number;
  restarts: number;
  ms: number;
  /** Why it did not converge, with the tail of what the CLI said. */
  failure?: string;
}

export interface ChaosOptions {
  /** First seed; run i uses seed + i. */
  seed: number;
  runs: number;
  /** Runs at once (each its own emulator). Default 4: a run mostly waits. */
  parallel?: number;
  /** Called after each run. */
  onRun?: (r: ChaosRunResult, done: number) => void;
}

/** The faults of one run, drawn from its generator. */
export function chaosFaults(rand: () => number): FaultConfig {
  const arm = "/subscriptions/";
  const rules: FaultRule[] = [];
  const stalls = intBetween(rand, 0, 3);
  if (stalls)
    rules.push({
      match: arm,
      methods: ["PUT"],
      scan: "stall",
      failAtPercent: intBetween(rand, 10, 90),
      stallMs: intBetween(rand, 100, 600),
      count: stalls,
    });
  const fails = intBetween(rand, 0, 2);
  if (fails) rules.push({ match: arm, methods: ["PUT"], scan: "fail", failAtPercent: intBetween(rand, 5, 95), count: fails });
  rules.push({ match: arm, status: 429, rate: between(rand, 0.01, 0.08), retryAfterMs: intBetween(rand, 5, 60) });
  rules.push({
    match: arm,
    status: 503,
    rate: between(rand, 0.005, 0.04),
    ...(rand() < 0.5 ? { retryAfterMs: intBetween(rand, 5, 40) } : {}),
  });
  rules.push({ match: arm, drop: true, rate: between(rand, 0, 0.02) });
  rules.push({ match: arm, truncate: true, rate: between(rand, 0, 0.02) });
  rules.push({ delayMs: intBetween(rand, 20, 150), rate: between(rand, 0, 0.05) });
  rules.push({ match: "/metadata/identity", status: 429, rate: between(rand, 0, 0.1), retryAfterMs: intBetween(rand, 5, 40) });
  return { seed: intBetween(rand, 1, 2 ** 30), latencyMs: intBetween(rand, 0, 3), maxConsecutive: 2, rules };
}

/** One run: estate, faults, apply (with a restart of the emulator in some runs), then the checks. */
export async function chaosRun(seed: number): Promise<ChaosRunResult> {
  const started = Date.now();
  const rand = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), `stackwarden-chaos-${seed}-`));
  const stateDir = join(dir, "state");
  const dbs: CampaignDatabase[] = campaignEstate(rand, CHAOS_DATABASES);
  const files = writeCampaignFiles(dir, dbs, { scanDurationMs: intBetween(rand, 20, 150) });
  const faults = chaosFaults(rand);
  const restartAt = rand() < 0.5 ? intBetween(rand, 30, 1500) : undefined;
  const restartGap = intBetween(rand, 20, 300);
  const seedDoc = loadSeedFile(files.seed, LOCAL_SERVICES);
  const quiet = () => undefined;
  let emu: RunningEmulator = await startEmulator({ seed: seedDoc, stateDir, faults, onError: quiet });
  const port = emu.port;
  let faultsInjected = 0;
  let restarts = 0;
  const log: string[] = [];
  const io = (): CommandIO => ({
    out: (l) => log.push(l),
    err: (l) => log.push(l),
    isTTY: false,
    cwd: dir,
    exitCode: 0,
    env: { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata` },
  });
  const result = (converged: boolean, applies: number, failure?: string): ChaosRunResult => ({
    seed,
    converged,
    applies,
    faultsInjected: faultsInjected + emu.faults.injectedCount,
    restarts,
    ms: Date.now() - started,
    ...(failure ? { failure: `${failure}\n${log.slice(-25).join("\n")}` } : {}),
  });
  try {
    let applies = 0;
    let code = 1;
    while (code !== 0 && applies < MAX_APPLIES) {
      applies += 1;
      const apply = main(
        ["apply", "--config", files.stack, "--yes", "--poll-interval", "50", "--scan-timeout", "60", "--concurrency", "8"],
        io(),
      );
      if (applies === 1 && restartAt !== undefined) {
        await sleep(restartAt);
        // A restart: the process's connections go, the state stays (--state), the port comes back after a gap.
        // Counted faults (the scans that stall or fail) carry over, so a restart does not hand out more of them.
        faultsInjected += emu.faults.injectedCount;
        const hits = emu.faults.ruleHitCounts;
        const remaining = {
          ...faults,
          rules: faults.rules.map((r, i) => (r.count === undefined ? r : { ...r, count: Math.max(0, r.count - hits[i]) })),
        };
        await emu.close();
        await sleep(restartGap);
        emu = await startEmulator({ seed: seedDoc, stateDir, faults: remaining, port, onError: quiet });
        restarts += 1;
      }
      code = await apply;
    }
    if (code !== 0) return result(false, applies, `apply exited ${code} after ${applies} attempt(s)`);
    const plan = await main(["plan", "--config", files.stack], io());
    if (plan !== 0) return result(false, applies, `plan exited ${plan} after apply converged`);
    await new Promise((r) => setImmediate(r)); // the journal's last turn
    const live = stateMismatches(emu.store.state, dbs);
    if (live.length) return result(false, applies, `the emulator's state differs from the stack: ${live.slice(0, 5).join("; ")}`);
    emu.store.flush();
    const loaded = StateStore.load(stateDir);
    if (!loaded) return result(false, applies, "the state directory holds no state");
    const disk = stateMismatches(loaded, dbs);
    if (disk.length)
      return result(false, applies, `the state loaded back from disk differs from the stack: ${disk.slice(0, 5).join("; ")}`);
    return result(true, applies);
  } catch (e) {
    return result(false, 0, `the run failed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    await emu.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ChaosReport {
  results: ChaosRunResult[];
  converged: number;
  failingSeeds: number[];
  ms: number;
}

/** Runs the campaign: `runs` runs from `seed`, `parallel` at a time. */
export async function runChaosCampaign(opts: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const results: ChaosRunResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < opts.runs) {
      const i = next++;
      const r = await chaosRun(opts.seed + i);
      results.push(r);
      opts.onRun?.(r, results.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 4, opts.runs)) }, worker));
  results.sort((a, b) => a.seed - b.seed);
  const failingSeeds = results.filter((r) => !r.converged).map((r) => r.seed);
  return { results, converged: results.length - failingSeeds.length, failingSeeds, ms: Date.now() - started };
}

/** The campaign's summary, a few lines. */
export function summarizeChaos(report: ChaosReport, seed: number): string {
  const n = report.results.length;
  const byApplies = new Map<number, number>();
  for (const r of report.results) if (r.converged) byApplies.set(r.applies, (byApplies.get(r.applies) ?? 0) + 1);
  const faults = report.results.reduce((s, r) => s + r.faultsInjected, 0);
  const restarts = report.results.reduce((s, r) => s + r.restarts, 0);
  return [
    `chaos: ${report.converged}/${n} converged in ${(report.ms / 1000).toFixed(1)} s (seeds ${seed}..${seed + n - 1}, ${CHAOS_DATABASES} databases each)`,
    `  applies needed: ${
      [...byApplies]
        .sort(([a], [b]) => a - b)
        .map(([k, v]) => `${k}x ${v}`)
        .join(", ") || "none"
    }; faults injected: ${faults}; emulator restarts: ${restarts}`,
    report.failingSeeds.length
      ? `  failing seeds: ${report.failingSeeds.join(", ")} (replay one with --runs 1 --seed S)`
      : "  failing seeds: none",
  ].join("\n");
}
