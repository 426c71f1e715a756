/**
 * Batch AI inventory at scale: 5 workspaces × 10 experiments × 200 jobs (10 000 jobs), page size
 * 20 (as ARM lists are paged in the done-when scenario), concurrency 8, with 10 ms and then 25 ms of latency on every request.
 *
 * Two processes, so that the memory figure is the client's alone: this process runs the emulator
 * (and counts requests), and a child process (this same file with `--child`) runs
 * `collectBatchInventory` and reports its wall time and peak RSS (`process.resourceUsage().maxRSS`).
 * The emulator's CPU work therefore does not slow the client down either, as with a real service.
 *
 * The floor is a lower bound on the wall time that no scheduler could beat at this latency and
 * concurrency (see `floorOf`); the ratio is wall ÷ floor. The floor ignores CPU, so a second ratio
 * uses max(floor, the inventory process's own CPU time measured in the same run): at a few ms per
 * request, parsing ~11 MB of jobs on one thread can take longer than the network floor.
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { startEmulator } from "../src/emulator/server";
import type { SeedDocument } from "../src/emulator/seed";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { ARM_SCOPE } from "../src/platform/auth/scopes";
import { BatchAiClient, prepareBatchAiValidators } from "../src/services/batchai/client";
import { collectBatchInventory } from "../src/domain/inventory/batch-inventory";
import { reportGoal } from "./goal";

const WORKSPACES = 5;
const EXPERIMENTS = 10;
const JOBS = 200;
const CLUSTERS = 2;
const FILE_SERVERS = 1;
const LOCATIONS = ["eastus", "westus2"];
const PAGE_SIZE = 20;
/** 10 ms as the SQL plan bench; 25 ms is still below what ARM lists take, and shows the schedule once the network dominates. */
const LATENCIES_MS = [10, 25];
const CONCURRENCY = 8;
const RSS_GOAL_MB = 200;
const RATIO_GOAL = 1.3;
const SUBSCRIPTION = "00000000-0000-0000-0000-000000000000";

interface ChildReport {
  wallMs: number;
  peakRssMb: number;
  heapUsedMb: number;
  validatorCompileMs: number;
  cpuMs: number;
  counts: Record<string, number>;
  operations: number;
  /** The pages of the warm-up Operations_List. */
  warmUpRequests: number;
}

