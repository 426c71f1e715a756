import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { HttpTransport, composeRetry, silentLogger } from "../src/platform/http";
import { AZURE_REQUEST_IDS } from "../src/platform/arm/azure-request-ids";
import { StaticTokenCredential } from "../src/platform/auth/static-token-credential";
import { SqlClient } from "../src/services/sql/client";
import { median, reportGoal } from "./goal";

/**
 * What a request costs the client in CPU, over a bare undici `Agent` + `request()` + `JSON.parse`:
 * - `HttpTransport.json()`: the transport alone (stages, URL, request id, retry interceptor, parse);
 * - an ARM client's GET (`SqlClient.getTransparentDataEncryption`), as `plan` makes it: the
 *   transport with the bearer-token and pacing stages, the ARM id path and the response checks.
 *   This is "transport plus parsing" as the product runs it, and carries the goal (at most 1.2x).
 *
 * A small node:http server runs in a child process (so its CPU time is not counted on either
 * side) and answers a TDE configuration's JSON. The clients make the same number of requests one
 * after another, in interleaved rounds so that machine noise falls on all alike; each round
 * reports wall time and this process's CPU time per request; the ratios of the medians are the figures.
 *
 * Settings (environment): BENCH_REQUESTS (per client, default 20 000), BENCH_CHUNK (default 250).
 */
/** Requests per client in all; they are made in chunks, the clients taking turns chunk by chunk, so that load drifts fall on all alike. */
const N = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CHUNK = Number(process.env.BENCH_CHUNK ?? 250);
const WARMUP = Math.min(3_000, N);

const SERVER = `
const http = require("node:http");
const body = JSON.stringify({ id: "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/s/databases/a/transparentDataEncryption/current", name: "a", type: "Microsoft.Sql/servers/databases/transparentDataEncryption", location: "East US", properties: { status: "Enabled" } });
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

async function main(): Promise<void> {
  const { url, child } = await startServer();
  const origin = new URL(url).origin;
  const path = "/subscriptions/0/resourceGroups/rg/providers/X.Y/things/a?api-version=2014-04-01";

  const bareAgent = new Agent({ connections: 16, keepAliveTimeout: 10_000, pipelining: 1 });
  // The baseline sends the headers an ARM client sends (the transport must build them; undici must write them either way).
  const headers = {
    "user-agent": "stackwarden/0.1.0 node/v20",
    accept: "application/json",
    "x-ms-client-request-id": "6c0b3f5e-8a1d-4c3e-9f0a-2b7d4e6f8a1c",
    authorization: "Bearer bench-token-0000000000000000",
  };
  const bare = async () => {
    const res = await request(origin + path, { dispatcher: bareAgent, method: "GET", headers });
    const body = JSON.parse(await res.body.text()) as { name: string };
    if (res.statusCode !== 200 || body.name !== "a") throw new Error("bad response");
    return body;
  };
  // The lowest level undici has: a dispatcher's request() with origin and path given apart (no URL parse).
  const lowLevel = async () => {
    const res = await bareAgent.request({ origin, path, method: "GET", headers });
    const body = JSON.parse(await res.body.text()) as { name: string };
    if (res.statusCode !== 200 || body.name !== "a") throw new Error("bad response");
    return body;
  };

  // The transport as clients build it: its own retry-composed agent, a default api-version,
  // header auth and the silent logger (STACKWARDEN_LOG unset).
  const transport = new HttpTransport({
    baseUrl: url,
    query: { "api-version": "2014-04-01" },
    auth: { kind: "header", headers: { "x-apisetu-apikey": "bench-key-0000" } },
    // The clients all send and read Azure's request ids; the transport does so only when told.
    requestIds: AZURE_REQUEST_IDS,
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

  // The ARM client as plan uses it: a bearer token (static here: the server does not check it) and the default pacing stage.
  const sql = new SqlClient({
    endpoint: url,
    credential: new StaticTokenCredential("bench-token-0000000000000000"),
    dispatcher: new Agent({ connections: 16, keepAliveTimeout: 10_000, pipelining: 1 }),
    logger: silentLogger,
  });
  const db = { subscriptionId: "00000000-0000-0000-0000-000000000000", resourceGroup: "rg", server: "s", database: "a" };
  const viaArmClient = async () => {
    const body = await sql.getTransparentDataEncryption(db);
    if (body.properties?.status !== "Enabled") throw new Error("bad response");
    return body;
  };

  const clients = [
    ["bare", "bare undici request() + JSON.parse", bare],
    ["lowlevel", "Dispatcher.request() + JSON.parse", lowLevel],
    ["transport", "HttpTransport.json()", viaTransport],
    ["arm", "SqlClient GET (ARM client, as plan)", viaArmClient],
  ] as const;
  for (const [, , fn] of clients) await measure(WARMUP, fn);

  const runs = new Map<string, Sample[]>(clients.map(([k]) => [k, []]));
  const chunks = Math.max(1, Math.round(N / CHUNK));
  for (let c = 0; c < chunks; c++) {
    // Rotate which goes first, so that no client always follows another.
    for (let i = 0; i < clients.length; i++) {
      const [name, , fn] = clients[(i + c) % clients.length];
      runs.get(name)!.push(await measure(CHUNK, fn));
    }
  }
  const med = (k: string, f: (s: Sample) => number) => median(runs.get(k)!.map(f));
  process.stdout.write(`${chunks * CHUNK} sequential GETs per client, in chunks of ${CHUNK} taking turns; medians of the chunks:\n`);
  for (const [k, label] of clients) {
    process.stdout.write(
      `${label.padEnd(38)} ${med(k, (s) => s.wallUs)
        .toFixed(1)
        .padStart(6)} us/request wall, ${med(k, (s) => s.cpuUs)
        .toFixed(1)
        .padStart(6)} us/request cpu\n`,
    );
  }
  const bc = med("bare", (s) => s.cpuUs);
  const bw = med("bare", (s) => s.wallUs);
  process.stdout.write(
    `HttpTransport.json() / bare            ${(med("transport", (s) => s.wallUs) / bw).toFixed(2)}x wall, ${(med("transport", (s) => s.cpuUs) / bc).toFixed(2)}x cpu\n`,
  );
  process.stdout.write(`ARM client GET / bare                  ${(med("arm", (s) => s.wallUs) / bw).toFixed(2)}x wall\n`);
  const lc = med("lowlevel", (s) => s.cpuUs);
  process.stdout.write(
    `against the lowest level (Dispatcher.request(), no URL to parse): HttpTransport ${(med("transport", (s) => s.cpuUs) / lc).toFixed(2)}x cpu, ARM client ${(med("arm", (s) => s.cpuUs) / lc).toFixed(2)}x cpu (no goal: a reference)\n`,
  );
  reportGoal({
    figure: "transport + parsing CPU per request (ARM client GET) vs bare undici + JSON.parse",
    value: med("arm", (s) => s.cpuUs) / bc,
    limit: 1.2,
  });
  reportGoal({
    figure: "HttpTransport.json() CPU per request vs bare undici + JSON.parse",
    value: med("transport", (s) => s.cpuUs) / bc,
    limit: 1.2,
  });

  await bareAgent.close();
  child.kill();
}

main().catch((e: unknown) => {
  process.stderr.write(`transport-overhead: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
