import { spawn, type ChildProcess } from "node:child_process";
import { randomFillSync } from "node:crypto";
import { once } from "node:events";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PROJECT_ROOT } from "../src/platform/version";
import { median, reportGoal } from "./goal";

/**
 * The artifact gate on a large file: `stackwarden scan` (a child process) sends a 200 MB generated
 * file and 50 rules to the emulator (another child process), which writes the upload to disk and
 * scans it with YARA-X. Every figure is a ratio to a baseline measured in the same run, medians of
 * interleaved rounds:
 *
 * - **First scan** (an empty scan cache, a fresh STACKWARDEN_CACHE_DIR each run) against the serial
 *   floor of any upload-then-scan service: CLI start-up (`stackwarden --version`) + a `curl` upload of
 *   the same file to the same service with a no-op rule (receive, store, map, scan nothing) + YARA-X
 *   alone (a process that loads @litko/yara-x, compiles the 50 rules and scans the file). Goal <= 1.25x.
 *   The older figure, against YARA-X alone, is printed too.
 * - **Emulator peak RSS** during those scans against the peak of the process that only runs YARA-X
 *   on the file. Goal: at most 64 MB more. Peak RSS of the CLI: goal < 300 MB.
 * - **Second scan and second check** of the unchanged file (the scan cache warm: the file is hashed
 *   and not sent; one small request asks the service its engine) against `sha256sum` of the file.
 *   Goal <= 1.3x each.
 *
 * The 50 rules live in 5 rule files of 10 rules (one request: the spec allows 10 rule sources a
 * request). The same 50 rules as 50 one-rule files are also measured, for the record: that needs 5
 * requests, so 5 uploads and 5 scans of the whole file.
 *
 * Settings (environment): BENCH_SCAN_MB (default 200), BENCH_ROUNDS (default 3).
 */
const SIZE_MB = Number(process.env.BENCH_SCAN_MB ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RULES = 50;
const MB = 1024 * 1024;
/** Megabytes between two markers: five markers whatever the size. */
const MARKER_STEP = Math.max(1, Math.floor(SIZE_MB / 5));

/** Loaded with --require into every measured process: reports its peak RSS when it exits. */
const PEAK_RSS_PRELOAD = `
const { writeFileSync } = require("node:fs");
const out = process.env.BENCH_RSS_FILE;
process.on("exit", () => { if (out) writeFileSync(out, String(process.resourceUsage().maxRSS * 1024)); });
process.on("SIGTERM", () => process.exit(0));
`;

const BASELINE = `
const y = require("@litko/yara-x");
const fs = require("node:fs");
const path = require("node:path");
const dir = process.argv[1];
const sources = fs.readdirSync(dir).sort().map((f) => fs.readFileSync(path.join(dir, f), "utf8"));
const rules = y.compile(sources.join("\\n"));
rules.scanFileAsync(process.argv[2]).then((m) => { process.stdout.write(String(m.length)); });
`;

/** Benign marker rules of the kinds real rule sets use: text, wide, nocase, hex with jumps, regular expressions. */
function ruleText(i: number): string {
  const k = i % 5;
  const s =
    k === 0
      ? `$a = "SW-BENCH-MARKER-${i}-CANARY"`
      : k === 1
        ? `$a = "sw_bench_wide_marker_${i}" wide ascii`
        : k === 2
          ? `$a = "Sw-Bench-NoCase-Token-${i}" nocase`
          : k === 3
            ? `$a = { 53 57 ?? 42 45 4E 43 48 [2-6] ${(i % 256).toString(16).padStart(2, "0")} 45 52 }`
            : `$a = /sw-bench-${i}-[0-9a-f]{8}/`;
  return `rule bench_rule_${i} : bench {\n  meta:\n    description = "benign bench marker ${i}"\n  strings:\n    ${s}\n  condition:\n    $a\n}\n`;
}

/** Random bytes with words sprinkled in (printable runs for the engine to consider) and a few markers that match. */
function generateFile(path: string): void {
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(MB);
  const words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "SW-BENCH", "sw_bench"];
  let seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  for (let i = 0; i < SIZE_MB; i++) {
    randomFillSync(chunk);
    for (let j = 0; j < 2000; j++) chunk.write(words[rnd() % words.length], rnd() % (chunk.length - 16), "latin1");
    // Markers for rules 0, 10, 20, 30 and 40 spread through the file, the last near its end (every 40 MB of 200).
    if (i % MARKER_STEP === MARKER_STEP - 1 && i < 5 * MARKER_STEP)
      chunk.write(`SW-BENCH-MARKER-${Math.floor(i / MARKER_STEP) * 10}-CANARY`, 4096, "latin1");
    writeSync(fd, chunk);
  }
  closeSync(fd);
}

