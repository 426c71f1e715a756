import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { GATE_MARKER as MARKER, gateProject } from "../../fixtures/estates/artifact-gate";
import { buildExecutableSample, type ExecutableSample } from "../../helpers/binary-samples";
import { runCli } from "./cli-harness";

/**
 * The artifact gate in `stackwarden check` (issue 11's "done when"), in-process against the
 * emulator: a stack whose artifacts include a file with a string a rule matches exits 3 and its
 * SARIF points at that file and offset; with the string removed it exits 0; a UPX-packed copy of a
 * dirty executable is caught through unpacking.
 */

const SUB = "00000000-0000-0000-0000-000000000000";
const sarifSchema = JSON.parse(readFileSync(join(PROJECT_ROOT, "test", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validateSarif = ajv.compile(sarifSchema);

let emu: TestEmulator;
let sample: ExecutableSample;
let project: string;
const DIRTY = `#!/bin/sh\n# nightly deployment\necho deploying # ${MARKER}\n`;
const CLEAN = "#!/bin/sh\n# nightly deployment\necho deploying\n";

/** The stack file: artifacts on lines 4-6 (the first glob's line is what a finding's source names). */
function stackText(extra = ""): string {
  return [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:artifacts:",
    "    paths:",
    "      - jobs/**/*.sh",
    "      - tools/*",
    "    rules: [rules]",
    extra,
  ].join("\n");
}

beforeAll(async () => {
  emu = await startTestEmulator();
  sample = await buildExecutableSample();
  project = gateProject("stackwarden-check-gate-", sample, ["stacks", "jobs/nightly", "tools"]);
  writeFileSync(join(project, "stacks", "Pulumi.gate.yaml"), stackText());
});
afterAll(async () => {
  await emu?.close();
  if (project) rmSync(project, { recursive: true, force: true });
  if (sample) rmSync(sample.dir, { recursive: true, force: true });
});

/** Lays out the artifacts: the job script (dirty or clean) and, optionally, the packed executable. */
function artifacts(opts: { script: string; packed?: boolean }): void {
  writeFileSync(join(project, "jobs", "nightly", "deploy.sh"), opts.script);
  rmSync(join(project, "tools", "agent"), { force: true });
  if (opts.packed) copyFileSync(sample.packed, join(project, "tools", "agent"));
}

function check(argv: string[], env: Record<string, string | undefined> = {}, cwd = project) {
  return runCli(["check", ...argv], emu.url, cwd, { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`, ...env });
}

interface SarifLog {
  runs: {
    artifacts?: { location: { uri: string }; hashes?: Record<string, string> }[];
    results: {
      ruleId: string;
      level: string;
      message: { text: string };
      locations: {
        physicalLocation: { artifactLocation: { uri: string; index?: number }; region?: Record<string, number> };
        logicalLocations: { fullyQualifiedName: string }[];
      }[];
      relatedLocations?: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[];
      partialFingerprints: Record<string, string>;
      suppressions?: unknown[];
      properties: Record<string, unknown>;
    }[];
  }[];
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("check with stackwarden:artifacts", () => {
  it("a file with a string a rule matches: exit 3, and the SARIF points at that file and the string's offset", async () => {
    artifacts({ script: DIRTY });
    const r = await check(["--config", "stacks/Pulumi.gate.yaml", "--format", "sarif", "--out", "gate.sarif"]);
    expect(r.code, r.err).toBe(3);
    expect(r.err.split("\n")).toEqual([
      'stackwarden check: warning: stackwarden:artifacts.paths "tools/*" matches no file',
      "stackwarden check: wrote sarif report to gate.sarif (1 mandatory, 0 advisory)",
    ]);
    const log = JSON.parse(readFileSync(join(project, "gate.sarif"), "utf8")) as SarifLog;
    expect(validateSarif(log), ajv.errorsText(validateSarif.errors)).toBe(true);
    const run = log.runs[0];
    expect(run.results).toHaveLength(1);
    const [res] = run.results;
    const offset = DIRTY.indexOf(MARKER);
    expect(res).toMatchObject({
      ruleId: "artifact-signature-clean",
      level: "error",
      message: {
        text: `Artifact jobs/nightly/deploy.sh must not match signature rule stackwarden_gate_test_marker (rules/test-markers.yar): matched at offset 0x${offset.toString(16)}`,
      },
      properties: { signatureRule: "stackwarden_gate_test_marker", offset, offsetIn: "file", tags: ["test_marker"] },
    });
    const loc = res.locations[0];
    expect(loc.physicalLocation.artifactLocation.uri).toBe("jobs/nightly/deploy.sh");
    expect(loc.physicalLocation.region).toEqual({ byteOffset: offset, byteLength: MARKER.length });
    expect(loc.logicalLocations[0].fullyQualifiedName).toBe("artifact:jobs/nightly/deploy.sh");
    // The file as scanned is listed with its hash; the result refers to it by index.
    const idx = loc.physicalLocation.artifactLocation.index!;
    expect(run.artifacts![idx]).toEqual({
      location: { uri: "jobs/nightly/deploy.sh" },
      hashes: { "sha-256": sha256(join(project, "jobs", "nightly", "deploy.sh")) },
    });
    // The stack file's line of the glob that named it is a related location.
    expect(res.relatedLocations![0].physicalLocation).toMatchObject({
      artifactLocation: { uri: "stacks/Pulumi.gate.yaml" },
      region: { startLine: 5 },
    });
    expect(res.partialFingerprints["stackwardenFinding/v1"]).toMatch(/^[0-9a-f]{64}$/);
  });

  it("with the string removed: exit 0, and the artifact is listed as scanned with its hash", async () => {
    artifacts({ script: CLEAN });
    const r = await check(["--config", "stacks/Pulumi.gate.yaml", "--format", "sarif"]);
    expect(r.code, r.err).toBe(0);
    const log = JSON.parse(r.out) as SarifLog;
    expect(validateSarif(log), ajv.errorsText(validateSarif.errors)).toBe(true);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].artifacts).toEqual([
      { location: { uri: "jobs/nightly/deploy.sh" }, hashes: { "sha-256": sha256(join(project, "jobs", "nightly", "deploy.sh")) } },
    ]);
  });

  it("a UPX-packed copy of a dirty executable is caught through unpacking; the SARIF has no byte region, and says why", async () => {
    artifacts({ script: CLEAN, packed: true });
    // Packing hides the marker: the packed bytes do not carry it.
    expect(readFileSync(sample.packed).includes(Buffer.from(sample.marker))).toBe(false);
    const r = await check(["--config", "stacks/Pulumi.gate.yaml", "--format", "sarif"]);
    expect(r.code, r.err).toBe(3);
    const log = JSON.parse(r.out) as SarifLog;
    expect(validateSarif(log), ajv.errorsText(validateSarif.errors)).toBe(true);
    const [res] = log.runs[0].results;
    expect(res.ruleId).toBe("artifact-signature-clean");
    const unpackedOffset = readFileSync(sample.exe).indexOf(sample.marker);
    expect(res.message.text).toMatch(
      new RegExp(
        `^Artifact tools/agent must not match signature rule sample_exe_marker \\(rules/sample\\.yar\\): matched at offset 0x${unpackedOffset.toString(16)} of its unpacked content \\(packed with UPX 3\\.\\d+\\), not of the file itself$`,
      ),
    );
    expect(res.properties).toMatchObject({ offset: unpackedOffset, offsetIn: "unpacked-content", packer: expect.stringMatching(/^UPX/) });
    expect(res.locations[0].physicalLocation.artifactLocation.uri).toBe("tools/agent");
    expect(res.locations[0].physicalLocation.region).toBeUndefined();
    expect(log.runs[0].artifacts!.map((a) => a.location.uri)).toEqual(["jobs/nightly/deploy.sh", "tools/agent"]);
  });

  it("the table and JSON name the artifact, the rule and the offset; an exemption by artifact:<path> suppresses it", async () => {
    artifacts({ script: DIRTY });
    const table = await check(["--config", "stacks/Pulumi.gate.yaml"]);
    expect(table.code).toBe(3);
    const offset = DIRTY.indexOf(MARKER);
    expect(table.out.split("\n")).toContain(
      `  FAIL  artifact-signature-clean  jobs/nightly/deploy.sh  Artifact jobs/nightly/deploy.sh must not match signature rule stackwarden_gate_test_marker (rules/test-markers.yar): matched at offset 0x${offset.toString(16)}`,
    );
    const json = await check(["--config", "stacks/Pulumi.gate.yaml", "--output", "json"]);
    const doc = JSON.parse(json.out) as { findings: Record<string, unknown>[] };
    expect(doc.findings.find((f) => f.verdict === "fail")).toMatchObject({
      ruleId: "artifact-signature-clean",
      resourceId: "artifact:jobs/nightly/deploy.sh",
      line: 5,
      location: {
        file: "jobs/nightly/deploy.sh",
        byteOffset: offset,
        byteLength: MARKER.length,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      properties: { signatureRule: "stackwarden_gate_test_marker", ruleFile: "rules/test-markers.yar", offset },
    });

    const exempt = [
      "  stackwarden:exemptions:",
      "    - resourceId: artifact:jobs/nightly/deploy.sh",
      "      rules: [artifact-signature-clean]",
      "      reason: CHG-42 the marker is a fixture",
      "      expires: 2099-12-31",
    ].join("\n");
    writeFileSync(join(project, "stacks", "Pulumi.exempt.yaml"), stackText(exempt));
    const r = await check(["--config", "stacks/Pulumi.exempt.yaml", "--format", "sarif"]);
    expect(r.code, r.err).toBe(0);
    const log = JSON.parse(r.out) as SarifLog;
    expect(log.runs[0].results.map((x) => [x.ruleId, x.suppressions])).toEqual([
      ["artifact-signature-clean", [{ kind: "external", status: "accepted", justification: "CHG-42 the marker is a fixture" }]],
    ]);
    // An exemption names the path exactly: another case is another file.
    writeFileSync(join(project, "stacks", "Pulumi.exempt.yaml"), stackText(exempt.replace("jobs/nightly", "Jobs/Nightly")));
    expect((await check(["--config", "stacks/Pulumi.exempt.yaml"])).code).toBe(3);
  });

  it("the embedded engine (STACKWARDEN_BINARY_ANALYSIS_ENDPOINT=embedded) gives the same verdicts", async () => {
    artifacts({ script: DIRTY, packed: true });
    const viaEmulator = await check(["--config", "stacks/Pulumi.gate.yaml", "--output", "json"]);
    const embedded = await check(["--config", "stacks/Pulumi.gate.yaml", "--output", "json"], {
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "embedded",
    });
    expect(embedded.code, embedded.err).toBe(3);
    const strip = (text: string) => (JSON.parse(text) as { findings: unknown[] }).findings;
    expect(strip(embedded.out)).toEqual(strip(viaEmulator.out));
    expect(strip(embedded.out)).toHaveLength(4); // 2 artifacts × 2 rules, both signature findings failing
  });

  it("an artifact that cannot be scanned: the report shows it not applicable, stderr says why, exit 1", async () => {
    artifacts({ script: CLEAN });
    const small = await startTestEmulator({ seed: { binaryAnalysis: { maxUploadBytes: 10 } } });
    try {
      // Not-applicable findings are listed on request (`--show not-applicable`); stderr names the artifact either way.
      const r = await check(["--config", "stacks/Pulumi.gate.yaml", "--show", "not-applicable"], {
        STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${small.url}/binary-analysis/v1`,
      });
      expect(r.code).toBe(1);
      expect(r.out).toMatch(
        /N\/A\s+artifact-signature-clean\s+jobs\/nightly\/deploy\.sh\s+the artifact could not be scanned, so it is not known to be clean: .*413/,
      );
      expect(r.err.split("\n")).toEqual([
        'stackwarden check: warning: stackwarden:artifacts.paths "tools/*" matches no file',
        expect.stringMatching(
          /^stackwarden check: SW_ARTIFACT_NOT_SCANNED: artifact jobs\/nightly\/deploy\.sh could not be scanned: .*HTTP 413 PayloadTooLarge/,
        ),
      ]);
    } finally {
      await small.close();
    }
  });

  it("no binary analysis endpoint: one line naming the variable and the stack's key, nothing read", async () => {
    artifacts({ script: DIRTY });
    const before = emu.emu.stats.total;
    const r = await check(["--config", "stacks/Pulumi.gate.yaml"], { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: undefined });
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err.split("\n")).toEqual([
      "stackwarden: SW_SETTING_INVALID: the stack names artifacts to scan in stackwarden:artifacts (stacks/Pulumi.gate.yaml:4), but STACKWARDEN_BINARY_ANALYSIS_ENDPOINT is not set: point it at the binary analysis service, e.g. <emulator url>/binary-analysis/v1 (start one with: npx stackwarden emulator, then export STACKWARDEN_EMULATOR=<its url>), or set it to embedded to scan with the built-in engine (YARA-X and UPX) in this process",
    ]);
    expect(emu.emu.stats.total).toBe(before);
  });

  it("with both artifact rules disabled nothing is scanned and no endpoint is needed; a glob matching nothing is a warning", async () => {
    artifacts({ script: DIRTY });
    const off =
      "  stackwarden:policies:\n    artifact-signature-clean: { enforcementLevel: disabled }\n    artifact-packed: { enforcementLevel: disabled }\n";
    writeFileSync(join(project, "stacks", "Pulumi.off.yaml"), stackText(off));
    const r = await check(["--config", "stacks/Pulumi.off.yaml"], { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: undefined });
    expect([r.code, r.err]).toEqual([0, ""]);
    // tools/* matches nothing without the packed copy.
    const warned = await check(["--config", "stacks/Pulumi.gate.yaml"]);
    expect(warned.err).toBe('stackwarden check: warning: stackwarden:artifacts.paths "tools/*" matches no file');
  });

  it("a rule file that does not compile: exit 1, one line naming it", async () => {
    artifacts({ script: CLEAN });
    writeFileSync(join(project, "rules", "zz-broken.yar"), "rule broken { condition: nonsense }\n");
    try {
      const r = await check(["--config", "stacks/Pulumi.gate.yaml"]);
      expect(r.code).toBe(1);
      expect(r.err.split("\n")).toEqual([expect.stringMatching(/^stackwarden: .*rules\/zz-broken\.yar.* does not compile/)]);
    } finally {
      rmSync(join(project, "rules", "zz-broken.yar"));
    }
  });
});

