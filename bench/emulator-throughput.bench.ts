/**
 * The emulator's requests per second against a bare `node:http` server answering the same JSON, on
 * the same machine, in the same run. Each server runs in a child process of its own; this process
 * is the load: 32 requests in flight over keep-alive connections, for a fixed time per round, the
 * rounds alternating so that machine noise falls on both alike. The request is the one `plan` makes
 * most: TransparentDataEncryptions_Get, with its bearer token and api-version; the bare server
 * answers the emulator's own answer body, byte for byte, with the same content type. The figure is
 * the ratio of the median rates (goal: at least 0.5).
 *
 * Settings (environment): BENCH_SECONDS per round (default 3), BENCH_ROUNDS (default 4), BENCH_INFLIGHT (default 32).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { ARM_SCOPE } from "../src/platform/auth/scopes";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { sqlEstate, startChildEmulator } from "./bench-emulator";
import { median, reportGoal } from "./goal";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const INFLIGHT = Number(process.env.BENCH_INFLIGHT ?? 32);
const SUB = "00000000-0000-0000-0000-000000000000";

const BARE = `
const http = require("node:http");
const { randomUUID } = require("node:crypto");
const body = process.env.BODY;
const server = http.createServer((req, res) => {
  if (req.url === "/__cpu") { const u = process.cpuUsage(); return res.end(String(u.user + u.system)); }
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "x-ms-request-id": randomUUID() });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
process.on("disconnect", () => process.exit(0));
`;

async function startBare(body: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", BARE], { stdio: ["ignore", "pipe", "inherit", "ipc"], env: { ...process.env, BODY: body } });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, "line")) as [string];
  rl.close();
  return { url: line.trim(), child };
}

/** The server's CPU time so far, in microseconds. */
async function serverCpu(which: "bare" | "emulator", url: string): Promise<number> {
  if (which === "bare") return Number(await (await fetch(`${url}/__cpu`)).text());
  return ((await (await fetch(`${url}/_emulator/stats`)).json()) as { cpuMicros: number }).cpuMicros;
}

/** Requests per second for `seconds`, `INFLIGHT` at a time, and how many were made. */
async function load(
  origin: string,
  path: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<{ rate: number; done: number }> {
  const agent = new Agent({ connections: INFLIGHT, pipelining: 1, keepAliveTimeout: 30_000 });
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const res = await request(origin + path, { dispatcher: agent, headers });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode}`);
      done += 1;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: INFLIGHT }, worker));
  const rate = done / ((performance.now() - t0) / 1000);
  await agent.close();
  return { rate, done };
}

async function main(): Promise<void> {
  const emu = await startChildEmulator({ sql: { subscriptionId: SUB, servers: sqlEstate(10, 100) } });
  let bare: { url: string; child: ChildProcess } | undefined;
  try {
    const token = (await new ImdsManagedIdentityCredential({ endpoint: `${emu.url}/metadata` }).getToken(ARM_SCOPE)).token;
    const path = `/subscriptions/${SUB}/resourceGroups/rg-bench/providers/Microsoft.Sql/servers/sql-bench-3/databases/db42/transparentDataEncryption/current?api-version=2014-04-01`;
    const headers = {
      authorization: `Bearer ${token}`,
      accept: "application/json",
      "x-ms-client-request-id": "00000000-0000-0000-0000-000000000001",
    };
    const first = await request(emu.url + path, { headers });
    const body = await first.body.text();
    if (first.statusCode !== 200) throw new Error(`the emulator answered ${first.statusCode}: ${body}`);
    bare = await startBare(body);
    // Warm-up of both (JIT, connections, and the emulator's start-up garbage promoted or collected).
    await load(emu.url, path, headers, 3);
    await load(bare.url, path, headers, 3);
    const rates: Record<"bare" | "emulator", number[]> = { bare: [], emulator: [] };
    const cpu: Record<"bare" | "emulator", number[]> = { bare: [], emulator: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order: ("bare" | "emulator")[] = r % 2 === 0 ? ["bare", "emulator"] : ["emulator", "bare"];
      for (const which of order) {
        const url = which === "bare" ? bare.url : emu.url;
        const cpu0 = await serverCpu(which, url);
        const { rate, done } = await load(url, path, headers, SECONDS);
        const perRequest = ((await serverCpu(which, url)) - cpu0) / done;
        rates[which].push(rate);
        cpu[which].push(perRequest);
        process.stdout.write(
          `round ${r + 1} ${which.padEnd(8)} ${rate.toFixed(0).padStart(6)} requests/s, server CPU ${perRequest.toFixed(1).padStart(5)} us/request\n`,
        );
      }
    }
    const b = median(rates.bare);
    const e = median(rates.emulator);
    process.stdout.write(`\nTransparentDataEncryptions_Get (${body.length} bytes), ${INFLIGHT} in flight, ${SECONDS} s rounds, medians:\n`);
    process.stdout.write(`bare node:http server   ${b.toFixed(0)} requests/s, ${median(cpu.bare).toFixed(1)} us CPU/request\n`);
    process.stdout.write(`emulator                ${e.toFixed(0)} requests/s, ${median(cpu.emulator).toFixed(1)} us CPU/request\n`);
    process.stdout.write(
      `CPU per request         ${(median(cpu.emulator) / median(cpu.bare)).toFixed(2)}x the bare server's (the rate also depends on the load generator, which shares the cores)\n`,
    );
    reportGoal({ figure: "emulator requests/s vs a bare node:http server, same JSON", value: e / b, limit: 0.5, kind: "min" });
  } finally {
    emu.close();
    bare?.child.kill();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`emulator-throughput bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
