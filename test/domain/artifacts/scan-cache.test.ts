import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scanArtifacts, type ArtifactScanReport } from "../../../src/domain/artifacts/artifact-gate";
import { probeEngine } from "../../../src/domain/artifacts/engine-identity";
import { loadRuleSet, type RuleSet } from "../../../src/domain/artifacts/rule-set";
import { ScanCache } from "../../../src/domain/artifacts/scan-cache";
import { localArtifactFiles, localScanCacheStorage } from "../../../src/platform/files/artifact-files";
import { localScanCache } from "../../../src/usecases/local-artifact-gate";
import { decodeEntry, encodeEntry, scanCacheKey, type ScanCacheInput } from "../../../src/domain/artifacts/scan-cache-entry";
import { sha256FileSync } from "../../../src/platform/files/file-digest";
import { BinaryAnalysisClient } from "../../../src/services/binary-analysis/client";
import { PROJECT_ROOT, VERSION } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { buildExecutableSample, markerRule, tempDir, type ExecutableSample } from "../../helpers/binary-samples";

/**
 * The scan cache (issue 26) against the real emulator and real files: what is sent is counted by
 * the emulator (`POST .../apply-yara-rules`). A new ScanCache on the same directory is what the
 * next process sees (the CLI tests run real processes: test/interfaces/cli/scan-cache-cli.test.ts).
 */

const MARKER = "STACKWARDEN-GATE-TEST-MARKER-7E3C";
const ENGINE = `@litko/yara-x ${(JSON.parse(readFileSync(join(PROJECT_ROOT, "node_modules", "@litko", "yara-x", "package.json"), "utf8")) as { version: string }).version}`;
let emu: TestEmulator;
let client: BinaryAnalysisClient;
let sample: ExecutableSample;
let project: string;
let files: string[];
let rules: RuleSet;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = new BinaryAnalysisClient({ endpoint: `${emu.url}/binary-analysis/v1` });
  sample = await buildExecutableSample();
  project = tempDir("stackwarden-scan-cache-");
  mkdirSync(join(project, "rules"));
  copyFileSync(join(PROJECT_ROOT, "stacks", "dev", "signatures", "test-markers.yar"), join(project, "rules", "test-markers.yar"));
  writeFileSync(join(project, "rules", "sample.yar"), markerRule("sample_exe_marker", sample.marker));
  writeFileSync(join(project, "dirty.sh"), `#!/bin/sh\necho deploying # ${MARKER}\n`);
  writeFileSync(join(project, "clean.sh"), "#!/bin/sh\necho fine\n");
  copyFileSync(sample.packed, join(project, "agent"));
  files = ["agent", "clean.sh", "dirty.sh"].map((f) => join(project, f));
  rules = loadRuleSet(localArtifactFiles, project, ["rules"]);
});
afterAll(async () => {
  await emu?.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
  if (project) rmSync(project, { recursive: true, force: true });
  if (sample) rmSync(sample.dir, { recursive: true, force: true });
});

/** Requests the emulator has answered on `/apply-yara-rules` (each upload of a file is one; the engine probe is one). */
const uploads = () => emu.emu.stats.byRoute["POST /binary-analysis/v1/apply-yara-rules"] ?? 0;

/** A cache directory of its own for one test (removed at the end). */
const roots: string[] = [];
function cacheDir(): string {
  const root = tempDir("stackwarden-scan-cache-dir-");
  roots.push(root);
  return join(root, "scans");
}

/** A scan cache in `dir` on this machine's disk, as the CLI opens it. */
const cacheIn = (dir: string, maxBytes = 1 << 20) =>
  new ScanCache({ dir, maxBytes }, localScanCacheStorage.documentsAt(dir), localArtifactFiles);

/** One scan of `list` through `cache` (none: no cache), with what it sent and warned. */
async function scanWith(cache: ScanCache | undefined, list = files, ruleSet = rules) {
  const warnings: string[] = [];
  const before = uploads();
  const report = await scanArtifacts({
    client,
    artifactFiles: localArtifactFiles,
    ruleSet,
    files: list,
    baseDir: project,
    cache,
    warn: (l) => warnings.push(l),
  });
  return { report, requests: uploads() - before, warnings };
}

/** A report without the cache's mark, to compare a cached result with a fresh one. */
const withoutMark = (r: ArtifactScanReport) => r.artifacts.map(({ cached: _, ...a }) => a);

/** The cache key of an artifact as scanned with `ruleSet` on `engine`. */
function keyOf(file: string, ruleSet = rules, engine = ENGINE): string {
  const { sha256, size } = sha256FileSync(file);
  return scanCacheKey({ sha256, size, rulesDigest: ruleSet.digest, engine, version: VERSION });
}

/** Entry and hint files in a cache directory, with their total size. */
function cacheFiles(dir: string): { entries: string[]; hints: string[]; bytes: number } {
  const list = (d: string) => (existsSync(d) ? readdirSync(d).filter((f) => f.endsWith(".json")) : []);
  const entries = list(dir);
  const hints = list(join(dir, "paths"));
  const bytes = [...entries.map((f) => join(dir, f)), ...hints.map((f) => join(dir, "paths", f))].reduce((n, f) => n + statSync(f).size, 0);
  return { entries, hints, bytes };
}

