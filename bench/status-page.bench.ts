import { request } from "node:http";
import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";
import { evaluateCompliance } from "../src/domain/compliance/evaluate";
import { resolveRuleSettings } from "../src/domain/compliance/rule-settings";
import { emptyFacts } from "../src/domain/facts/gather";
import { decideAction, type TdePlanItem } from "../src/domain/reconcile/tde-plan";
import { parseStackConfig } from "../src/domain/stack/stack-config";
import { stackPagePath } from "../src/interfaces/watch/page/status-page";
import { StatusBoard } from "../src/interfaces/watch/status/status-board";
import { conditionOf, driftOf, findingsOf } from "../src/interfaces/watch/status/status-parts";
import { startWatchServer } from "../src/interfaces/watch/watch-server";
import { inventoryOf } from "../src/interfaces/watch/status/database-inventory";
import { databasesRead, withCompliance } from "../src/usecases/watch-inventory";
import { sqlDatabaseId } from "../src/platform/arm/resource-id";
import { reportGoal } from "./goal";

/**
 * The status page and API at fleet scale: BENCH_PAGE_STACKS stacks (default 100) of
 * BENCH_PAGE_DATABASES databases each (default 100), BENCH_PAGE_DRIFTED of each drifted (default 10:
 * 1,000 in all), each drifted database a change a person made (a caller, a time, an operation).
 * Measures the overview's and a stack page's HTML (bytes), first contentful paint of each in
 * headless Chromium (Debian's /usr/bin/chromium, or STACKWARDEN_CHROMIUM), `/api/v1/stacks` under
 * 20 concurrent clients (p99; beside the same clients on /healthz, the machine's floor at that
 * moment, and on the list with If-None-Match, as pollers that keep the ETag send it), and the bytes one stack's change sends on `/api/v1/stream` against
 * the whole fleet's JSON. Goals: first paint ≤ 1 s, API p99 ≤ 50 ms, a change's frame ≤ 1/20 of the fleet.
 */
const STACKS = Number(process.env.BENCH_PAGE_STACKS ?? 100);
const DATABASES = Number(process.env.BENCH_PAGE_DATABASES ?? 100);
const DRIFTED = Number(process.env.BENCH_PAGE_DRIFTED ?? 10);
const CLIENTS = 20;
const REQUESTS = Number(process.env.BENCH_PAGE_REQUESTS ?? 400);
const SUB = "00000000-0000-0000-0000-000000000000";