interface Run {
  wallMs: number;
  peakRss: number;
  stdout: string;
  code: number | null;
}

async function runProcess(args: string[], env: NodeJS.ProcessEnv, rssFile: string, cwd?: string): Promise<Run> {
  rmSync(rssFile, { force: true });
  const t0 = process.hrtime.bigint();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, BENCH_RSS_FILE: rssFile },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  const [code] = (await once(child, "exit")) as [number | null];
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  return { wallMs, peakRss: Number(readFileSync(rssFile, "utf8")), stdout, code };
}

/** Runs a program that is not Node.js (curl, sha256sum): its wall time and stdout; throws unless it exits 0. */
async function timeCommand(command: string, args: string[]): Promise<{ wallMs: number; stdout: string }> {
  const t0 = process.hrtime.bigint();
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  const [code] = (await once(child, "exit")) as [number | null];
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  if (code !== 0) throw new Error(`${command} exited ${code}`);
  return { wallMs, stdout };
}

async function startEmulator(preload: string, rssFile: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--require", preload, join(PROJECT_ROOT, "bin", "stackwarden.js"), "emulator", "--port", "0"], {
    env: { ...process.env, BENCH_RSS_FILE: rssFile },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const rl = createInterface({ input: child.stdout! });
  const [line] = (await once(rl, "line")) as [string];
  rl.close();
  return { url: line.trim(), child };
}

/** A process's resident set now, from /proc (Linux). */
function idleRssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb ?? 0) * 1024;
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

