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
import { verifyTrailText } from "../src/domain/audit/audit-chain";
import { AZURITE_ACCOUNT, AZURITE_KEY } from "../src/platform/programs/azurite-server";
import { openBlobState } from "../src/platform/state/blob/blob-state";
import { startStorageFaultProxy, type StorageFaults } from "./storage-fault-proxy";
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
/** With storage faults, applies are retried this long in all (a store down for 30 s fails every apply meanwhile). */
const STORAGE_DEADLINE_MS = 120_000;

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
  /** Storage faults injected (runs with shared state on Blob Storage). */
  storageFaults?: number;
  /** The store was down for a while during the run. */
  storeDown?: boolean;
}

export interface ChaosOptions {
  /** First seed; run i uses seed + i. */
  seed: number;
  runs: number;
  /** Runs at once (each its own emulator). Default 4: a run mostly waits. */
  parallel?: number;
  /** Called after each run. */
  onRun?: (r: ChaosRunResult, done: number) => void;
  /** Shared state on this Azurite (its account URL), behind a proxy injecting storage faults; absent: local files. */
  storage?: string;
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
export async function chaosRun(seed: number, storage?: string): Promise<ChaosRunResult> {
  const started = Date.now();
  const rand = prng(seed);
  const shared = storage ? await storageFor(seed, storage, storageRandom(seed)) : undefined;
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
    env: { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`, ...shared?.env },
  });
  const result = (converged: boolean, applies: number, failure?: string): ChaosRunResult => ({
    seed,
    converged,
    applies,
    faultsInjected: faultsInjected + emu.faults.injectedCount,
    restarts,
    ms: Date.now() - started,
    ...(failure ? { failure: `${failure}\n${log.slice(-25).join("\n")}` } : {}),
    ...(shared ? { storageFaults: shared.injected(), storeDown: !!shared.faults.down } : {}),
  });
  try {
    let applies = 0;
    let code = 1;
    const more = () => (shared ? Date.now() - started < STORAGE_DEADLINE_MS : applies < MAX_APPLIES);
    while (code !== 0 && more()) {
      // A store that is down fails an apply at once: the next one waits a little.
      if (shared && applies > 0) await sleep(2_000);
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
    const trail = shared ? await shared.trailProblem() : undefined;
    if (trail) return result(false, applies, trail);
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
    await shared?.close();
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
      const r = await chaosRun(opts.seed + i, opts.storage);
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
  const storage = report.results.filter((r) => r.storageFaults !== undefined);
  const storageLine = storage.length
    ? [
        `  shared state on Blob Storage: ${storage.reduce((s, r) => s + (r.storageFaults ?? 0), 0)} storage faults injected; the store down for 30 s in ${storage.filter((r) => r.storeDown).length} run(s); every converged run's audit chain verified`,
      ]
    : [];
  return [
    `chaos: ${report.converged}/${n} converged in ${(report.ms / 1000).toFixed(1)} s (seeds ${seed}..${seed + n - 1}, ${CHAOS_DATABASES} databases each)`,
    `  applies needed: ${
      [...byApplies]
        .sort(([a], [b]) => a - b)
        .map(([k, v]) => `${k}x ${v}`)
        .join(", ") || "none"
    }; faults injected: ${faults}; emulator restarts: ${restarts}`,
    ...storageLine,
    report.failingSeeds.length
      ? `  failing seeds: ${report.failingSeeds.join(", ")} (replay one with --runs 1 --seed S)`
      : "  failing seeds: none",
  ].join("\n");
}

/** The generator of a run's storage faults (apart from its API faults, so those stay as they were). */
export const storageRandom = (seed: number) => prng(seed ^ 0x5eed);

/** The storage faults of a run, drawn from its generator: in one run of ten the store is down for 30 s. */
export function storageFaults(rand: () => number): StorageFaults {
  return {
    errorRate: between(rand, 0.01, 0.06),
    timeoutRate: between(rand, 0, 0.02),
    renewalRefusedRate: between(rand, 0, 0.1),
    holdMs: 2_500,
    ...(rand() < 0.1 ? { down: { at: intBetween(rand, 200, 3_000), ms: 30_000 } } : {}),
  };
}

/**
 * A run's shared state: its own container on Azurite, reached through a proxy injecting storage
 * faults (500/503, requests held past the client's timeout, lease renewals refused, and in one run
 * of ten the store down for 30 s). After the run, the stack's audit chain, read straight from
 * Azurite, must verify with its last entry the converging apply's: no fork, no lost entry.
 */
async function storageFor(seed: number, accountUrl: string, rand: () => number) {
  const faults = storageFaults(rand);
  const proxy = await startStorageFaultProxy(accountUrl, faults, rand);
  const container = `chaos-${seed}`;
  const env = {
    STACKWARDEN_STATE_URL: `${proxy.accountUrl}/${container}`,
    STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
    STACKWARDEN_STATE_TIMEOUT_MS: "1500",
    STACKWARDEN_LEASE_SECONDS: "15",
  };
  return {
    faults,
    env,
    injected: () => Object.values(proxy.injected).reduce((n, v) => n + v, 0),
    close: () => proxy.close(),
    /** What is wrong with the stack's trail, read straight from Azurite; undefined when it verifies and ends with a converged apply. */
    async trailProblem(): Promise<string | undefined> {
      const direct = await openBlobState({
        serviceUrl: accountUrl,
        account: AZURITE_ACCOUNT,
        container,
        prefix: "",
        accountKey: AZURITE_KEY,
      });
      const text = await direct.audit.read("chaos");
      if (!text) return "the shared audit trail is empty";
      const verdict = verifyTrailText(text);
      if (!verdict.intact) return `the shared audit trail does not verify: ${verdict.problems.map((p) => p.message).join("; ")}`;
      const last = JSON.parse(text.trimEnd().split("\n").pop()!) as { exitCode: number };
      return last.exitCode === 0 ? undefined : `the trail's last entry is not the converging apply's (exit ${last.exitCode})`;
    },
  };
}
