/**
 * `plan` over 1 000 databases (10 servers x 100) against the emulator with 10 ms of latency on every
 * request, at concurrency 16 and 64. The emulator runs in a child process, so its work is not
 * charged to the client (and the two can use both cores, as a client and a service would).
 *
 * Two floors, both measured or derived in the same run; no client can finish sooner than either:
 * - the latency floor: GETs x latency / concurrency;
 * - the CPU floor: the CPU time the client used for the plan, and the CPU time the emulator used
 *   to answer it (its own count, `GET /_emulator/stats` cpuMicros), whichever is larger (each is
 *   one thread's work; on a loaded machine it is what a process gets that sets the pace).
 * The figure is wall / max(latency floor, CPU floor); goal at most 1.3x.
 *
 * The process is warmed up first with one whole plan at each concurrency (JIT, connections, the
 * token, the response validators), as a long-running reconciler is; the cold first plan is printed
 * too, for what a one-shot `stackwarden plan` pays on top. Each concurrency is then timed in
 * BENCH_ROUNDS rounds (default 3), taking turns; the medians are the figures.
 */
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { resolveRuleSettings } from "../src/domain/compliance/rule-settings";
import type { StackConfig } from "../src/domain/stack/stack-config";
import { planTde } from "../src/domain/reconcile/tde-plan";
import { SqlClient } from "../src/services/sql/client";
import { sqlEstate, startChildEmulator } from "./bench-emulator";
import { median, reportGoal } from "./goal";

const LATENCY_MS = 10;
const CONCURRENCIES = [16, 64];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SUB = "00000000-0000-0000-0000-000000000000";

interface Run {
  wall: number;
  gets: number;
  clientCpu: number;
  emulatorCpu: number;
  changes: number;
}

async function main(): Promise<void> {
  const servers = sqlEstate(10, 100);
  const emu = await startChildEmulator({ sql: { subscriptionId: SUB, servers } }, ["--latency", String(LATENCY_MS)]);
  try {
    const sql = new SqlClient({ endpoint: emu.url, credential: new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` }) });
    const stack: StackConfig = {
      file: "bench",
      subscriptionId: SUB,
      elasticPools: [],
      exemptions: [],
      policies: resolveRuleSettings(undefined),
      batch: { locations: [], workspaces: [] },
      databases: servers.flatMap((s) =>
        s.databases.map((d) => ({
          resourceGroup: s.resourceGroup,
          server: s.name,
          database: d.name,
          transparentDataEncryption: "Enabled" as const,
        })),
      ),
    };
    const once = async (concurrency: number): Promise<Run> => {
      const before = await emu.stats();
      const gets0 = await emu.gets();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const plan = await planTde(sql, stack, { concurrency });
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      const after = await emu.stats();
      return {
        wall,
        gets: (await emu.gets()) - gets0,
        clientCpu: (cpu.user + cpu.system) / 1000,
        emulatorCpu: (after.cpuMicros - before.cpuMicros) / 1000,
        changes: plan.changes.length,
      };
    };
    const describe = (r: Run, concurrency: number) => {
      const latencyFloor = (r.gets * LATENCY_MS) / concurrency;
      const cpuFloor = Math.max(r.clientCpu, r.emulatorCpu);
      return { latencyFloor, cpuFloor, floor: Math.max(latencyFloor, cpuFloor) };
    };
    process.stdout.write(`${stack.databases.length} databases, ${LATENCY_MS} ms latency per request (emulator in a child process)\n`);
    const cold = await once(16);
    const cf = describe(cold, 16);
    process.stdout.write(
      `cold (the first plan of the process, concurrency 16): wall ${cold.wall.toFixed(0)} ms, client CPU ${cold.clientCpu.toFixed(0)} ms, emulator CPU ${cold.emulatorCpu.toFixed(0)} ms; ${(cold.wall / cf.floor).toFixed(2)}x its floor (not the figure: JIT and first connections)\n`,
    );
    await once(64);
    const runs = new Map<number, Run[]>(CONCURRENCIES.map((c) => [c, []]));
    for (let r = 0; r < ROUNDS; r++) for (const c of r % 2 ? [...CONCURRENCIES].reverse() : CONCURRENCIES) runs.get(c)!.push(await once(c));
    for (const c of CONCURRENCIES) {
      const rs = runs.get(c)!;
      const m = (f: (r: Run) => number) => median(rs.map(f));
      const run: Run = {
        wall: m((r) => r.wall),
        gets: m((r) => r.gets),
        clientCpu: m((r) => r.clientCpu),
        emulatorCpu: m((r) => r.emulatorCpu),
        changes: rs[0].changes,
      };
      const f = describe(run, c);
      process.stdout.write(
        `concurrency ${String(c).padStart(3)}: ${run.gets} GETs, ${run.changes} changes, wall ${run.wall.toFixed(0)} ms; latency floor ${f.latencyFloor.toFixed(0)} ms (GETs x latency / concurrency), CPU floor ${f.cpuFloor.toFixed(0)} ms (client ${run.clientCpu.toFixed(0)} ms, emulator ${run.emulatorCpu.toFixed(0)} ms)\n`,
      );
      reportGoal({
        figure: `plan over 1000 databases at concurrency ${c} vs max(latency floor, CPU floor) (${f.latencyFloor >= f.cpuFloor ? "latency" : "CPU"} floor ${f.floor.toFixed(0)} ms)`,
        value: run.wall / f.floor,
        limit: 1.3,
      });
    }
  } finally {
    emu.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`plan-1000 bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