if (process.argv.includes("--child")) {
  child().catch((e: unknown) => {
    process.stderr.write(`inventory child failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
} else {
  parent().catch((e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}

async function parent(): Promise<void> {
  const seed: SeedDocument = {
    batchai: {
      generate: {
        workspaces: WORKSPACES,
        experimentsPerWorkspace: EXPERIMENTS,
        jobsPerExperiment: JOBS,
        clustersPerWorkspace: CLUSTERS,
        fileServersPerWorkspace: FILE_SERVERS,
        resourceGroups: ["rg-bench-a", "rg-bench-b"],
      },
      usages: LOCATIONS.map((location) => ({
        location,
        usages: [
          { name: "cores", currentValue: 40, limit: 100 },
          { name: "clusters", currentValue: 10, limit: 20 },
        ],
      })),
    },
  };
  process.stdout.write(
    `estate            ${WORKSPACES} workspaces × ${EXPERIMENTS} experiments × ${JOBS} jobs = ${WORKSPACES * EXPERIMENTS * JOBS} jobs (~1.1 kB each); page size ${PAGE_SIZE}; concurrency ${CONCURRENCY}\n`,
  );
  process.stdout.write(
    `floor             latency × max(critical path, ⌈all requests / concurrency⌉, discovery pages + ⌈dependent requests / concurrency⌉):\n`,
  );
  process.stdout.write(
    `                  the critical path is the workspace list, then one workspace's experiment list, then that experiment's job pages (nextLink makes them sequential);\n`,
  );
  process.stdout.write(
    `                  nothing under a workspace can start before the workspace list ends, and at most ${CONCURRENCY} requests are in flight.\n`,
  );
  process.stdout.write(
    `cpu floor         max(floor, the inventory process's own CPU time): one thread cannot finish before its own work (parsing ~11 MB of JSON) is done.\n`,
  );
  for (const latencyMs of LATENCIES_MS) await scenario(seed, latencyMs);
}

async function scenario(seed: SeedDocument, latencyMs: number): Promise<void> {
  const emu = await startEmulator({
    seed,
    settings: { pageSize: PAGE_SIZE },
    faults: { latencyMs },
    onError: (l) => process.stderr.write(`${l}\n`),
  });
  try {
    // This process only serves (the inventory runs in the child): its CPU time is the emulator's.
    const emuCpu0 = process.cpuUsage();
    const report = await runChild(emu.url);
    const emuCpu = process.cpuUsage(emuCpu0);
    const emulatorCpuMs = (emuCpu.user + emuCpu.system) / 1000;
    const armRequests =
      Object.entries(emu.stats.byRoute)
        .filter(([route]) => !route.startsWith("GET /metadata/"))
        .reduce((n, [, c]) => n + c, 0) - report.warmUpRequests; // the child's warm-up listing (Operations_List) is not part of the inventory
    const expected = {
      workspaces: WORKSPACES,
      experiments: WORKSPACES * EXPERIMENTS,
      jobs: WORKSPACES * EXPERIMENTS * JOBS,
      clusters: WORKSPACES * CLUSTERS,
      fileServers: WORKSPACES * FILE_SERVERS,
    };
    for (const [k, n] of Object.entries(expected)) {
      if (report.counts[k] !== n) throw new Error(`the inventory has ${report.counts[k]} ${k}, expected ${n}`);
    }
    const floor = floorOf(report.operations, latencyMs);
    if (floor.requests !== armRequests) {
      process.stdout.write(
        `note: the emulator counted ${armRequests} ARM requests, the page model ${floor.requests} (retries or extra pages?)\n`,
      );
    }
    const cpuFloor = Math.max(floor.ms, report.cpuMs, emulatorCpuMs);
    const lines = [
      ``,
      `-- latency ${latencyMs} ms per request`,
      `requests          ${armRequests} ARM requests (emulator stats; the token request and the warm-up listing excluded)`,
      `peak RSS          ${report.peakRssMb.toFixed(1)} MB of the inventory process (heap used at the end ${report.heapUsedMb.toFixed(1)} MB); goal < ${RSS_GOAL_MB} MB: ${report.peakRssMb < RSS_GOAL_MB ? "met" : "MISSED"}`,
      `wall              ${report.wallMs.toFixed(1)} ms (its CPU time ${report.cpuMs.toFixed(1)} ms; validators compiled beforehand in ${report.validatorCompileMs.toFixed(1)} ms, a one-off start-up cost left out)`,
      `floor             ${floor.ms.toFixed(1)} ms = ${latencyMs} ms × max(${floor.criticalPath}, ⌈${floor.requests} / ${CONCURRENCY}⌉ = ${Math.ceil(floor.requests / CONCURRENCY)}, ${floor.discovery} + ⌈${floor.dependent} / ${CONCURRENCY}⌉ = ${floor.phased})`,
      `ratio             ${(report.wallMs / floor.ms).toFixed(2)} × the latency floor`,
      `cpu floor         ${cpuFloor.toFixed(1)} ms = max(floor, the inventory's CPU ${report.cpuMs.toFixed(1)} ms, the emulator's CPU ${emulatorCpuMs.toFixed(1)} ms, its spawn of the child included)`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    reportGoal({
      figure: `Batch AI inventory, ${latencyMs} ms latency, vs max(latency floor, CPU floor)`,
      value: report.wallMs / cpuFloor,
      limit: RATIO_GOAL,
    });
    reportGoal({
      figure: `Batch AI inventory peak RSS, ${latencyMs} ms latency`,
      value: report.peakRssMb,
      limit: RSS_GOAL_MB,
      unit: " MB",
      digits: 1,
    });
  } finally {
    await emu.close();
  }
}

/**
 * The floor: a lower bound on the wall time, in requests × latency, from the shape of the estate.
 * - Every list is a chain of pages (ceil(items / page size), at least one), fetched one after another.
 * - Critical path: workspace pages, then the longest (experiment pages + job pages of one experiment).
 * - Throughput: all requests ÷ concurrency.
 * - Phases: nothing under a workspace can start before the workspace list ends, so those requests
 *   fit in (concurrency) slots only after it: discovery pages + dependent requests ÷ concurrency.
 * The largest of the three is the floor.
 */
function floorOf(operations: number, latencyMs: number) {
  const pages = (n: number) => Math.max(1, Math.ceil(n / PAGE_SIZE));
  const discovery = pages(WORKSPACES);
  const perWorkspace = pages(EXPERIMENTS) + pages(CLUSTERS) + pages(FILE_SERVERS) + EXPERIMENTS * pages(JOBS);
  const dependent = WORKSPACES * perWorkspace;
  const independent = pages(operations) + LOCATIONS.length;
  const requests = discovery + dependent + independent;
  const criticalPath = discovery + pages(EXPERIMENTS) + pages(JOBS);
  const phased = discovery + Math.ceil(dependent / CONCURRENCY);
  const throughput = Math.ceil(requests / CONCURRENCY);
  const bound = Math.max(criticalPath, throughput, phased);
  return { requests, criticalPath, discovery, dependent, phased, ms: bound * latencyMs };
}

function runChild(url: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    // BENCH_CHILD_PROF=DIR writes a CPU profile of the inventory process there.
    const prof = process.env.BENCH_CHILD_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CHILD_PROF}`] : [];
    const proc = spawn(process.execPath, [...prof, __filename, "--child"], {
      env: { ...process.env, BENCH_EMULATOR_URL: url, STACKWARDEN_LOG: "" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (d: string) => {
      out += d;
    });
    proc.on("error", reject);
    proc.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`the inventory child exited with code ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop() ?? "") as ChildReport);
      } catch {
        reject(new Error(`the inventory child printed no report: ${out.slice(0, 200)}`));
      }
    });
  });
}

async function child(): Promise<void> {
  const url = process.env.BENCH_EMULATOR_URL;
  if (!url) throw new Error("BENCH_EMULATOR_URL is not set");
  const credential = new ImdsManagedIdentityCredential({ endpoint: `${url}/metadata` });
  const client = new BatchAiClient({ endpoint: url, credential });
  // Warm-up outside the timing: the token, a connection, and the response validators, as a
  // long-running process would have them.
  await credential.getToken(ARM_SCOPE);
  const compileStart = performance.now();
  prepareBatchAiValidators();
  const validatorCompileMs = performance.now() - compileStart;
  let operations = 0,
    warmUpRequests = 0;
  for await (const page of client.operationPages()) {
    operations += page.length;
    warmUpRequests += 1;
  }

  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const inv = await collectBatchInventory(client, { subscriptionId: SUBSCRIPTION, locations: LOCATIONS }, { concurrency: CONCURRENCY });
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);

  const report: ChildReport = {
    wallMs,
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / 2 ** 20,
    heapUsedMb: process.memoryUsage().heapUsed / 2 ** 20,
    validatorCompileMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    counts: Object.fromEntries(
      Object.entries(inv)
        .filter(([, v]) => Array.isArray(v))
        .map(([k, v]) => [k, (v as unknown[]).length]),
    ),
    operations,
    warmUpRequests,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