describe("check --stack dev (the example stack's job scripts)", () => {
  it("scans the clean job scripts and flags only what the estate's databases do", async () => {
    const estate = await startTestEmulator({ seed: loadSeedFile(join(PROJECT_ROOT, "stacks", "dev.estate.yaml"), LOCAL_SERVICES) });
    let r;
    try {
      r = await check(
        ["--stack", "dev", "--output", "json"],
        {
          STACKWARDEN_ARM_ENDPOINT: estate.url,
          STACKWARDEN_IMDS_ENDPOINT: estate.imdsEndpoint,
          STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${estate.url}/binary-analysis/v1`,
          // dev sets stackwarden:residency: its placements are read from the estate's geocoding service.
          STACKWARDEN_GEOCODING_ENDPOINT: `${estate.url}/geocoding`,
        },
        PROJECT_ROOT,
      );
    } finally {
      await estate.close();
    }
    expect(r.code, r.err).toBe(3);
    const doc = JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; label: string }[] };
    const fails = doc.findings.filter((f) => f.verdict === "fail" && f.ruleId === "sql-tde-enabled");
    // billing is listed by no stack: the dev stack's scope finds it.
    expect(fails.map((f) => f.label).sort()).toEqual([
      "rg-data/sql-prod-1/orders",
      "rg-data/sql-prod-2/audit",
      "rg-data/sql-prod-2/billing",
    ]);
    const artifactFindings = doc.findings.filter((f) => f.ruleId.startsWith("artifact-"));
    expect(artifactFindings.map((f) => `${f.ruleId} ${f.label} ${f.verdict}`).sort()).toEqual([
      "artifact-packed stacks/dev/jobs/resnet50/submit.sh pass",
      "artifact-packed stacks/dev/jobs/resnet50/train.py pass",
      "artifact-signature-clean stacks/dev/jobs/resnet50/submit.sh pass",
      "artifact-signature-clean stacks/dev/jobs/resnet50/train.py pass",
    ]);
  });
});
