import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectDirOf, resolveArtifacts, scanArtifacts, type ArtifactScanReport } from "../../../src/domain/artifacts/artifact-gate";
import { localArtifactFiles } from "../../../src/platform/files/artifact-files";
import { artifactFactsOf } from "../../../src/domain/facts/artifact-scans";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { artifactPacked } from "../../../src/domain/compliance/rules/artifact-packed";
import { artifactSignatureClean } from "../../../src/domain/compliance/rules/artifact-signature-clean";
import { loadRuleSet } from "../../../src/domain/artifacts/rule-set";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";
import { ApiError } from "../../../src/platform/http";
import { BinaryAnalysisClient } from "../../../src/services/binary-analysis/client";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { GATE_MARKER } from "../../fixtures/estates/artifact-gate";
import { buildExecutableSample, markerRule, tempDir, type ExecutableSample } from "../../helpers/binary-samples";
import { buildPe } from "../../helpers/pe-builder";

let emu: TestEmulator;
let client: BinaryAnalysisClient;
let sample: ExecutableSample;
let project: string;

const stackText = `config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:artifacts:\n    paths: [jobs/**/*.sh, tools/bin/*, missing/*.bin]\n    rules: [stacks/gate/signatures, rules/sample.yar]\n`;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = new BinaryAnalysisClient({ endpoint: `${emu.url}/binary-analysis/v1` });
  sample = await buildExecutableSample();
  project = tempDir("stackwarden-gate-");
  for (const d of ["stacks/gate/signatures", "jobs/nightly", "tools/bin", "rules"]) mkdirSync(join(project, d), { recursive: true });
  writeFileSync(join(project, "Pulumi.yaml"), "name: gate-test\nruntime: nodejs\n");
  writeFileSync(join(project, "stacks", "Pulumi.gate.yaml"), stackText);
  // The repository's sample rules in the stack's own folder (as the dev stack keeps them), and one for the sample executable's marker.
  for (const f of ["test-markers.yar", "shipping-hygiene.yar"])
    copyFileSync(join(PROJECT_ROOT, "stacks", "dev", "signatures", f), join(project, "stacks", "gate", "signatures", f));
  writeFileSync(join(project, "rules", "sample.yar"), markerRule("sample_exe_marker", sample.marker));
  writeFileSync(join(project, "jobs", "nightly", "deploy.sh"), `#!/bin/sh\necho deploying\n# ${GATE_MARKER}\n`);
  writeFileSync(join(project, "jobs", "clean.sh"), "#!/bin/sh\necho fine\n");
  copyFileSync(sample.packed, join(project, "tools", "bin", "agent"));
  writeFileSync(join(project, "tools", "bin", "legacy.exe"), buildPe({ sectionNames: [".text", ".aspack"], text: "nothing to see" }));
  const packed = readFileSync(sample.packed);
  writeFileSync(join(project, "tools", "bin", "broken"), packed.subarray(0, packed.length - 300));
});
afterAll(async () => {
  await emu.close();
  rmSync(project, { recursive: true, force: true });
  rmSync(sample.dir, { recursive: true, force: true });
});

/** A scan through the emulator's service on this machine's disk, without a scan cache. */
const scan = (opts: Omit<Parameters<typeof scanArtifacts>[0], "client" | "artifactFiles" | "warn"> & { client?: BinaryAnalysisClient }) =>
  scanArtifacts({ client, artifactFiles: localArtifactFiles, warn: () => {}, ...opts });

async function scanStack(): Promise<ArtifactScanReport> {
  const stack = parseStackConfig(join(project, "stacks", "Pulumi.gate.yaml"), stackText, {});
  const base = projectDirOf(localArtifactFiles, stack.file);
  expect(base).toBe(project);
  const r = resolveArtifacts(localArtifactFiles, stack.artifacts!, base);
  return scan({ ruleSet: r.ruleSet, files: r.files, baseDir: base, unmatchedPaths: r.unmatchedPaths });
}