/** `/apply-yara-rules` requests an emulator has answered. */
async function scanRequests(url: string): Promise<number> {
  const stats = (await (await fetch(`${url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
  return stats.byRoute["POST /binary-analysis/v1/apply-yara-rules"] ?? 0;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-scan-"));
  const children: ChildProcess[] = [];
  try {
    const preload = join(dir, "peak-rss.js");
    writeFileSync(preload, PEAK_RSS_PRELOAD);
    const file = join(dir, "artifact.bin");
    const t0 = Date.now();
    generateFile(file);
    process.stdout.write(`generated a ${SIZE_MB} MB file in ${Date.now() - t0} ms\n`);

    // The same 50 rules twice: 5 files of 10 rules, and 50 files of 1 rule.
    const grouped = join(dir, "rules-grouped");
    const single = join(dir, "rules-single");
    mkdirSync(grouped);
    mkdirSync(single);
    for (let f = 0; f < RULES / 10; f++) {
      writeFileSync(join(grouped, `set-${f}.yar`), Array.from({ length: 10 }, (_, i) => ruleText(f * 10 + i)).join("\n"));
    }
    for (let i = 0; i < RULES; i++) writeFileSync(join(single, `rule-${String(i).padStart(2, "0")}.yar`), ruleText(i));
    // For the breakdown and the floor: a rule that never matches and has no strings (the service still receives, stores and reads the file).
    const noopRule = "rule noop { condition: false }\n";
    const noop = join(dir, "rules-noop");
    mkdirSync(noop);
    writeFileSync(join(noop, "noop.yar"), noopRule);
    // A project whose stack ships the file, for `check` (no databases: the artifact gate alone).
    writeFileSync(join(dir, "Pulumi.yaml"), "name: bench\nruntime: nodejs\n");
    mkdirSync(join(dir, "stacks"));
    writeFileSync(
      join(dir, "stacks", "Pulumi.bench.yaml"),
      `config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:artifacts:\n    paths: [artifact.bin]\n    rules: [rules-grouped]\n`,
    );

    // One emulator per layout, so that each peak RSS is that layout's.
    const emulatorRss = join(dir, "emulator.rss");
    const singleRss = join(dir, "emulator-single.rss");
    const emu = await startEmulator(preload, emulatorRss);
    const emuSingle = await startEmulator(preload, singleRss);
    children.push(emu.child, emuSingle.child);
    const idleRss = idleRssOf(emu.child.pid!);
    const BIN = join(PROJECT_ROOT, "bin", "stackwarden.js");
    // A first scan: an empty scan cache of its own each time.
    let fresh = 0;
    const emptyCache = () => {
      const d = join(dir, `cache-${fresh++}`);
      rmSync(d, { recursive: true, force: true });
      return d;
    };
    const cliAgainst = (url: string) => (rules: string) =>
      runProcess(
        ["--require", preload, BIN, "scan", file, "--rules", rules, "--output", "json"],
        { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${url}/binary-analysis/v1`, STACKWARDEN_CACHE_DIR: emptyCache() },
        join(dir, "cli.rss"),
      );
    const cli = cliAgainst(emu.url);
    const cliSingle = cliAgainst(emuSingle.url);
    const direct = () =>
      runProcess(
        [
          "--require",
          preload,
          "-e",
          BASELINE.replace("process.argv[1]", JSON.stringify(grouped)).replace("process.argv[2]", JSON.stringify(file)),
        ],
        { NODE_PATH: join(PROJECT_ROOT, "node_modules") },
        join(dir, "direct.rss"),
      );
    const startup = () => runProcess(["--require", preload, BIN, "--version"], {}, join(dir, "startup.rss"));
    // The upload alone, by the fastest client at hand: curl, the same file and a no-op rule, to the same service.
    const curl = async (): Promise<Run> => {
      const r = await timeCommand("curl", [
        "-sS",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code}",
        "-F",
        `file=@${file};type=application/octet-stream`,
        "-F",
        `rules=${Buffer.from(noopRule).toString("base64")}`,
        "-F",
        "is_unpacking_required=false",
        `${emu.url}/binary-analysis/v1/apply-yara-rules`,
      ]);
      if (r.stdout !== "200") throw new Error(`curl's upload was answered ${r.stdout}`);
      return { wallMs: r.wallMs, peakRss: 0, stdout: r.stdout, code: 0 };
    };

    // Warm-up (page cache, module caches), untimed; and a check that both see the same matches.
    const warmDirect = await direct();
    const warmCli = await cli(grouped);
    await curl();
    const expected = Number(warmDirect.stdout);
    const viaGate = (JSON.parse(warmCli.stdout) as { artifacts: { matches: unknown[] }[] }).artifacts[0].matches.length;
    if (warmCli.code !== 3 || viaGate !== expected || expected === 0) {
      throw new Error(
        `the gate and YARA-X disagree: ${viaGate} rule(s) matched through the emulator (exit ${warmCli.code}), ${expected} directly`,
      );
    }
    process.stdout.write(`both find ${expected} matching rules of ${RULES}\n`);

    const directRuns: Run[] = [];
    const cliRuns: Run[] = [];
    const singleRuns: Run[] = [];
    const noopRuns: Run[] = [];
    const startupRuns: Run[] = [];
    const curlRuns: Run[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: [string, () => Promise<Run>, Run[]][] = [
        ["yara-x direct", direct, directRuns],
        ["stackwarden scan (5 rule files, 1 request)", () => cli(grouped), cliRuns],
        ["stackwarden scan (50 rule files, 5 requests)", () => cliSingle(single), singleRuns],
        ["stackwarden scan (one no-op rule)", () => cliSingle(noop), noopRuns],
        ["stackwarden --version (CLI start-up)", startup, startupRuns],
        ["curl upload, one no-op rule", curl, curlRuns],
      ];
      if (r % 2 === 1) order.reverse();
      for (const [name, fn, into] of order) {
        const run = await fn();
        into.push(run);
        process.stdout.write(
          `round ${r + 1} ${name.padEnd(46)} ${run.wallMs.toFixed(0).padStart(6)} ms${run.peakRss ? `, peak RSS ${mb(run.peakRss)}` : ""}\n`,
        );
      }
    }

    // The second scan and check: one scan fills a cache; then the cached runs against sha256sum of the file.
    const warm = join(dir, "cache-warm");
    const cachedEnv = { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`, STACKWARDEN_CACHE_DIR: warm };
    // Run in the project with the stack's own rule paths, so that scan and check share the rule set (its digest names the files as shown).
    const cachedScan = () =>
      runProcess(
        ["--require", preload, BIN, "scan", "artifact.bin", "--rules", "rules-grouped", "--output", "json"],
        cachedEnv,
        join(dir, "cached.rss"),
        dir,
      );
    const cachedCheck = () =>
      runProcess(
        ["--require", preload, BIN, "check", "--stack", "bench", "--output", "json"],
        { ...cachedEnv, STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata` },
        join(dir, "cached.rss"),
        dir,
      );
    const sha256sum = async (): Promise<Run> => {
      const r = await timeCommand("sha256sum", [file]);
      return { wallMs: r.wallMs, peakRss: 0, stdout: r.stdout, code: 0 };
    };
    await cachedScan();
    await cachedCheck();
    const before = await scanRequests(emu.url);
    const warmScan = await cachedScan();
    const warmCheck = await cachedCheck();
    await sha256sum();
    const sent = (await scanRequests(emu.url)) - before;
    const fromCache = (JSON.parse(warmScan.stdout) as { artifacts: { cached?: unknown }[] }).artifacts[0].cached;
    const checkDoc = JSON.parse(warmCheck.stdout) as { findings: { location?: { cached?: unknown } }[] };
    if (!fromCache || !checkDoc.findings.some((f) => f.location?.cached) || warmScan.code !== 3 || warmCheck.code !== 3 || sent !== 2) {
      throw new Error(
        `the second scan and check did not come from the scan cache: exits ${warmScan.code}/${warmCheck.code}, ${sent} requests (expected 2 engine probes)`,
      );
    }
    const secondScanRuns: Run[] = [];
    const secondCheckRuns: Run[] = [];
    const sumRuns: Run[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const order: [string, () => Promise<Run>, Run[]][] = [
        ["sha256sum of the file", sha256sum, sumRuns],
        ["stackwarden scan, second time (scan cache)", cachedScan, secondScanRuns],
        ["stackwarden check, second time (scan cache)", cachedCheck, secondCheckRuns],
      ];
      if (r % 2 === 1) order.reverse();
      for (const [name, fn, into] of order) {
        const run = await fn();
        into.push(run);
        process.stdout.write(`round ${r + 1} ${name.padEnd(46)} ${run.wallMs.toFixed(0).padStart(6)} ms\n`);
      }
    }

    for (const e of [emu, emuSingle]) {
      e.child.kill("SIGTERM");
      await once(e.child, "exit");
    }
    const emulatorPeak = Number(readFileSync(emulatorRss, "utf8"));
    const singlePeak = Number(readFileSync(singleRss, "utf8"));

    const m = (runs: Run[]) => median(runs.map((r) => r.wallMs));
    const d = m(directRuns);
    const c = m(cliRuns);
    const s = m(singleRuns);
    const floor = m(startupRuns) + m(curlRuns) + d;
    const cliPeak = Math.max(...cliRuns.map((r) => r.peakRss), ...singleRuns.map((r) => r.peakRss));
    const directPeak = Math.max(...directRuns.map((r) => r.peakRss));
    process.stdout.write(`\n${SIZE_MB} MB file, ${RULES} rules, ${ROUNDS} rounds, medians:\n`);
    process.stdout.write(`yara-x direct (node + @litko/yara-x, compile + scanFile)  ${d.toFixed(0)} ms, peak RSS ${mb(directPeak)}\n`);
    process.stdout.write(
      `stackwarden scan via the emulator, 1 request (first scan)  ${c.toFixed(0)} ms (${(c / d).toFixed(2)}x YARA-X alone)\n`,
    );
    process.stdout.write(
      `serial floor: CLI start-up ${m(startupRuns).toFixed(0)} ms + curl upload (no-op rule) ${m(curlRuns).toFixed(0)} ms + YARA-X alone ${d.toFixed(0)} ms = ${floor.toFixed(0)} ms\n`,
    );
    process.stdout.write(
      `stackwarden scan via the emulator, 5 requests (50 files)  ${s.toFixed(0)} ms (${(s / d).toFixed(2)}x; for the record)\n`,
    );
    process.stdout.write(
      `  breakdown: a scan with one no-op rule (start-up, hashing, upload, storing and reading the file) ${m(noopRuns).toFixed(0)} ms\n`,
    );
    process.stdout.write(
      `second time (scan cache): scan ${m(secondScanRuns).toFixed(0)} ms, check ${m(secondCheckRuns).toFixed(0)} ms; sha256sum ${m(sumRuns).toFixed(0)} ms\n`,
    );
    process.stdout.write(`  emulator idle before the scans: ${mb(idleRss)}; its peak with 50 rule files: ${mb(singlePeak)}\n`);
    reportGoal({ figure: "binary-scan: peak RSS of the CLI process", value: cliPeak / MB, limit: 300, unit: " MB", digits: 0 });
    reportGoal({
      figure: `binary-scan: emulator peak RSS (${mb(emulatorPeak)}) over a process that only runs YARA-X on the file (${mb(directPeak)})`,
      value: (emulatorPeak - directPeak) / MB,
      limit: 64,
      unit: " MB",
      digits: 0,
    });
    reportGoal({
      figure: "binary-scan: first scan through the emulator / the serial floor (start-up + curl upload + YARA-X alone)",
      value: c / floor,
      limit: 1.25,
    });
    reportGoal({
      figure: `binary-scan: second scan of the unchanged ${SIZE_MB} MB file (scan cache) / sha256sum of it`,
      value: m(secondScanRuns) / m(sumRuns),
      limit: 1.3,
    });
    reportGoal({
      figure: `binary-scan: second check of the unchanged ${SIZE_MB} MB file (scan cache) / sha256sum of it`,
      value: m(secondCheckRuns) / m(sumRuns),
      limit: 1.3,
    });
  } finally {
    // On failure too: no emulator outlives the bench.
    for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`binary-scan: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