describe("the scan cache", () => {
  it("the engine probe names the engine the emulator runs", async () => {
    expect(await probeEngine(client, localArtifactFiles, cacheDir())).toBe(ENGINE);
  });

  it("across runs: the next process uploads no artifact again (one request: the engine probe) and gets the same results", async () => {
    const dir = cacheDir();
    const first = await scanWith(cacheIn(dir));
    expect(first.requests).toBe(3);
    expect(first.report.artifacts.map((a) => [a.path, a.verdict, a.cached])).toEqual([
      ["agent", "matched", undefined],
      ["clean.sh", "clean", undefined],
      ["dirty.sh", "matched", undefined],
    ]);
    expect(cacheFiles(dir).entries.sort()).toEqual(files.map((f) => `${keyOf(f)}.json`).sort());
    expect(cacheFiles(dir).hints).toHaveLength(3);

    const second = await scanWith(cacheIn(dir));
    expect(second.requests).toBe(1);
    expect(second.warnings).toEqual([]);
    expect(second.report.artifacts.every((a) => a.cached && !Number.isNaN(Date.parse(a.cached.scannedAt)))).toBe(true);
    expect(withoutMark(second.report)).toEqual(withoutMark(first.report));
    // The packed executable's match was found in its unpacked content, and the cache keeps that too.
    expect(second.report.artifacts[0]).toMatchObject({
      scannedUnpacked: true,
      packer: { name: "UPX" },
      matches: [{ rule: "sample_exe_marker" }],
    });
  });

  it("within a run: concurrent scans of one file share one upload, and the next scan of the process uses the entry", async () => {
    const cache = cacheIn(cacheDir());
    const dirty = join(project, "dirty.sh");
    const before = uploads();
    // Two stacks naming one file, scanned at once; and one stack whose globs name it twice.
    const [a, b, c] = await Promise.all([scanWith(cache, [dirty]), scanWith(cache, [dirty]), scanWith(cache, [dirty, dirty])]);
    expect(uploads() - before).toBe(1);
    for (const r of [a, b, c]) expect(r.report.artifacts.map((x) => [x.verdict, x.cached])).toContainEqual(["matched", undefined]);
    const next = await scanWith(cache, [dirty]);
    expect(next.requests).toBe(1); // the engine probe, at most once a minute per endpoint
    expect(next.report.artifacts[0]).toMatchObject({ verdict: "matched", cached: { scannedAt: expect.any(String) } });
    expect((await scanWith(cache, [dirty])).requests).toBe(0);
  });

  it("scans again when a rule changes, and when the artifact changes", async () => {
    const dir = cacheDir();
    await scanWith(cacheIn(dir));
    const extra = join(project, "rules", "extra.yar");
    writeFileSync(extra, markerRule("extra_marker", "NOT-IN-ANY-ARTIFACT-42"));
    try {
      const edited = loadRuleSet(localArtifactFiles, project, ["rules"]);
      const r = await scanWith(cacheIn(dir), files, edited);
      expect(r.requests).toBe(1 + 3);
      expect(r.report.artifacts.map((a) => a.cached)).toEqual([undefined, undefined, undefined]);
      expect(r.report.rulesDigest).not.toBe(rules.digest);
    } finally {
      rmSync(extra);
    }
    // Back to the first rules: their entries are still there.
    expect((await scanWith(cacheIn(dir))).requests).toBe(1);

    const clean = join(project, "clean.sh");
    const before = readFileSync(clean);
    writeFileSync(clean, `${before.toString()}echo ${MARKER}\n`);
    try {
      const r = await scanWith(cacheIn(dir));
      expect(r.report.artifacts.map((a) => [a.path, a.verdict, !!a.cached])).toEqual([
        ["agent", "matched", true],
        ["clean.sh", "matched", false],
        ["dirty.sh", "matched", true],
      ]);
      expect(r.requests).toBe(1 + 1);
    } finally {
      writeFileSync(clean, before);
    }
  });

  it("never uses an entry of another engine version", async () => {
    const dir = cacheDir();
    await scanWith(cacheIn(dir));
    // The same entries as an older engine would have written them (each under its own key, digest and all).
    const older = "@litko/yara-x 0.2.9";
    for (const f of files) {
      const decoded = decodeEntry(readFileSync(join(dir, `${keyOf(f)}.json`), "utf8"), keyOf(f));
      if (!decoded.ok) throw new Error(decoded.problem);
      const input: ScanCacheInput = { ...decoded.entry.input, engine: older };
      writeFileSync(
        join(dir, `${scanCacheKey(input)}.json`),
        encodeEntry({ input, scannedAt: decoded.entry.scannedAt, outcome: decoded.entry.outcome }),
      );
      renameSync(join(dir, `${keyOf(f)}.json`), join(dir, `${keyOf(f)}.json.moved`));
    }
    const r = await scanWith(cacheIn(dir));
    expect(r.requests).toBe(1 + 3);
    expect(r.report.artifacts.map((a) => a.cached)).toEqual([undefined, undefined, undefined]);
    expect(r.warnings).toEqual([]);
    // What the engine in use found is kept beside them, and used next time.
    expect((await scanWith(cacheIn(dir))).requests).toBe(1);
  });

  it("rescans a poisoned, a truncated and a misplaced entry, with one warning line each", async () => {
    const dir = cacheDir();
    const first = await scanWith(cacheIn(dir));
    const [agent, clean, dirty] = files.map((f) => join(dir, `${keyOf(f)}.json`));
    // Poisoned: the dirty script's entry edited to say it is clean (the one thing a cache must never let through).
    const poisoned = readFileSync(dirty, "utf8").replace('"verdict":"matched"', '"verdict":"clean"');
    expect(poisoned).not.toBe(readFileSync(dirty, "utf8"));
    writeFileSync(dirty, poisoned);
    // Misplaced: the clean script's file holds the packed executable's (whole, valid) entry.
    const agentText = readFileSync(agent, "utf8");
    writeFileSync(clean, agentText);
    // Truncated: cut in the middle, as a full disk or a killed copy leaves it.
    writeFileSync(agent, agentText.slice(0, agentText.length >> 1));

    const r = await scanWith(cacheIn(dir));
    expect(r.requests).toBe(1 + 3);
    expect(r.report.artifacts.map((a) => [a.path, a.verdict, a.cached])).toEqual([
      ["agent", "matched", undefined],
      ["clean.sh", "clean", undefined],
      ["dirty.sh", "matched", undefined],
    ]);
    expect(withoutMark(r.report)).toEqual(withoutMark(first.report));
    expect(r.warnings.sort()).toEqual(
      [
        `scan cache: ignoring the entry ${agent}: it is truncated or has extra lines; scanning the artifact again`,
        `scan cache: ignoring the entry ${clean}: it holds the entry of another key; scanning the artifact again`,
        `scan cache: ignoring the entry ${dirty}: its content does not match its integrity digest; scanning the artifact again`,
      ].sort(),
    );
    // The rescans wrote good entries again: the next run uses them, without a word.
    const again = await scanWith(cacheIn(dir));
    expect([again.requests, again.warnings, again.report.artifacts.every((a) => a.cached)]).toEqual([1, [], true]);
  });

  it("stays within its size bound, evicting the least recently used entry first", async () => {
    const dir = cacheDir();
    // Four artifacts whose entries are the same size (same length of content and name).
    const small = ["f1", "f2", "f3", "f4"].map((n) => {
      const p = join(project, `${n}.sh`);
      writeFileSync(p, `#!/bin/sh\necho ${n}\n`);
      return p;
    });
    try {
      const scan = async (list: string[], maxBytes = 1 << 20) => {
        const r = await scanWith(cacheIn(dir, maxBytes), list);
        await sleep(20); // distinct use times
        return r;
      };
      await scan([small[0]]);
      await scan([small[1]]);
      const entrySize = statSync(join(dir, `${keyOf(small[0])}.json`)).size;
      expect(statSync(join(dir, `${keyOf(small[1])}.json`)).size).toBe(entrySize);
      // f1 used again: f2 is now the least recently used.
      expect((await scan([small[0]])).report.artifacts[0].cached).toBeDefined();
      const hintSize = cacheFiles(dir).bytes / 2 - entrySize;
      // Room for three entries and four path hashes: the fourth entry pushes one out.
      const bound = 3 * entrySize + 4 * Math.ceil(hintSize) + 8;
      await scan([small[2], small[3]], bound);
      const after = cacheFiles(dir);
      expect(after.bytes).toBeLessThanOrEqual(bound);
      expect(after.entries.sort()).toEqual([small[0], small[2], small[3]].map((f) => `${keyOf(f)}.json`).sort());
      // The evicted one is scanned again; the others are not.
      const r = await scanWith(cacheIn(dir, bound), small);
      expect(r.report.artifacts.map((a) => [a.path, !!a.cached])).toEqual([
        ["f1.sh", true],
        ["f2.sh", false],
        ["f3.sh", true],
        ["f4.sh", true],
      ]);
      expect(cacheFiles(dir).bytes).toBeLessThanOrEqual(bound);
    } finally {
      for (const f of small) rmSync(f, { force: true });
    }
  });

  it("is off with STACKWARDEN_SCAN_CACHE=off or no cache: everything is sent again, nothing written", async () => {
    const dir = cacheDir();
    expect(localScanCache({ STACKWARDEN_SCAN_CACHE: "off", STACKWARDEN_CACHE_DIR: join(dir, "..") })).toBeUndefined();
    expect(localScanCache({ STACKWARDEN_CACHE_DIR: join(dir, "..") })).toBeInstanceOf(ScanCache);
    expect((await scanWith(undefined)).requests).toBe(3);
    expect((await scanWith(undefined)).requests).toBe(3);
    expect(existsSync(dir)).toBe(false);
  });
});
