/**
 * `plan` over 1 000 databases (10 servers x 100) against the emulator with 10 ms of latency on every
 * request, at concurrency 16 and 64. The emulator runs in a child process, so its work is not
 * charged to the client (and the two can use both cores, as a client and a service would).
 *
 * The floor, measured in the same run, round by round: a bare undici client (an Agent and
 * `request()`, the same headers, `JSON.parse` of each answer) making the same GETs at the same
 * concurrency against a bare `node:http` server (another child process) that answers the
 * emulator's own TDE JSON after the same latency. It is what an HTTP/1.1 client and server in
 * Node.js cost on this machine with nothing of ours in them. The figure is plan's wall time over
 * the floor's; goal at most 1.2x. The older floor, max(GETs x latency / concurrency, the CPU time
 * of the client or of the emulator, whichever is larger), is printed beside it for the record.
 *
 * The process is warmed up first with one whole plan and one bare run at each concurrency (JIT,
 * connections, the token, the response validators), as a long-running reconciler is; the cold
 * first plan is printed too, for what a one-shot `stackwarden plan` pays on top. Each concurrency
 * is then timed in BENCH_ROUNDS rounds (default 3), plan and floor taking turns; the medians are the figures.
 *
 * Settings (environment): BENCH_PLAN_DATABASES (default 1000), BENCH_ROUNDS (default 3).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once as onceEvent } from "node:events";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { ARM_SCOPE } from "../src/platform/auth/scopes";
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
const DATABASES = Number(process.env.BENCH_PLAN_DATABASES ?? 1000);
const PER_SERVER = 100;
const SUB = "00000000-0000-0000-0000-000000000000";

/** The floor's server: answers every request with the emulator's own body, after the same latency. */
const BARE_SERVER = `
const http = require("node:http");
const { randomUUID } = require("node:crypto");
const body = process.env.BODY;
const latency = Number(process.env.LATENCY_MS);
const server = http.createServer((req, res) => {
  if (req.url === "/__cpu") { const u = process.cpuUsage(); return res.end(String(u.user + u.system)); }
  setTimeout(() => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "x-ms-request-id": randomUUID() });
    res.end(body);
  }, latency);
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
process.on("disconnect", () => process.exit(0));
`;

async function startBareServer(body: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", BARE_SERVER], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
    env: { ...process.env, BODY: body, LATENCY_MS: String(LATENCY_MS) },
  });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await onceEvent(rl, "line")) as [string];
  rl.close();
  return { url: line.trim(), child };
}

interface Run {
  wall: number;
  gets: number;
  clientCpu: number;
  emulatorCpu: number;
  changes: number;
}

/** What one bare-client run took: wall time and this process's CPU time (ms). */
interface BareRun {
  wall: number;
  clientCpu: number;
  serverCpu: number;
}

