import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import type { ArtifactFacts } from "../../../src/domain/facts/artifact-scans";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { renderSarif } from "../../../src/domain/reports/sarif-report";
import { NOW } from "./report-fixture";

/** SARIF for artifact findings: the artifact file (with byte region when known), run.artifacts with hashes, stable fingerprints. */
const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as object;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

const sha = (c: string) => c.repeat(64);
const STACK = "stacks/Pulumi.ci.yaml";

function artifacts(): ArtifactFacts[] {
  const base = { rulesDigest: sha("f"), source: { file: STACK, line: 9, column: 9 } };
  return [
    {
      ...base,
      path: "jobs/deploy.sh",
      sha256: sha("1"),
      verdict: "matched",
      scannedUnpacked: false,
      matches: [
        { rule: "marker", ruleFile: "rules/a.yar", tags: ["t"], offset: 48, length: 33, inUnpackedContent: false },
        { rule: "key_header", ruleFile: "rules/a.yar", tags: [], offset: 100, length: 10, inUnpackedContent: false },
      ],
    },
    {
      ...base,
      path: "tools/agent",
      sha256: sha("2"),
      verdict: "matched",
      packer: "UPX 3.94",
      scannedUnpacked: true,
      matches: [{ rule: "marker", ruleFile: "rules/a.yar", tags: [], offset: 0x2000, length: 33, inUnpackedContent: true }],
    },
    {
      ...base,
      path: "tools/legacy.exe",
      sha256: sha("3"),
      verdict: "packed-not-unpackable",
      packer: "ASPack",
      unpackError: "ASPack cannot be unpacked here (only UPX can)",
      scannedUnpacked: false,
      matches: [],
    },
    { ...base, path: "jobs/clean.py", sha256: sha("4"), verdict: "clean", scannedUnpacked: false, matches: [] },
  ];
}

function sarif(list = artifacts()) {
  const result = evaluateCompliance({ ...emptyFacts(""), artifacts: list }, resolveRuleSettings({}), [], NOW);
  return JSON.parse(renderSarif({ stackName: "ci", file: STACK, result, generatedAt: new Date(NOW), toolVersion: "0.1.0" })) as {
    runs: { artifacts: any[]; results: any[] }[];
  };
}

describe("SARIF of artifact findings", () => {
  const log = sarif();
  const run = log.runs[0];

  it("validates against the SARIF 2.1.0 schema", () => {
    expect(validate(log), ajv.errorsText(validate.errors)).toBe(true);
  });

  it("run.artifacts lists every scanned file once, clean ones too, with its sha-256", () => {
    expect(run.artifacts).toEqual([
      { location: { uri: "jobs/deploy.sh" }, hashes: { "sha-256": sha("1") } },
      { location: { uri: "tools/agent" }, hashes: { "sha-256": sha("2") } },
      { location: { uri: "tools/legacy.exe" }, hashes: { "sha-256": sha("3") } },
      { location: { uri: "jobs/clean.py" }, hashes: { "sha-256": sha("4") } },
    ]);
  });

  it("a match in the file: the file by index, the byte region, and the stack file's line as a related location", () => {
    const r = run.results.filter((x) => x.locations[0].physicalLocation.artifactLocation.uri === "jobs/deploy.sh");
    expect(r.map((x) => [x.ruleId, x.level, x.locations[0].physicalLocation])).toEqual([
      [
        "artifact-signature-clean",
        "error",
        { artifactLocation: { uri: "jobs/deploy.sh", index: 0 }, region: { byteOffset: 48, byteLength: 33 } },
      ],
      [
        "artifact-signature-clean",
        "error",
        { artifactLocation: { uri: "jobs/deploy.sh", index: 0 }, region: { byteOffset: 100, byteLength: 10 } },
      ],
    ]);
    expect(r[0].relatedLocations).toEqual([
      {
        id: 1,
        physicalLocation: { artifactLocation: { uri: STACK }, region: { startLine: 9, startColumn: 9 } },
        message: { text: `named in the stack file ${STACK}` },
      },
    ]);
    expect(r[0].locations[0].logicalLocations).toEqual([{ fullyQualifiedName: "artifact:jobs/deploy.sh", kind: "resource" }]);
  });

  it("a match in unpacked content: the file without a region; the message and properties say where the offset is", () => {
    const [r] = run.results.filter((x) => x.locations[0].physicalLocation.artifactLocation.uri === "tools/agent");
    expect(r.locations[0].physicalLocation).toEqual({ artifactLocation: { uri: "tools/agent", index: 1 } });
    expect(r.message.text).toContain("matched at offset 0x2000 of its unpacked content (packed with UPX 3.94), not of the file itself");
    expect(r.properties).toMatchObject({ offset: 0x2000, offsetIn: "unpacked-content", packer: "UPX 3.94", sha256: sha("2") });
  });

  it("a packed file that could not be unpacked is an advisory warning on that file", () => {
    const [r] = run.results.filter((x) => x.ruleId === "artifact-packed");
    expect(r).toMatchObject({
      level: "warning",
      locations: [{ physicalLocation: { artifactLocation: { uri: "tools/legacy.exe", index: 2 } } }],
      properties: { packer: "ASPack", enforcementLevel: "advisory" },
    });
  });

  it("fingerprints tell each signature of one artifact apart, and do not move with offsets or hashes", () => {
    const prints = (l: ReturnType<typeof sarif>) => l.runs[0].results.map((x) => x.partialFingerprints["stackwardenFinding/v1"] as string);
    const all = prints(log);
    expect(new Set(all).size).toBe(all.length);
    const moved = artifacts();
    moved[0] = { ...moved[0], sha256: sha("9"), matches: moved[0].matches.map((m) => ({ ...m, offset: (m.offset ?? 0) + 7 })) };
    expect(prints(sarif(moved))).toEqual(all);
  });

  it("says which results came from the scan cache, on the result and on its run.artifacts entry, and stays schema-valid", () => {
    const scannedAt = "2026-11-24T09:30:00.000Z";
    const list = artifacts();
    list[0] = { ...list[0], cached: { scannedAt } };
    list[3] = { ...list[3], cached: { scannedAt } };
    const cachedLog = sarif(list);
    expect(validate(cachedLog), ajv.errorsText(validate.errors)).toBe(true);
    const r = cachedLog.runs[0];
    expect(r.artifacts.map((a) => a.properties)).toEqual([
      { fromScanCache: true, scannedAt },
      undefined,
      undefined,
      { fromScanCache: true, scannedAt },
    ]);
    const byUri = (uri: string) => r.results.filter((x) => x.locations[0].physicalLocation.artifactLocation.uri === uri);
    expect(byUri("jobs/deploy.sh").map((x) => [x.properties.fromScanCache, x.properties.scannedAt])).toEqual([
      [true, scannedAt],
      [true, scannedAt],
    ]);
    expect(byUri("tools/agent")[0].properties).not.toHaveProperty("fromScanCache");
    // Where a result came from is no part of its identity: code scanning keeps the same alert.
    expect(r.results.map((x) => x.partialFingerprints)).toEqual(run.results.map((x) => x.partialFingerprints));
  });
});
