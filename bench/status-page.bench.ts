import { fork, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createGunzip } from "node:zlib";
import puppeteer, { type Browser } from "puppeteer-core";
import { stackPagePath } from "../src/interfaces/watch/page/status-page";
import { DATABASES, DRIFTED, STACKS } from "./status-page-fleet";
import { reportGoal } from "./goal";

/**
 * The status page and API at fleet scale: the fleet of bench/status-page-fleet.ts (100 stacks × 100
 * databases, 1,000 drifted, by default), served by the watcher's server in a process of its own
 * (bench/status-page-server.ts), as in production.
 * Measures the overview's and a stack page's HTML (bytes), first contentful paint of each in
 * headless Chromium (Debian's /usr/bin/chromium, or STACKWARDEN_CHROMIUM), `/api/v1/stacks` under
 * 20 concurrent clients (p99; beside the same clients on /healthz, the machine's floor at that
 * moment, and on the list with If-None-Match, as pollers that keep the ETag send it), and the bytes one stack's change sends on `/api/v1/stream` against
 * the whole fleet's JSON. Goals: first paint ≤ 1 s, API p99 ≤ 50 ms, a change's frame ≤ 1/20 of the fleet.
 */
const CLIENTS = 20;
const REQUESTS = Number(process.env.BENCH_PAGE_REQUESTS ?? 400);

function get(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number; status: number; etag: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      // A gzip answer is decoded, as a client that asked for it does, and timed to its last decoded byte.
      const body = res.headers["content-encoding"] === "gzip" ? res.pipe(createGunzip()) : res;
      let bytes = 0;
      body.on("data", (c: Buffer) => (bytes += c.length));
      body.on("error", reject);
      body.on("end", () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode!, etag: String(res.headers.etag ?? "") }));
    })
      .on("error", reject)
      .end();
  });
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? NaN;
}

/** First contentful paint of `url` in a fresh page, in ms (the best of three loads). */
async function firstPaint(browser: Browser, url: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url, { waitUntil: "load" });
    // The paint entry, once the browser has painted (buffered: it may have come before this runs).
    const fcp = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const g = globalThis as unknown as {
            PerformanceObserver: new (cb: (l: { getEntries(): { name: string; startTime: number }[] }) => void) => {
              observe(o: { type: string; buffered: boolean }): void;
            };
          };
          new g.PerformanceObserver((list) => {
            const e = list.getEntries().find((x) => x.name === "first-contentful-paint");
            if (e) resolve(e.startTime);
          }).observe({ type: "paint", buffered: true });
          setTimeout(() => resolve(Number.NaN), 10_000);
        }),
    );
    times.push(fcp);
    await page.close();
  }
  return Math.min(...times);
}

/** The bytes of the stream's frames one stack's change sends to a client already following it. */
async function streamFrameBytes(base: string, change: () => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/api/v1/stream`, (res) => {
      let bytes = 0;
      let primed = false;
      res.on("data", (c: Buffer) => {
        if (primed) bytes += c.length;
      });
      // What the stream sends on connecting is not the change's; then one stack changes.
      setTimeout(() => {
        primed = true;
        void change().then(() =>
          setTimeout(() => {
            req.destroy();
            resolve(bytes);
          }, 500),
        );
      }, 500);
    });
    req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(e)));
    req.end();
  });
}

/** Starts the server process; resolves with its URL once it listens. */
function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(__dirname, "status-page-server.js"), [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  return new Promise((resolve, reject) => {
    child.once("message", (m: { url: string }) => resolve({ child, url: m.url }));
    child.once("exit", (code) => reject(new Error(`the status page's server exited (${code}) before it listened`)));
  });
}