async function main(): Promise<void> {
  const servers = sqlEstate(Math.ceil(DATABASES / PER_SERVER), PER_SERVER);
  const emu = await startChildEmulator({ sql: { subscriptionId: SUB, servers } }, ["--latency", String(LATENCY_MS)]);
  let bare: { url: string; child: ChildProcess } | undefined;
  try {
    const credential = new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` });
    const sql = new SqlClient({ endpoint: emu.url, credential });
    const stack: StackConfig = {
      file: "bench",
      subscriptionId: SUB,
      elasticPools: [],
      exemptions: [],
      policies: resolveRuleSettings(undefined),
      batch: { locations: [], workspaces: [] },
      databases: servers
        .flatMap((s) =>
          s.databases.map((d) => ({
            resourceGroup: s.resourceGroup,
            server: s.name,
            database: d.name,
            transparentDataEncryption: "Enabled" as const,
          })),
        )
        .slice(0, DATABASES),
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

    // The floor: the same GETs, with the headers an ARM client sends, answered by a bare server with the emulator's own body.
    const token = (await credential.getToken(ARM_SCOPE)).token;
    const paths = stack.databases.map(
      (d) =>
        `/subscriptions/${SUB}/resourceGroups/${d.resourceGroup}/providers/Microsoft.Sql/servers/${d.server}/databases/${d.database}/transparentDataEncryption/current?api-version=2014-04-01`,
    );
    const headers = () => ({
      "user-agent": "stackwarden-bench node",
      accept: "application/json",
      authorization: `Bearer ${token}`,
      "x-ms-client-request-id": randomUUID(),
    });
    const sample = await request(emu.url + paths[0], { headers: headers() });
    const body = await sample.body.text();
    if (sample.statusCode !== 200) throw new Error(`the emulator answered ${sample.statusCode}: ${body}`);
    bare = await startBareServer(body);
    const bareOrigin = bare.url;
    const serverCpu = async () => Number(await (await fetch(`${bareOrigin}/__cpu`)).text()) / 1000;
    const agent = new Agent({ keepAliveTimeout: 30_000 });
    const bareOnce = async (concurrency: number): Promise<BareRun> => {
      const s0 = await serverCpu();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < paths.length) {
          const res = await request(bareOrigin + paths[next++], { dispatcher: agent, headers: headers() });
          const doc = JSON.parse(await res.body.text()) as { properties?: unknown };
          if (res.statusCode !== 200 || !doc.properties) throw new Error(`the bare server answered ${res.statusCode}`);
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      return { wall, clientCpu: (cpu.user + cpu.system) / 1000, serverCpu: (await serverCpu()) - s0 };
    };

    const describe = (r: Run, concurrency: number) => {
      const latencyFloor = (r.gets * LATENCY_MS) / concurrency;
      const cpuFloor = Math.max(r.clientCpu, r.emulatorCpu);
      return { latencyFloor, cpuFloor, floor: Math.max(latencyFloor, cpuFloor) };
    };
    process.stdout.write(
      `${stack.databases.length} databases, ${LATENCY_MS} ms latency per request (emulator and bare server in child processes)\n`,
    );
    const cold = await once(16);
    const cf = describe(cold, 16);
    process.stdout.write(
      `cold (the first plan of the process, concurrency 16): wall ${cold.wall.toFixed(0)} ms, client CPU ${cold.clientCpu.toFixed(0)} ms, emulator CPU ${cold.emulatorCpu.toFixed(0)} ms; ${(cold.wall / cf.floor).toFixed(2)}x max(latency, CPU) (not the figure: JIT and first connections)\n`,
    );
    for (const c of CONCURRENCIES) {
      await once(c);
      await bareOnce(c);
    }
    const runs = new Map<number, Run[]>(CONCURRENCIES.map((c) => [c, []]));
    const bareRuns = new Map<number, BareRun[]>(CONCURRENCIES.map((c) => [c, []]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const c of r % 2 ? [...CONCURRENCIES].reverse() : CONCURRENCIES) {
        // Plan and floor take turns, the order alternating with the rounds.
        if (r % 2) {
          bareRuns.get(c)!.push(await bareOnce(c));
          runs.get(c)!.push(await once(c));
        } else {
          runs.get(c)!.push(await once(c));
          bareRuns.get(c)!.push(await bareOnce(c));
        }
      }
    }
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
      const bs = bareRuns.get(c)!;
      const floor = median(bs.map((b) => b.wall));
      const f = describe(run, c);
      process.stdout.write(
        `concurrency ${String(c).padStart(3)}: ${run.gets} GETs, ${run.changes} changes, wall ${run.wall.toFixed(0)} ms (client CPU ${run.clientCpu.toFixed(0)} ms, emulator CPU ${run.emulatorCpu.toFixed(0)} ms)\n` +
          `                 bare undici against bare node:http, ${paths.length} GETs: wall ${floor.toFixed(0)} ms (client CPU ${median(bs.map((b) => b.clientCpu)).toFixed(0)} ms, server CPU ${median(bs.map((b) => b.serverCpu)).toFixed(0)} ms)\n` +
          `                 for the record: ${(run.wall / f.floor).toFixed(2)}x max(latency floor ${f.latencyFloor.toFixed(0)} ms, CPU floor ${f.cpuFloor.toFixed(0)} ms)\n`,
      );
      reportGoal({
        figure: `plan over ${stack.databases.length} databases at concurrency ${c} vs bare undici against bare node:http (${floor.toFixed(0)} ms)`,
        value: run.wall / floor,
        limit: 1.2,
      });
    }
    await agent.close();
  } finally {
    emu.close();
    bare?.child.kill();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`plan-1000 bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
