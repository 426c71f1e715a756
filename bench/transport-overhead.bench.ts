import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { HttpTransport, composeRetry, silentLogger } from "../src/http";

/**
 * What `HttpTransport.json()` costs over a bare undici `Agent` + `request()`, per request.
 *
 * A small node:http server runs in a child process (so its CPU time is not counted on either
 * side) and answers a small JSON body. Both clients make the same requests one after another,
 * in interleaved rounds so that machine noise falls on both alike; each round reports wall time
 * and this process's CPU time per request. The ratio of the medians is the figure to keep
 * (goal: at most 1.2x).
 *
 * Settings (environment): BENCH_REQUESTS (per round and client, default 20 000), BENCH_ROUNDS (default 5).
 */
const N = Number(process.env.BENCH_REQUESTS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Math.min(3_000, N);

const SERVER = `
const http = require("node:http");
const body = JSON.stringify({ id: "/subscriptions/0/resourceGroups/rg/providers/X.Y/things/a", name: "a", properties: { status: "Enabled", n: 42 } });
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body), "x-ms-request-id": "00000000-0000-0000-0000-000000000000" });
    res.end(body);
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
process.on("disconnect", () => process.exit(0));
`;

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", SERVER], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, "line")) as [string];
  rl.close();
  return { url: line.trim(), child };
}

interface Sample {
  wallUs: number;
  cpuUs: number;
}

async function measure(n: number, one: () => Promise<unknown>): Promise<Sample> {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await one();
  const wallNs = Number(process.hrtime.bigint() - t0);
  const cpu = process.cpuUsage(cpu0);
  return { wallUs: wallNs / 1000 / n, cpuUs: (cpu.user + cpu.system) / n };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function main(): Promise<void> {
  const { url, child } = await startServer();
  const origin = new URL(url).origin;
  const path = "/subscriptions/0/resourceGroups/rg/providers/X.Y/things/a?api-version=2014-04-01";

  const bareAgent = new Agent({ connections: 16, keepAliveTimeout: 10_000, pipelining: 1 });
  const bare = async () => {
    const res = await request(origin + path, { dispatcher: bareAgent, method: "GET", headers: { accept: "application/json" } });
    const body = (await res.body.json()) as { name: string };
    if (res.statusCode !== 200 || body.name !== "a") throw new Error("bad response");
    return body;
  };

  // The transport as clients build it: its own retry-composed agent, a default api-version,
  // header auth and the silent logger (STACKWARDEN_LOG unset).
  const transport = new HttpTransport({
    baseUrl: url,
    query: { "api-version": "2014-04-01" },
    auth: { kind: "header", headers: { "x-apisetu-apikey": "bench-key-0000" } },
    dispatcher: composeRetry(new Agent({ connections: 16, keepAliveTimeout: 10_000, pipelining: 1 })),
    logger: silentLogger,
  });
  const viaTransport = async () => {
    const body = await transport.json<{ name: string }>({
      operation: "Things_Get",
      method: "GET",
      path: "/subscriptions/0/resourceGroups/rg/providers/X.Y/things/a",
    });
    if (body.name !== "a") throw new Error("bad response");
    return body;
  };

  await measure(WARMUP, bare);
  await measure(WARMUP, viaTransport);

  const bareRuns: Sample[] = [];
  const transportRuns: Sample[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so a drift in machine load does not favour either.
    const order =
      r % 2 === 0
        ? ([
            ["bare", bare],
            ["transport", viaTransport],
          ] as const)
        : ([
            ["transport", viaTransport],
            ["bare", bare],
          ] as const);
    for (const [name, fn] of order) {
      (globalThis as { gc?: () => void }).gc?.();
      const s = await measure(N, fn);
      (name === "bare" ? bareRuns : transportRuns).push(s);
      process.stdout.write(
        `round ${r + 1} ${name.padEnd(9)} ${s.wallUs.toFixed(1).padStart(7)} us/request wall, ${s.cpuUs.toFixed(1).padStart(7)} us/request cpu\n`,
      );
    }
  }

  const bw = median(bareRuns.map((s) => s.wallUs));
  const tw = median(transportRuns.map((s) => s.wallUs));
  const bc = median(bareRuns.map((s) => s.cpuUs));
  const tc = median(transportRuns.map((s) => s.cpuUs));
  process.stdout.write(`\n${N} sequential GETs per round, ${ROUNDS} rounds, medians:\n`);
  process.stdout.write(`bare undici Agent + request()   ${bw.toFixed(1)} us/request wall, ${bc.toFixed(1)} us/request cpu\n`);
  process.stdout.write(`HttpTransport.json()            ${tw.toFixed(1)} us/request wall, ${tc.toFixed(1)} us/request cpu\n`);
  process.stdout.write(
    `ratio (transport / bare)        ${(tw / bw).toFixed(2)}x wall, ${(tc / bc).toFixed(2)}x cpu (goal: <= 1.2x wall)\n`,
  );

  await bareAgent.close();
  child.kill();
}

main().catch((e: unknown) => {
  process.stderr.write(`transport-overhead: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
