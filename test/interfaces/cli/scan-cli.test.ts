import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { GATE_MARKER } from "../../fixtures/estates/artifact-gate";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { buildExecutableSample, markerRule, tempDir, type ExecutableSample } from "../../helpers/binary-samples";
import { runCliWith } from "./cli-harness";

let emu: TestEmulator;
let sample: ExecutableSample;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  sample = await buildExecutableSample();
  dir = tempDir("stackwarden-scan-cli-");
  mkdirSync(join(dir, "rules"));
  writeFileSync(join(dir, "rules", "sample.yar"), markerRule("sample_exe_marker", sample.marker));
  copyFileSync(join(PROJECT_ROOT, "stacks", "dev", "signatures", "test-markers.yar"), join(dir, "rules", "test-markers.yar"));
  writeFileSync(join(dir, "dirty.sh"), `echo hi # ${GATE_MARKER}\n`);
  writeFileSync(join(dir, "clean.sh"), "echo hi\n");
  copyFileSync(sample.packed, join(dir, "agent"));
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(sample.dir, { recursive: true, force: true });
});

/** The CLI in the scan directory, with the binary analysis service and no ARM endpoint. */
const run = (argv: string[], env: Record<string, string | undefined> = {}) =>
  runCliWith(argv, {
    cwd: dir,
    env: { PATH: process.env.PATH, STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`, ...env },
  });

describe("stackwarden scan", () => {
  it("exits 0 when every file is clean", async () => {
    const r = await run(["scan", "clean.sh", "--rules", "rules"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ARTIFACT +VERDICT +DETAIL\nclean\.sh +clean +sha256 [0-9a-f]{64}\n1 artifact\(s\): 0 matched/);
  });

  it("exits 3 on a match, also one found only by unpacking, naming rule, file and offset", async () => {
    const r = await run(["scan", "clean.sh", "dirty.sh", "agent", "--rules", "rules"]);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/dirty\.sh +matched +stackwarden_gate_test_marker \(rules\/test-markers\.yar\) at 0xa \[test_marker\]/);
    expect(r.out).toMatch(/agent +matched +sample_exe_marker \(rules\/sample\.yar\) at 0x[0-9a-f]+ \(unpacked content\) \[sample\]/);
    const json = await run(["scan", "agent", "--rules", "rules/sample.yar", "--output", "json"]);
    expect(json.code).toBe(3);
    const report = JSON.parse(json.out) as {
      artifacts: { path: string; verdict: string; scannedUnpacked: boolean }[];
      ruleFiles: string[];
    };
    expect(report.ruleFiles).toEqual(["rules/sample.yar"]);
    expect(report.artifacts).toMatchObject([{ path: "agent", verdict: "matched", scannedUnpacked: true }]);
  });

  it("scans a stack's artifacts with its rules when given --stack and no files", async () => {
    const project = tempDir("stackwarden-scan-stack-");
    try {
      mkdirSync(join(project, "stacks"));
      mkdirSync(join(project, "bin"));
      writeFileSync(join(project, "Pulumi.yaml"), "name: p\nruntime: nodejs\n");
      copyFileSync(join(dir, "rules", "sample.yar"), join(project, "sample.yar"));
      copyFileSync(sample.packed, join(project, "bin", "agent"));
      writeFileSync(
        join(project, "stacks", "Pulumi.ci.yaml"),
        "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:artifacts:\n    paths: [bin/*, nothing/*]\n    rules: [sample.yar]\n",
      );
      const r = await run(["scan", "--config", join(project, "stacks", "Pulumi.ci.yaml")]);
      expect(r.code).toBe(3);
      expect(r.out).toMatch(/^bin\/agent +matched +sample_exe_marker \(sample\.yar\)/m);
      expect(r.err).toBe('stackwarden scan: warning: stackwarden:artifacts.paths "nothing/*" matches no file');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it.each([
    [["scan", "nope.bin", "--rules", "rules"], {}, "stackwarden: nope.bin: no such file"],
    [["scan", "clean.sh"], {}, "stackwarden: which rules? give --rules PATH (a .yar file or a folder of them)"],
    [["scan"], {}, "stackwarden: what to scan? give FILEs, or --stack NAME to scan the stack's stackwarden:artifacts"],
    [["scan", "clean.sh", "--rules", "missing.yar"], {}, `stackwarden: --rules[0]: missing.yar does not exist (relative to ${"DIR"})`],
    [
      ["scan", "clean.sh", "--rules", "rules", "--output", "xml"],
      {},
      "stackwarden scan: option '--output <format>' argument 'xml' is invalid. expected one of table, json, got \"xml\" (see stackwarden scan --help)",
    ],
    [
      ["scan", "clean.sh", "--rules", "rules"],
      { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "" },
      "stackwarden: STACKWARDEN_BINARY_ANALYSIS_ENDPOINT is not set",
    ],
    [
      ["scan", "clean.sh", "--rules", "rules"],
      { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "ftp://x" },
      'STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "ftp:" URLs are not supported',
    ],
  ] as [string[], Record<string, string>, string][])("exits 1 with one line: %j", async (argv, env, message) => {
    const r = await run(argv, env);
    expect(r.code).toBe(1);
    expect(r.err.split("\n")).toHaveLength(1);
    expect(r.err).toContain(message.replace("DIR", dir));
  });

  it("exits 1 when an artifact cannot be scanned, and says why", async () => {
    const r = await run(["scan", "clean.sh", "--rules", "rules"], {
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "http://127.0.0.1:1/binary-analysis/v1",
    });
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/clean\.sh +error +ApplyYaraRules failed: ECONNREFUSED/);
    expect(r.err).toMatch(/^stackwarden scan: clean\.sh: ApplyYaraRules failed: ECONNREFUSED/);
  });

  it("has --help", async () => {
    const r = await run(["scan", "--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("--rules <paths...>");
  });
});

describe("stackwarden rules generate", () => {
  it("prints a partial rule without a condition", async () => {
    const r = await run(["rules", "generate", "agent", "--unpack"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^rule partial_agent\n\{\n {2}meta:\n {4}date = "/);
    expect(r.out).toContain(`"${sample.marker}"`);
    expect(r.out).not.toContain("condition");
    const json = await run(["rules", "generate", "clean.sh", "--output", "json", "--min-length", "3"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ rule: { name: "partial_clean_sh", strings: [["ascii_0", "echo hi"]] } });
  });

  it("exits 1 with one line for a missing file or a refused request", async () => {
    const missing = await run(["rules", "generate", "nope"]);
    expect([missing.code, missing.err]).toEqual([1, "stackwarden: nope: no such file"]);
    const refused = await run(["rules", "generate", "clean.sh", "--min-length", "0"]);
    expect(refused.code).toBe(1);
    expect(refused.err.split("\n")).toHaveLength(1);
  });
});
