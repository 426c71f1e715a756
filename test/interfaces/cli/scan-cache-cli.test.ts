import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEntry } from "../../../src/domain/artifacts/scan-cache-entry";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { GATE_MARKER as MARKER, gateProject } from "../../fixtures/estates/artifact-gate";
import { buildExecutableSample, tempDir, type ExecutableSample } from "../../helpers/binary-samples";
import { requireCompiledCli, runCliProcess } from "../../helpers/cli-process";

/**
 * The scan cache as users meet it (issue 26): `stackwarden scan` and `check` as real processes (the
 * compiled CLI, `npm run build`), one after another and at once, on one cache directory, against
 * an emulator that counts what they send.
 */

const SUB = "00000000-0000-0000-0000-000000000000";
const sarifSchema = JSON.parse(readFileSync(join(PROJECT_ROOT, "test", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validateSarif = ajv.compile(sarifSchema);

let emu: TestEmulator;
let sample: ExecutableSample;
let project: string;

beforeAll(async () => {
  requireCompiledCli();
  emu = await startTestEmulator();
  sample = await buildExecutableSample();
  project = gateProject("stackwarden-scan-cache-cli-", sample, ["stacks", "jobs", "tools"]);
  writeFileSync(join(project, "jobs", "deploy.sh"), `#!/bin/sh\necho deploying # ${MARKER}\n`);
  writeFileSync(join(project, "jobs", "train.sh"), "#!/bin/sh\necho training\n");
  copyFileSync(sample.packed, join(project, "tools", "agent"));
  writeFileSync(
    join(project, "stacks", "Pulumi.ci.yaml"),
    [
      "config:",
      `  stackwarden:subscriptionId: ${SUB}`,
      "  stackwarden:artifacts:",
      "    paths: [jobs/*.sh, tools/*]",
      "    rules: [rules]",
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await emu?.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
  if (project) rmSync(project, { recursive: true, force: true });
  if (sample) rmSync(sample.dir, { recursive: true, force: true });
});

/** A fresh STACKWARDEN_CACHE_DIR for one test (removed at the end). */
const roots: string[] = [];
function cacheRoot(): string {
  const r = tempDir("stackwarden-cache-root-");
  roots.push(r);
  return r;
}

/** `/apply-yara-rules` requests the emulator has answered (an artifact's upload is one; the engine probe is one). */
const uploads = () => emu.emu.stats.byRoute["POST /binary-analysis/v1/apply-yara-rules"] ?? 0;

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** Runs the compiled CLI in the project with the emulator's endpoints and `cacheRoot` as STACKWARDEN_CACHE_DIR. */
async function stackwarden(args: string[], cacheRoot: string, extra: Record<string, string> = {}): Promise<Run> {
  const r = await runCliProcess(args, {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      STACKWARDEN_ARM_ENDPOINT: emu.url,
      STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint,
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`,
      STACKWARDEN_CACHE_DIR: cacheRoot,
      ...extra,
    },
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Runs `args`, returning the run and the `/apply-yara-rules` requests it made. */
async function counted(args: string[], cacheRoot: string, extra: Record<string, string> = {}): Promise<Run & { requests: number }> {
  const before = uploads();
  const r = await stackwarden(args, cacheRoot, extra);
  return { ...r, requests: uploads() - before };
}

const SCAN = ["scan", "--stack", "ci"];

interface SarifLog {
  runs: {
    artifacts?: { location: { uri: string }; properties?: Record<string, unknown> }[];
    results: { ruleId: string; properties: Record<string, unknown> }[];
  }[];
}

describe("the scan cache across processes", () => {
  it("scan: the second run uploads no artifact (one request: the engine probe) and says (cached)", async () => {
    const root = cacheRoot();
    const first = await counted(SCAN, root);
    expect(first.code, first.err).toBe(3);
    expect(first.requests).toBe(3);
    expect(first.out).not.toContain("cached");

    const second = await counted(SCAN, root);
    expect(second.code, second.err).toBe(3);
    expect(second.requests).toBe(1);
    expect(second.err).toBe("");
    expect(second.out).toMatch(
      /^jobs\/deploy\.sh +matched +stackwarden_gate_test_marker \(rules\/test-markers\.yar\) at 0x1b \[test_marker\] \(cached\)$/m,
    );
    expect(second.out).toMatch(/^jobs\/train\.sh +clean +sha256 [0-9a-f]{64} \(cached\)$/m);
    expect(second.out).toMatch(/^tools\/agent +matched +sample_exe_marker .* \(unpacked content\) .*\(cached\)$/m);
    expect(second.out).toMatch(/3 artifact\(s\): 2 matched, .*; 3 from the scan cache$/m);
    // The same lines as the first run's, but for the mark.
    expect(second.out.replace(/ \(cached\)/g, "").replace(/; 3 from the scan cache/, "")).toBe(first.out);

    const json = await counted([...SCAN, "--output", "json"], root);
    const report = JSON.parse(json.out) as { artifacts: { path: string; cached?: { scannedAt: string } }[] };
    expect(report.artifacts.map((a) => [a.path, typeof a.cached?.scannedAt])).toEqual([
      ["jobs/deploy.sh", "string"],
      ["jobs/train.sh", "string"],
      ["tools/agent", "string"],
    ]);
    expect(json.requests).toBe(1);
  }, 60_000);

  it("check: the SARIF of the second run says which results came from the cache, and validates", async () => {
    const root = cacheRoot();
    const sarif = async () => {
      const r = await counted(["check", "--stack", "ci", "--output", "sarif"], root);
      expect(r.code, r.err).toBe(3);
      const log = JSON.parse(r.out) as SarifLog;
      expect(validateSarif(log), ajv.errorsText(validateSarif.errors)).toBe(true);
      return { log: log.runs[0], requests: r.requests };
    };
    const first = await sarif();
    expect(first.requests).toBe(3);
    expect(first.log.artifacts!.map((a) => a.properties)).toEqual([undefined, undefined, undefined]);
    expect(first.log.results.map((x) => x.properties.fromScanCache)).toEqual([undefined, undefined]);

    const second = await sarif();
    expect(second.requests).toBe(1);
    expect(second.log.artifacts!.map((a) => [a.location.uri, a.properties?.fromScanCache])).toEqual([
      ["jobs/deploy.sh", true],
      ["jobs/train.sh", true],
      ["tools/agent", true],
    ]);
    expect(second.log.results.map((x) => [x.ruleId, x.properties.fromScanCache, typeof x.properties.scannedAt])).toEqual([
      ["artifact-signature-clean", true, "string"],
      ["artifact-signature-clean", true, "string"],
    ]);
  }, 60_000);

  it("two processes at once on one cache directory: both right, every entry whole, and the next run scans nothing", async () => {
    const root = cacheRoot();
    const [a, b] = await Promise.all([stackwarden([...SCAN, "--output", "json"], root), stackwarden([...SCAN, "--output", "json"], root)]);
    for (const r of [a, b]) expect(r.code, r.err).toBe(3);
    const verdicts = (r: Run) =>
      (JSON.parse(r.out) as { artifacts: { path: string; verdict: string }[] }).artifacts.map((x) => [x.path, x.verdict]);
    expect(verdicts(a)).toEqual([
      ["jobs/deploy.sh", "matched"],
      ["jobs/train.sh", "clean"],
      ["tools/agent", "matched"],
    ]);
    expect(verdicts(b)).toEqual(verdicts(a));
    const dir = join(root, "scans");
    const names = readdirSync(dir);
    expect(names.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    const entries = names.filter((n) => n.endsWith(".json"));
    expect(entries).toHaveLength(3);
    for (const n of entries) expect(decodeEntry(readFileSync(join(dir, n), "utf8"), n.replace(/\.json$/, "")).ok, n).toBe(true);
    const third = await counted(SCAN, root);
    expect([third.code, third.requests, third.err]).toEqual([3, 1, ""]);
    expect(third.out).toMatch(/3 from the scan cache$/m);
  }, 60_000);

  it("a poisoned entry: one warning line, the artifact scanned again, the right verdict", async () => {
    const root = cacheRoot();
    await counted(SCAN, root);
    const dir = join(root, "scans");
    for (const n of readdirSync(dir).filter((x) => x.endsWith(".json"))) {
      const text = readFileSync(join(dir, n), "utf8");
      if (text.includes("stackwarden_gate_test_marker"))
        writeFileSync(join(dir, n), text.replace('"verdict":"matched"', '"verdict":"clean"'));
    }
    const r = await counted(SCAN, root);
    expect(r.code, r.err).toBe(3);
    expect(r.requests).toBe(1 + 1);
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^stackwarden: warning: scan cache: ignoring the entry .*\.json: its content does not match its integrity digest; scanning the artifact again$/,
      ),
    ]);
    expect(r.out).toMatch(/^jobs\/deploy\.sh +matched +stackwarden_gate_test_marker .*\[test_marker\]$/m);
    expect(r.out).toMatch(/; 2 from the scan cache$/m);
  }, 60_000);

  it("STACKWARDEN_SCAN_CACHE=off sends every artifact every time and writes nothing; a bad setting is one line, exit 1", async () => {
    const root = cacheRoot();
    for (let i = 0; i < 2; i++) {
      const r = await counted(SCAN, root, { STACKWARDEN_SCAN_CACHE: "off" });
      expect([r.code, r.requests]).toEqual([3, 3]);
    }
    expect(existsSync(join(root, "scans"))).toBe(false);
    const bad = await counted(SCAN, root, { STACKWARDEN_SCAN_CACHE_MAX_BYTES: "lots" });
    expect([bad.code, bad.requests, bad.out]).toEqual([1, 0, ""]);
    expect(bad.err).toBe(
      'stackwarden: SW_SETTING_INVALID: STACKWARDEN_SCAN_CACHE_MAX_BYTES: "lots" is not a size; give bytes or a number with K, M or G (e.g. 64M)\n',
    );
  }, 60_000);
});
