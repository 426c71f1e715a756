import { setTimeout as sleep } from "node:timers/promises";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Agent, request } from "undici";
import { PROJECT_ROOT } from "../src/platform/version";
import { reportGoal } from "./goal";

/**
 * `stackwarden watch` for 1 000 ticks at a 10 ms interval against a 100-database stack (each tick:
 * 100 TDE GETs, 100 advisor lists, the rules). The watcher and the emulator each run in a child
 * process; this process scrapes /metrics back to back the whole time, timing each scrape, and
 * reads the watcher's RSS (`process_resident_memory_bytes`) and open handles
 * (`nodejs_active_resources_total`, from process.getActiveResourcesInfo) at the first, middle and
 * last tick. Baseline: the same scrape against the same watcher while it is idle (1 h interval).
 * Goals: RSS and handles flat from the middle to the end (the first ticks fill the connection
 * pool and warm the heap: shown, not judged), the live heap (its size after each major collection,
 * from the watcher's --trace-gc) flat from the first half to the second, /metrics under 50 ms
 * throughout (max, from the first finished tick on). BENCH_WATCH_TICKS runs longer (V8 goes on
 * growing its committed heap, and so RSS, for ~1 200 ticks before it settles).
 */
const TICKS = Number(process.env.BENCH_WATCH_TICKS ?? 1000);
const DATABASES = 100;
const SUB = "00000000-0000-0000-0000-000000000000";
const BIN = join(PROJECT_ROOT, "bin", "stackwarden.js");
/** Pause between scrapes: often enough to see every tick's phases, not so often that the scraper competes for the CPU. */
const SCRAPE_GAP_MS = 5;