describe("the artifact gate", () => {
  it("judges each artifact of a stack: matches with rule and offset, a packed file through unpacking, packers it cannot undo", async () => {
    const report = await scanStack();
    expect(report.unmatchedPaths).toEqual(["missing/*.bin"]);
    expect(report.ruleFiles).toEqual([
      "stacks/gate/signatures/shipping-hygiene.yar",
      "stacks/gate/signatures/test-markers.yar",
      "rules/sample.yar",
    ]);
    expect(report.rulesDigest).toBe(loadRuleSet(localArtifactFiles, project, ["stacks/gate/signatures", "rules/sample.yar"]).digest);
    const byPath = Object.fromEntries(report.artifacts.map((a) => [a.path, a]));
    expect(Object.keys(byPath)).toEqual([
      "jobs/clean.sh",
      "jobs/nightly/deploy.sh",
      "tools/bin/agent",
      "tools/bin/broken",
      "tools/bin/legacy.exe",
    ]);

    const deploy = byPath["jobs/nightly/deploy.sh"];
    expect(deploy.verdict).toBe("matched");
    expect(deploy.matches).toEqual([
      {
        rule: "stackwarden_gate_test_marker",
        ruleFile: "stacks/gate/signatures/test-markers.yar",
        tags: ["test_marker"],
        meta: expect.objectContaining({ author: "stackwarden", severity: "high" }),
        strings: [
          { identifier: "$marker", offset: readFileSync(deploy.absolutePath, "latin1").indexOf(GATE_MARKER), length: GATE_MARKER.length },
        ],
        offset: readFileSync(deploy.absolutePath, "latin1").indexOf(GATE_MARKER),
        length: GATE_MARKER.length,
      },
    ]);
    expect(deploy.sha256).toMatch(/^[0-9a-f]{64}$/);

    expect(byPath["jobs/clean.sh"]).toMatchObject({ verdict: "clean", matches: [], scannedUnpacked: false });

    const agent = byPath["tools/bin/agent"];
    expect(agent).toMatchObject({ verdict: "matched", scannedUnpacked: true, packer: { name: "UPX" } });
    expect(agent.matches.map((m) => [m.rule, m.offset])).toEqual([["sample_exe_marker", readFileSync(sample.exe).indexOf(sample.marker)]]);

    expect(byPath["tools/bin/broken"]).toMatchObject({ verdict: "packed-not-unpackable", scannedUnpacked: false, packer: { name: "UPX" } });
    expect(byPath["tools/bin/broken"].unpackError).toMatch(/could not be unpacked: \w+Exception/);
    expect(byPath["tools/bin/legacy.exe"]).toMatchObject({
      verdict: "packed-not-unpackable",
      packer: { name: "ASPack" },
      unpackError: "ASPack cannot be unpacked here (only UPX can)",
    });

    // The report in the rules' terms, judged by the two artifact rules.
    const judged = evaluateCompliance(
      { ...emptyFacts(""), artifacts: report.artifacts.map((a) => artifactFactsOf(a, report.rulesDigest)) },
      resolveRuleSettings({}),
      [],
      0,
    ).findings;
    const failures = (rule: { id: string }) => judged.filter((f) => f.ruleId === rule.id && f.verdict === "fail");
    expect(failures(artifactSignatureClean).map((f) => f.message)).toEqual([
      `Artifact jobs/nightly/deploy.sh must not match signature rule stackwarden_gate_test_marker (stacks/gate/signatures/test-markers.yar): matched at offset 0x${deploy.matches[0].offset!.toString(16)}`,
      expect.stringMatching(
        new RegExp(
          `^Artifact tools/bin/agent must not match signature rule sample_exe_marker \\(rules/sample\\.yar\\): matched at offset 0x${agent.matches[0].offset!.toString(16)} of its unpacked content \\(packed with UPX 3\\.\\d+\\), not of the file itself$`,
        ),
      ),
    ]);
    expect(failures(artifactPacked).map((f) => [f.label, f.properties?.packer])).toEqual([
      ["tools/bin/broken", expect.stringMatching(/^UPX 3\./)],
      ["tools/bin/legacy.exe", "ASPack"],
    ]);
    expect(report.artifacts.filter((a) => a.verdict === "error")).toEqual([]);
  });

  it("passes the artifact once the string is removed", async () => {
    const deploy = join(project, "jobs", "nightly", "deploy.sh");
    const before = readFileSync(deploy, "utf8");
    writeFileSync(deploy, "#!/bin/sh\necho deploying\n");
    try {
      const report = await scanStack();
      expect(report.artifacts.find((a) => a.path === "jobs/nightly/deploy.sh")).toMatchObject({ verdict: "clean", matches: [] });
    } finally {
      writeFileSync(deploy, before);
    }
  });

  it("stops at a rule file that does not compile, naming it", async () => {
    const bad = join(project, "rules", "broken.yar");
    writeFileSync(bad, "rule broken { condition: nonsense }\n");
    try {
      const ruleSet = loadRuleSet(localArtifactFiles, project, ["rules"]);
      const e = await scan({ ruleSet, files: [join(project, "jobs", "clean.sh")], baseDir: project }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ApiError);
      expect((e as Error).message).toContain("rule source rules/broken.yar (rules[0]) does not compile (in rule broken, line 1");
    } finally {
      rmSync(bad);
    }
  });

  it("records a file the service refuses as that artifact's error", async () => {
    const limited = await startTestEmulator({ seed: { binaryAnalysis: { maxUploadBytes: 10 } } });
    try {
      const report = await scan({
        client: new BinaryAnalysisClient({ endpoint: `${limited.url}/binary-analysis/v1` }),
        ruleSet: loadRuleSet(localArtifactFiles, project, ["rules/sample.yar"]),
        files: [join(project, "jobs", "clean.sh")],
        baseDir: project,
      });
      expect(report.artifacts[0]).toMatchObject({ verdict: "error", path: "jobs/clean.sh" });
      expect(report.artifacts[0].error).toContain("HTTP 413 PayloadTooLarge");
      expect(artifactFactsOf(report.artifacts[0], report.rulesDigest)).toMatchObject({
        verdict: "error",
        scanError: expect.stringContaining("413"),
      });
    } finally {
      await limited.close();
    }
  });
});