async function main(): Promise<void> {
  const { child, url } = await startServer();
  const change = (): Promise<void> =>
    new Promise((resolve) => {
      child.once("message", () => resolve());
      child.send("change");
    });
  try {
    const overview = await get(`${url}/`);
    const stackPage = await get(`${url}${stackPagePath("stack-000")}`);
    const fleetJson = await get(`${url}/api/v1/stacks`);
    process.stdout.write(
      `${STACKS} stacks x ${DATABASES} databases, ${STACKS * DRIFTED} drifted: overview ${overview.bytes} B, a stack's page ${stackPage.bytes} B, /api/v1/stacks ${fleetJson.bytes} B\n`,
    );

    // 20 clients read a path back to back (with `headers`): its latencies.
    const load = async (path: string, headers: Record<string, string> = {}): Promise<number[]> => {
      const times: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next++ < REQUESTS) times.push((await get(`${url}${path}`, headers)).ms);
        }),
      );
      return times;
    };
    const say = (what: string, times: number[]) =>
      process.stdout.write(
        `${what}, ${CLIENTS} concurrent clients, ${times.length} requests: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms\n`,
      );
    // Browsers, fetch and Go's client ask for gzip (Accept-Encoding).
    const GZIP = { "accept-encoding": "gzip, deflate, br" };
    // Untimed, first: the server's and the clients' code paths compiled, sockets open (as on a watcher that has been up a while).
    await load("/healthz");
    await load("/api/v1/stacks", GZIP);
    await load("/api/v1/stacks");
    // The floor on this machine now: the same clients on /healthz (a few bytes), so a loaded machine's figure can be read against it.
    say("/healthz (the floor)", await load("/healthz"));
    const times = await load("/api/v1/stacks");
    say("/api/v1/stacks", times);
    const p99 = percentile(times, 99);
    // Decoded in this one process, 20 at a time, on the server's cores: the clients' own work, which
    // clients on other machines do in parallel; printed, not the goal's figure.
    say(
      `/api/v1/stacks asking for gzip (decoded: ${(await get(`${url}/api/v1/stacks`, GZIP)).bytes} B)`,
      await load("/api/v1/stacks", GZIP),
    );
    // Pollers that send the ETag they have: 304 without a body while nothing changed.
    const polled = await load("/api/v1/stacks", { ...GZIP, "if-none-match": fleetJson.etag });
    say("/api/v1/stacks with If-None-Match (304)", polled);

    const frame = await streamFrameBytes(url, change);
    process.stdout.write(`one stack's change on /api/v1/stream: ${frame} B (the fleet's JSON: ${fleetJson.bytes} B)\n`);

    const chromium = process.env.STACKWARDEN_CHROMIUM || "/usr/bin/chromium";
    let paints: { overview: number; stack: number } | undefined;
    if (existsSync(chromium)) {
      const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", ...(process.getuid?.() === 0 ? ["--no-sandbox"] : [])];
      const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args });
      try {
        paints = {
          overview: await firstPaint(browser, `${url}/`),
          stack: await firstPaint(browser, `${url}${stackPagePath("stack-000")}`),
        };
      } finally {
        await browser.close();
      }
      process.stdout.write(
        `first contentful paint at 1280 px: overview ${paints.overview.toFixed(0)} ms, a stack's page ${paints.stack.toFixed(0)} ms\n`,
      );
    } else process.stdout.write(`SKIPPED first paint: no Chromium at ${chromium}\n`);

    reportGoal({ figure: "/api/v1/stacks p99, 20 concurrent clients", value: p99, limit: 50, unit: " ms", digits: 1 });
    reportGoal({ figure: "one stack's change on the stream vs the fleet's JSON", value: frame / fleetJson.bytes, limit: 0.05, digits: 3 });
    if (paints) {
      reportGoal({ figure: "first contentful paint, overview", value: paints.overview, limit: 1000, unit: " ms", digits: 0 });
      reportGoal({ figure: "first contentful paint, a stack's page", value: paints.stack, limit: 1000, unit: " ms", digits: 0 });
    }
  } finally {
    child.send("stop");
  }
}

void main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