interface Sample {
  ms: number;
  ticks: number;
  rss: number;
  resources: number;
  /** Active resources by type (`TCPSocketWrap`, `Timeout`, ...). */
  byType: Record<string, number>;
  /** The watcher's own worst event-loop delay so far (prom-client's histogram max), in s. */
  lagMax: number;
  /** V8's heap: used (live and not yet collected) and its new space's size. */
  heapUsed: number;
  heapTotal: number;
  external: number;
  newSpace: number;
  /** The scrape's text, kept for the last one only. */
  text?: string;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-bench-"));
  const dbs = Array.from({ length: DATABASES }, (_, i) => `db${i}`);
  writeFileSync(
    join(dir, "seed.yaml"),
    JSON.stringify({
      sql: {
        servers: [{ name: "s1", resourceGroup: "rg", databases: dbs.map((name) => ({ name, transparentDataEncryption: "Enabled" })) }],
      },
    }),
  );
  writeFileSync(
    join(dir, "Pulumi.bench.yaml"),
    `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${dbs.map((d) => `    - { resourceGroup: rg, server: s1, database: ${d}, transparentDataEncryption: Enabled }\n`).join("")}`,
  );
  const emulator = spawn(process.execPath, [BIN, "emulator", "--port", "0", "--seed", join(dir, "seed.yaml")], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const emuUrl = await firstLine(emulator, /^http/);
  const env = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: emuUrl, STACKWARDEN_IMDS_ENDPOINT: `${emuUrl}/metadata` };
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  try {
    // Baseline: the idle watcher (first tick done, next one in an hour).
    const idle = spawn(process.execPath, [BIN, "watch", "--config", "Pulumi.bench.yaml", "--interval", "1h", "--listen", "127.0.0.1:0"], {
      cwd: dir,
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const idleUrl = (await firstLine(idle, /listening on/)).replace(/^.*listening on (\S+).*$/, "$1");
    while ((await scrape(agent, idleUrl)).ticks < 1) await sleep(20);
    const idleTimes: number[] = [];
    for (let i = 0; i < 300; i++) idleTimes.push((await scrape(agent, idleUrl)).ms);
    idle.kill("SIGTERM");
    await exited(idle);

    const started = performance.now();
    // --trace-gc prints, for every major collection, the heap's size after it: what is really live,
    // whatever V8's sizing does to RSS and to the heap a scrape happens to see.
    const busy = spawn(
      process.execPath,
      [
        "--trace-gc",
        BIN,
        "watch",
        "--config",
        "Pulumi.bench.yaml",
        "--interval",
        "10ms",
        "--max-ticks",
        String(TICKS),
        "--listen",
        "127.0.0.1:0",
      ],
      { cwd: dir, env, stdio: ["ignore", "pipe", "inherit"] },
    );
    const majorGcs: { tick: number; liveMb: number }[] = [];
    let tickSeen = 0;
    createInterface({ input: busy.stdout! }).on("line", (l) => {
      const t = / tick (\d+): /.exec(l);
      if (t) tickSeen = Number(t[1]);
      const gc = /Mark-Compact [\d.]+ \([\d.]+\) -> ([\d.]+) \(/.exec(l);
      if (gc) majorGcs.push({ tick: tickSeen, liveMb: Number(gc[1]) });
    });
    const url = (await firstLine(busy, /listening on/)).replace(/^.*listening on (\S+).*$/, "$1");
    let done = false;
    const code = exited(busy).then((c) => {
      done = true;
      return c;
    });
    const samples: Sample[] = [];
    let gcText = "";
    while (!done) {
      try {
        const sample = await scrape(agent, url);
        gcText = sample.text ?? gcText;
        sample.text = undefined; // only the last one is read: keeping 4 000 of them would load this process's GC
        samples.push(sample);
        await sleep(SCRAPE_GAP_MS);
      } catch {
        break; // the watcher stopped after its last tick
      }
    }
    const exitCode = await code;
    const wall = performance.now() - started;
    const ticked = samples.filter((s) => s.ticks >= 1);
    if (ticked.length < 3) throw new Error(`only ${ticked.length} scrapes saw a tick`);
    // A scrape lands anywhere in a tick (requests in flight or not, before or after a collection),
    // so each figure describes a window of 100 ticks: the median RSS and open handles, and the
    // heap's floor (the least used: what survives collection, where a leak would show).
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const window = (from: number, to: number) => {
      const w = ticked.filter((x) => x.ticks >= from && x.ticks <= to);
      if (w.length === 0) throw new Error(`no scrape between ticks ${from} and ${to}`);
      const typical = w.find((x) => x.resources === median(w.map((y) => y.resources)))!;
      return {
        ticks: `${w[0].ticks}-${w[w.length - 1].ticks}`,
        rss: median(w.map((x) => x.rss)),
        heapFloor: Math.min(...w.map((x) => x.heapUsed)),
        newSpace: Math.max(...w.map((x) => x.newSpace)),
        heapTotal: median(w.map((x) => x.heapTotal)),
        external: median(w.map((x) => x.external)),
        resources: typical.resources,
        // Immediates are callbacks queued for the current turn (a scrape during a burst of answers sees dozens), not held resources.
        lasting: median(w.map((x) => x.resources - (x.byType.Immediate ?? 0))),
        byType: typical.byType,
      };
    };
    const first = window(1, 100);
    const middle = window(TICKS / 2 - 50, TICKS / 2 + 50);
    const last = window(TICKS - 100, TICKS);
    // Major collections are a few per thousand ticks: judged by halves of the run rather than windows of 100 ticks.
    const liveIn = (from: number, to: number) => majorGcs.filter((g) => g.tick >= from && g.tick <= to).map((g) => g.liveMb);
    const firstHalf = liveIn(1, TICKS / 2);
    const secondHalf = liveIn(TICKS / 2 + 1, TICKS);
    // Scrapes before the first tick finished measure start-up (module loading, schema compiling), not ticking.
    const times = ticked.map((s) => s.ms);
    const startup = samples.filter((s) => s.ticks < 1).map((s) => s.ms);
    const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
    const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
    const out = (s: string) => process.stdout.write(`${s}\n`);
    out(
      `${TICKS} ticks at a 10 ms interval, ${DATABASES} databases (${2 * DATABASES + 3} requests a tick: TDE and advisors per database; the server's protector, and its database list in 2 pages of 100 with master): wall ${(wall / 1000).toFixed(1)} s, ${(TICKS / (wall / 1000)).toFixed(1)} ticks/s, exit ${exitCode}`,
    );
    out(
      `RSS:     ticks ${first.ticks} ${mb(first.rss)}, ticks ${middle.ticks} ${mb(middle.rss)}, ticks ${last.ticks} ${mb(last.rss)} (median of each window); last/middle ${(last.rss / middle.rss).toFixed(3)}x`,
    );
    out(
      `heap:    used at least ${mb(first.heapFloor)}, ${mb(middle.heapFloor)}, ${mb(last.heapFloor)} (the floor in each window: what survives collection); new space up to ${mb(first.newSpace)}, ${mb(middle.newSpace)}, ${mb(last.newSpace)}; committed ${mb(first.heapTotal)}, ${mb(middle.heapTotal)}, ${mb(last.heapTotal)}; external ${mb(first.external)}, ${mb(middle.external)}, ${mb(last.external)}`,
    );
    out(
      `live heap after each major GC (--trace-gc): ${majorGcs.map((g) => `${g.liveMb.toFixed(1)} MB at tick ${g.tick}`).join(", ") || "none"}`,
    );
    out(
      `handles: ticks ${first.ticks} ${first.resources}, ticks ${middle.ticks} ${middle.resources}, ticks ${last.ticks} ${last.resources} (active resources, a typical scrape of each window); ` +
        `lasting (without queued Immediates, median) ${first.lasting}, ${middle.lasting}, ${last.lasting}`,
    );
    out(
      `         by type, last window (a typical scrape): ${Object.entries(last.byType)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}`,
    );
    const slowest = ticked
      .map((x, i) => ({ ...x, i }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5);
    out(
      `         slowest scrapes: ${slowest.map((x) => `${x.ms.toFixed(0)} ms at tick ${x.ticks} (watcher loop delay ${(x.lagMax * 1000).toFixed(0)} ms)`).join("; ")}`,
    );
    out(
      `/metrics: ${times.length} scrapes (one every ${SCRAPE_GAP_MS} ms) under load p50 ${p(times, 0.5).toFixed(1)} ms, p99 ${p(times, 0.99).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms; idle p50 ${p(idleTimes, 0.5).toFixed(1)} ms (ratio ${(p(times, 0.5) / p(idleTimes, 0.5)).toFixed(2)}x); the watcher's worst event-loop delay ${(Math.max(...samples.map((x) => x.lagMax || 0)) * 1000).toFixed(1)} ms`,
    );
    const ticksRun = Math.max(tickSeen, ...samples.map((x) => x.ticks)); // the last tick may end after the last scrape
    out(
      `         ${times.filter((x) => x >= 50).length} of ${times.length} scrapes took 50 ms or more; during start-up (before the first tick finished) ${startup.length} scrape(s), max ${startup.length ? Math.max(...startup).toFixed(1) : "-"} ms`,
    );
    out(`         garbage collection in the watcher: ${gcSummary(gcText)}`);
    reportGoal({
      figure: "watch: ticks run",
      value: ticksRun,
      limit: TICKS,
      kind: "min",
      unit: "",
      digits: 0,
      also: [{ ok: exitCode === 0, what: `exit ${exitCode}` }],
    });
    // The first ticks open the connection pool and size the heap: growth from the middle on is what a leak shows.
    reportGoal({ figure: "watch: RSS, last window over the middle one", value: last.rss / middle.rss, limit: 1.15, digits: 3 });
    reportGoal({
      figure:
        "watch: live heap, largest after a major GC in the second half (first half's: " +
        `${firstHalf.length ? Math.max(...firstHalf).toFixed(1) : "none"} MB; goal its 1.15x + 2 MB)`,
      value: secondHalf.length ? Math.max(...secondHalf) : Number.POSITIVE_INFINITY,
      limit: firstHalf.length ? Number((Math.max(...firstHalf) * 1.15 + 2).toFixed(1)) : 0,
      unit: " MB",
      digits: 1,
    });
    reportGoal({
      figure: "watch: lasting open handles, last window (middle one's + 4)",
      value: last.lasting,
      limit: middle.lasting + 4,
      unit: "",
      digits: 0,
    });
    reportGoal({ figure: "watch: /metrics, slowest scrape under load", value: Math.max(...times), limit: 50, unit: " ms", digits: 1 });
  } finally {
    await agent.close();
    emulator.kill("SIGTERM");
  }
}

async function scrape(agent: Agent, url: string): Promise<Sample> {
  const t0 = performance.now();
  const res = await request(`${url}/metrics`, { dispatcher: agent });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? NaN);
  const byType: Record<string, number> = {};
  for (const m of text.matchAll(/^nodejs_active_resources\{type="([^"]+)"\} (\S+)$/gm)) byType[m[1]] = Number(m[2]);
  return {
    ms,
    ticks: sumTicks(text),
    rss: value("process_resident_memory_bytes"),
    resources: value("nodejs_active_resources_total"),
    byType,
    lagMax: value("nodejs_eventloop_lag_max_seconds"),
    heapUsed: value("nodejs_heap_size_used_bytes"),
    heapTotal: value("nodejs_heap_size_total_bytes"),
    external: value("nodejs_external_memory_bytes"),
    newSpace: Number(/^nodejs_heap_space_size_total_bytes\{space="new"\} (\S+)$/m.exec(text)?.[1] ?? NaN),
    text: text.includes("nodejs_gc_duration_seconds") ? text : undefined,
  };
}

/** GC pauses by kind from prom-client's cumulative histogram: how many, and how many took 10 ms / 100 ms or more. */
function gcSummary(text: string): string {
  const kinds = new Map<string, { count: number; le10: number; le100: number; sum: number }>();
  for (const m of text.matchAll(/^nodejs_gc_duration_seconds_(bucket|count|sum)\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    const k = kinds.get(labels.kind) ?? { count: 0, le10: 0, le100: 0, sum: 0 };
    if (m[1] === "count") k.count = Number(m[3]);
    if (m[1] === "sum") k.sum = Number(m[3]);
    if (m[1] === "bucket" && labels.le === "0.01") k.le10 = Number(m[3]);
    if (m[1] === "bucket" && labels.le === "0.1") k.le100 = Number(m[3]);
    kinds.set(labels.kind, k);
  }
  return [...kinds]
    .map(
      ([kind, k]) =>
        `${kind} ${k.count} (${(k.sum * 1000).toFixed(0)} ms in all, ${k.count - k.le10} of 10 ms+, ${k.count - k.le100} of 100 ms+)`,
    )
    .join(", ");
}

function sumTicks(text: string): number {
  let n = 0;
  for (const m of text.matchAll(/^stackwarden_watch_ticks_total\{[^}]*\} (\S+)$/gm)) n += Number(m[1]);
  return n;
}

function firstLine(child: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.on("line", (l) => {
      if (re.test(l)) resolve(l);
    });
    child.once("exit", (c) => reject(new Error(`process exited (${c}) before a line matching ${re}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (c) => resolve(c))));
}

main().catch((e: unknown) => {
  process.stderr.write(`watch bench failed: ${(e as Error).message}\n`);
  process.exitCode = 1;
});