function feedStack(board: StatusBoard, s: number, at: Date): void {
  const name = `stack-${String(s).padStart(3, "0")}`;
  const text = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${Array.from(
    { length: DATABASES },
    (_, d) => `    - { resourceGroup: rg-${s}, server: sql-${s}, database: db-${d}, transparentDataEncryption: Enabled }\n`,
  ).join("")}`;
  const stack = parseStackConfig(`stacks/Pulumi.${name}.yaml`, text, {});
  const plan: TdePlanItem[] = stack.databases.map((desired, d) => {
    const ref = { subscriptionId: SUB, resourceGroup: desired.resourceGroup, server: desired.server, database: desired.database };
    const live = d < DRIFTED ? "Disabled" : "Enabled";
    const cause =
      d < DRIFTED
        ? {
            caller: `person-${d}@contoso.com`,
            at: new Date(at.getTime() - 60_000 * (d + 1)).toISOString(),
            operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
            source: "activity-log" as const,
            correlationId: `00000000-0000-0000-0000-${String(s * 1000 + d).padStart(12, "0")}`,
          }
        : undefined;
    return {
      desired,
      ref,
      id: sqlDatabaseId(ref),
      live,
      action: decideAction(live, desired.transparentDataEncryption),
      ...(cause ? { cause } : {}),
    };
  });
  const facts = {
    ...emptyFacts(SUB),
    databases: plan.map((p) => ({ id: p.id, ...p.ref, liveTdeStatus: p.live, source: p.desired.source })),
  };
  const result = evaluateCompliance(facts, resolveRuleSettings({}), [], at.getTime());
  const drift = driftOf(plan, at);
  const findings = findingsOf(result.findings, at);
  const lastTick = {
    number: 1,
    commit: null,
    commitSubject: null,
    outcome: "succeeded" as const,
    error: null,
    errorCode: null,
    startedAt: new Date(at.getTime() - 1000).toISOString(),
    finishedAt: at.toISOString(),
    durationMs: 1000,
    consecutiveFailures: 0,
  };
  const deployment = { state: "none" as const, applying: null, commit: null, last: null, lastApply: null };
  board.register(name, { file: stack.file, schedule: "every 1h" });
  // The stack's databases, as the watcher keeps them for its page's filter and pager.
  const read = databasesRead({ stack, facts, items: plan, remaining: plan.filter((p) => p.action !== "none") });
  board.keepDatabases(name, inventoryOf(withCompliance(read, result.findings), at.toISOString()));
  board.update(name, { drift, findings, lastTick, condition: conditionOf({ deployment, lastTick, drift, findings }) });
}

function get(url: string, headers: Record<string, string> = {}): Promise<{ ms: number; bytes: number; status: number; etag: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let bytes = 0;
      res.on("data", (c: Buffer) => (bytes += c.length));
      res.on("end", () => resolve({ ms: performance.now() - t0, bytes, status: res.statusCode!, etag: String(res.headers.etag ?? "") }));
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
async function streamFrameBytes(base: string, change: () => void): Promise<number> {
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
        change();
        setTimeout(() => {
          req.destroy();
          resolve(bytes);
        }, 500);
      }, 500);
    });
    req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : reject(e)));
    req.end();
  });
}

async function main(): Promise<void> {
  const board = new StatusBoard();
  const at = new Date();
  for (let s = 0; s < STACKS; s++) feedStack(board, s, at);
  const server = await startWatchServer({
    host: "127.0.0.1",
    port: 0,
    status: board,
    readiness: () => ({ ready: true, reason: "bench" }),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
  });
  try {
    const overview = await get(`${server.url}/`);
    const stackPage = await get(`${server.url}${stackPagePath("stack-000")}`);
    const fleetJson = await get(`${server.url}/api/v1/stacks`);
    process.stdout.write(
      `${STACKS} stacks x ${DATABASES} databases, ${STACKS * DRIFTED} drifted: overview ${overview.bytes} B, a stack's page ${stackPage.bytes} B, /api/v1/stacks ${fleetJson.bytes} B\n`,
    );

    // 20 clients read a path back to back (with `headers`): its latencies.
    const load = async (path: string, headers: Record<string, string> = {}): Promise<number[]> => {
      const times: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next++ < REQUESTS) times.push((await get(`${server.url}${path}`, headers)).ms);
        }),
      );
      return times;
    };
    const say = (what: string, times: number[]) =>
      process.stdout.write(
        `${what}, ${CLIENTS} concurrent clients, ${times.length} requests: p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${percentile(times, 99).toFixed(1)} ms\n`,
      );
    // The floor on this machine now: the same clients on /healthz (a few bytes), so a loaded machine's figure can be read against it.
    say("/healthz (the floor)", await load("/healthz"));
    const times = await load("/api/v1/stacks");
    say("/api/v1/stacks", times);
    const p99 = percentile(times, 99);
    // Pollers that send the ETag they have: 304 without a body while nothing changed.
    const polled = await load("/api/v1/stacks", { "if-none-match": fleetJson.etag });
    say("/api/v1/stacks with If-None-Match (304)", polled);

    const frame = await streamFrameBytes(server.url, () => feedStack(board, 0, new Date()));
    process.stdout.write(`one stack's change on /api/v1/stream: ${frame} B (the fleet's JSON: ${fleetJson.bytes} B)\n`);

    const chromium = process.env.STACKWARDEN_CHROMIUM || "/usr/bin/chromium";
    let paints: { overview: number; stack: number } | undefined;
    if (existsSync(chromium)) {
      const args = ["--disable-dev-shm-usage", "--disable-gpu", "--no-first-run", ...(process.getuid?.() === 0 ? ["--no-sandbox"] : [])];
      const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args });
      try {
        paints = {
          overview: await firstPaint(browser, `${server.url}/`),
          stack: await firstPaint(browser, `${server.url}${stackPagePath("stack-000")}`),
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
    await server.close();
  }
}

void main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
