import { createHash } from "node:crypto";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRuleSet } from "../../src/domain/artifacts/rule-set";
import { scanArtifactInputs } from "../../src/interfaces/pulumi/artifact-scan-resource";
import { TYPES } from "../helpers/carrier-types";
import { PolicyAnalyzer, UNKNOWN_VALUE, type Level } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { GATE_MARKER as MARKER, gateProject } from "../fixtures/estates/artifact-gate";
import { buildExecutableSample, type ExecutableSample } from "../helpers/binary-samples";
import { buildPe } from "../helpers/pe-builder";
import { runCli } from "../interfaces/cli/cli-harness";
import { localArtifactFiles } from "../../src/platform/files/artifact-files";

/**
 * The artifact policies of the pack, as the Pulumi engine runs it (a child process over gRPC), fed
 * ArtifactScan resources whose properties the provider's own scan produced; and their parity with
 * `check` on the same files: the same violations, levels and messages.
 */

let analyzer: PolicyAnalyzer;
let emu: TestEmulator;
let sample: ExecutableSample;
let project: string;
const PATHS = ["jobs/clean.sh", "jobs/dirty.sh", "tools/agent", "tools/legacy.exe"];

beforeAll(async () => {
  emu = await startTestEmulator();
  analyzer = await PolicyAnalyzer.start();
  sample = await buildExecutableSample();
  project = gateProject("stackwarden-pack-artifacts-", sample, ["stacks", "jobs", "tools"]);
  writeFileSync(join(project, "jobs", "clean.sh"), "#!/bin/sh\necho clean\n");
  writeFileSync(join(project, "jobs", "dirty.sh"), `#!/bin/sh\necho dirty # ${MARKER}\n`);
  copyFileSync(sample.packed, join(project, "tools", "agent"));
  writeFileSync(join(project, "tools", "legacy.exe"), buildPe({ sectionNames: [".text", ".aspack"], text: "nothing to see" }));
  writeFileSync(
    join(project, "stacks", "Pulumi.gate.yaml"),
    `config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:artifacts:\n    paths: [jobs/*.sh, tools/*]\n    rules: [rules]\n`,
  );
});
afterAll(async () => {
  await analyzer?.stop();
  await emu?.close();
  if (project) rmSync(project, { recursive: true, force: true });
  if (sample) rmSync(sample.dir, { recursive: true, force: true });
});

async function configure(levels: Partial<Record<string, Level>> = {}, properties: Record<string, Record<string, unknown>> = {}) {
  const defaults: Record<string, Level> = {
    "sql-tde-enabled": "mandatory",
    "sql-tier-advisor-drift": "advisory",
    "batch-quota-headroom": "advisory",
    "artifact-signature-clean": "mandatory",
    "artifact-packed": "advisory",
  };
  await analyzer.configure(
    Object.fromEntries(
      Object.entries(defaults).map(([n, l]) => [n, { enforcementLevel: levels[n] ?? l, properties: properties[n] ?? {} }]),
    ),
  );
}

/** An ArtifactScan's properties as the provider's check/create give them (the provider's own scan). */
async function scanned(path: string): Promise<Record<string, unknown>> {
  const sha256 = createHash("sha256")
    .update(readFileSync(join(project, path)))
    .digest("hex");
  const inputs = { path, sha256, rulesDigest: loadRuleSet(localArtifactFiles, project, ["rules"]).digest, rules: ["rules"] };
  return { ...(await scanArtifactInputs(inputs, { STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1` }, project)) };
}
const resource = (path: string, props: Record<string, unknown>) => ({ type: TYPES.artifactScan, name: `artifact-${path}`, props });

describe("Analyze: the artifact policies on ArtifactScan resources", () => {
  it("a dirty file is a mandatory artifact-signature-clean violation on its resource, naming rule and offset", async () => {
    await configure();
    const v = await analyzer.analyze(resource("jobs/dirty.sh", await scanned("jobs/dirty.sh")));
    const offset = readFileSync(join(project, "jobs", "dirty.sh"), "latin1").indexOf(MARKER);
    // A resource policy reports on the resource being analyzed (the engine fills in its URN).
    expect(v.map((x) => [x.policyName, x.enforcementLevel, x.detail])).toEqual([
      [
        "artifact-signature-clean",
        "mandatory",
        `Artifact jobs/dirty.sh must not match signature rule stackwarden_gate_test_marker (rules/test-markers.yar): matched at offset 0x${offset.toString(16)}`,
      ],
    ]);
    expect(await analyzer.analyze(resource("jobs/clean.sh", await scanned("jobs/clean.sh")))).toEqual([]);
  });

  it("a packed file it could not unpack is an advisory artifact-packed violation", async () => {
    await configure();
    const v = await analyzer.analyze(resource("tools/legacy.exe", await scanned("tools/legacy.exe")));
    expect(v.map((x) => [x.policyName, x.enforcementLevel, x.detail])).toEqual([
      [
        "artifact-packed",
        "advisory",
        "Artifact tools/legacy.exe is packed (ASPack) and must be unpackable to be scanned: ASPack cannot be unpacked here (only UPX can)",
      ],
    ]);
  });

  it("a verdict not known yet gives no violation; an exemption by artifact:<path> in the config silences one", async () => {
    await configure();
    const props = await scanned("jobs/dirty.sh");
    expect(await analyzer.analyze(resource("jobs/dirty.sh", { ...props, verdict: UNKNOWN_VALUE, matches: UNKNOWN_VALUE }))).toEqual([]);
    await configure(
      {},
      { "artifact-signature-clean": { exemptions: [{ resourceId: "artifact:jobs/dirty.sh", reason: "fixture", expires: "2099-01-31" }] } },
    );
    expect(await analyzer.analyze(resource("jobs/dirty.sh", props))).toEqual([]);
    await configure({ "artifact-signature-clean": "advisory" });
    expect((await analyzer.analyze(resource("jobs/dirty.sh", props))).map((x) => x.enforcementLevel)).toEqual(["advisory"]);
    await configure();
  });
});

describe("parity: the pack and check judge the same artifacts alike", () => {
  it("same violations, levels and messages, the packed executable's match through unpacking included", async () => {
    const r = await runCli(["check", "--config", "stacks/Pulumi.gate.yaml", "--output", "json"], emu.url, project, {
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`,
    });
    expect(r.code).toBe(3);
    const doc = JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; message: string }[] };
    const fromCheck = doc.findings
      .filter((f) => f.verdict === "fail")
      .map((f) => `${f.ruleId} ${f.level}: ${f.message}`)
      .sort();

    await configure();
    const violations = [];
    for (const path of PATHS) violations.push(...(await analyzer.analyze(resource(path, await scanned(path)))));
    const fromPack = violations.map((v) => `${v.policyName} ${v.enforcementLevel}: ${v.detail}`).sort();
    expect(fromPack).toEqual(fromCheck);
    expect(fromCheck.map((l) => l.replace(/:.*/, ""))).toEqual([
      "artifact-packed advisory",
      "artifact-signature-clean mandatory",
      "artifact-signature-clean mandatory",
    ]);
    expect(fromCheck.some((l) => l.includes("Artifact tools/agent") && l.includes("of its unpacked content"))).toBe(true);
  });
});
