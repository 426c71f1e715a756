import { describe, expect, it } from "vitest";
import { artifactVerdict, isPackedNotUnpacked } from "../../../src/domain/compliance/artifact-verdict";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { UNKNOWN } from "../../../src/platform/unknown-value";
import type { ArtifactFacts } from "../../../src/domain/facts/artifact-scans";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";

/** The two artifact rules as pure functions of ArtifactFacts: verdicts, messages, locations, exemptions. */

const SHA = "a".repeat(64);
const RULES = "b".repeat(64);
const NOW = Date.parse("2025-06-15T12:00:00Z");

function artifact(over: Partial<ArtifactFacts> = {}): ArtifactFacts {
  return {
    path: "jobs/train.py",
    sha256: SHA,
    rulesDigest: RULES,
    verdict: "clean",
    matches: [],
    scannedUnpacked: false,
    source: { file: "stacks/Pulumi.ci.yaml", line: 7, column: 9 },
    ...over,
  };
}

function judge(artifacts: ArtifactFacts[], policies: Record<string, Record<string, unknown>> = {}, exemptions: never[] | object[] = []) {
  return evaluateCompliance({ ...emptyFacts(""), artifacts }, resolveRuleSettings(policies), exemptions as never[], NOW).findings;
}
const only = (findings: ReturnType<typeof judge>, ruleId: string) => findings.filter((f) => f.ruleId === ruleId);

describe("artifactVerdict: the one definition of an artifact's verdict", () => {
  it.each([
    [{ scanError: "HTTP 413" }, "error"],
    [{ scanError: "HTTP 413", matches: [1] }, "error"],
    [{ matches: [1], packer: "ASPack" }, "matched"],
    [{ packer: "ASPack" }, "packed-not-unpackable"],
    [{ packer: "UPX 3.94", scannedUnpacked: true }, "clean"],
    [{}, "clean"],
  ] as const)("%j is %s", (over, verdict) => {
    expect(artifactVerdict({ scannedUnpacked: false, matches: [], ...over })).toBe(verdict);
  });

  it("a packed file not unpacked is flagged only when it was scanned at all", () => {
    expect(isPackedNotUnpacked({ packer: "MPRESS", scannedUnpacked: false })).toBe(true);
    expect(isPackedNotUnpacked({ packer: "MPRESS", scannedUnpacked: false, scanError: "refused" })).toBe(false);
    expect(isPackedNotUnpacked({ scannedUnpacked: false })).toBe(false);
  });
});

describe("artifact-signature-clean", () => {
  const matched = artifact({
    verdict: "matched",
    matches: [
      { rule: "marker_a", ruleFile: "rules/a.yar", tags: ["t"], offset: 0x1f, length: 8, inUnpackedContent: false },
      { rule: "size_rule", ruleFile: "rules/b.yar", tags: [], inUnpackedContent: false },
    ],
  });

  it("one mandatory failure per matching rule, naming the artifact, the rule and the offset, located in the file", () => {
    const f = only(judge([matched]), "artifact-signature-clean");
    expect(f.map((x) => [x.verdict, x.level, x.facet, x.message])).toEqual([
      [
        "fail",
        "mandatory",
        "marker_a",
        "Artifact jobs/train.py must not match signature rule marker_a (rules/a.yar): matched at offset 0x1f",
      ],
      [
        "fail",
        "mandatory",
        "size_rule",
        "Artifact jobs/train.py must not match signature rule size_rule (rules/b.yar): matched by its condition (no string offset)",
      ],
    ]);
    expect(f[0]).toMatchObject({
      resourceId: "artifact:jobs/train.py",
      label: "jobs/train.py",
      source: { line: 7 },
      location: { file: "jobs/train.py", byteOffset: 0x1f, byteLength: 8, sha256: SHA },
      properties: { signatureRule: "marker_a", ruleFile: "rules/a.yar", tags: ["t"], offset: 0x1f, offsetIn: "file", sha256: SHA },
    });
    expect(f[1].location).toEqual({ file: "jobs/train.py", sha256: SHA });
  });

  it("an offset in unpacked content is no place in the file: no byte offset in the location, the message says so", () => {
    const packed = artifact({
      path: "tools/agent",
      file: "infra/tools/agent",
      verdict: "matched",
      packer: "UPX 3.94",
      scannedUnpacked: true,
      matches: [{ rule: "m", ruleFile: "r.yar", tags: [], offset: 0x2000, length: 4, inUnpackedContent: true }],
    });
    const [f] = only(judge([packed]), "artifact-signature-clean");
    expect(f.message).toBe(
      "Artifact tools/agent must not match signature rule m (r.yar): matched at offset 0x2000 of its unpacked content (packed with UPX 3.94), not of the file itself",
    );
    expect(f.location).toEqual({ file: "infra/tools/agent", sha256: SHA });
    expect(f.properties).toMatchObject({ offset: 0x2000, offsetIn: "unpacked-content", packer: "UPX 3.94" });
  });

  it("clean passes; a scan error is not applicable with the reason; an unknown scan is unknown", () => {
    const f = only(
      judge([
        artifact(),
        artifact({ path: "b", verdict: "error", scanError: "HTTP 413 PayloadTooLarge" }),
        artifact({ path: "c", verdict: UNKNOWN }),
      ]),
      "artifact-signature-clean",
    );
    expect(f.map((x) => [x.label, x.verdict, x.message])).toEqual([
      ["jobs/train.py", "pass", `no signature rule matches; rules sha256:${RULES.slice(0, 16)}…`],
      ["b", "not-applicable", "the artifact could not be scanned, so it is not known to be clean: HTTP 413 PayloadTooLarge"],
      ["c", "unknown", "the artifact's scan is not known yet"],
    ]);
  });

  it("an exemption names the artifact as artifact:<path>, exactly, and may name the rule", () => {
    const exempt = (resourceId: string, rules?: string[]) => [{ resourceId, reason: "fixture", ...(rules ? { rules } : {}) }];
    const verdicts = (e: object[]) => only(judge([matched], {}, e), "artifact-signature-clean").map((x) => x.verdict);
    expect(verdicts(exempt("artifact:jobs/train.py"))).toEqual(["exempt", "exempt"]);
    expect(verdicts(exempt("artifact:jobs/train.py", ["artifact-signature-clean"]))).toEqual(["exempt", "exempt"]);
    expect(verdicts(exempt("artifact:jobs/train.py", ["artifact-packed"]))).toEqual(["fail", "fail"]);
    expect(verdicts(exempt("artifact:Jobs/Train.py"))).toEqual(["fail", "fail"]);
    expect(verdicts(exempt("artifact:jobs"))).toEqual(["fail", "fail"]);
  });

  it("follows its configured level", () => {
    expect(
      only(judge([matched], { "artifact-signature-clean": { enforcementLevel: "advisory" } }), "artifact-signature-clean")[0].level,
    ).toBe("advisory");
    expect(only(judge([matched], { "artifact-signature-clean": { enforcementLevel: "disabled" } }), "artifact-signature-clean")).toEqual(
      [],
    );
  });
});

describe("artifact-packed", () => {
  it("flags (advisory) a packed file that could not be unpacked, with the packer and the reason", () => {
    const f = only(
      judge([
        artifact({
          path: "a.exe",
          verdict: "packed-not-unpackable",
          packer: "ASPack",
          unpackError: "ASPack cannot be unpacked here (only UPX can)",
        }),
        artifact({ path: "b", verdict: "clean", packer: "UPX 3.94", scannedUnpacked: true }),
        artifact({ path: "c" }),
        artifact({ path: "d", verdict: "error", packer: "UPX 3.94", scanError: "refused" }),
        artifact({ path: "e", verdict: UNKNOWN }),
      ]),
      "artifact-packed",
    );
    expect(f.map((x) => [x.label, x.verdict, x.level, x.message])).toEqual([
      [
        "a.exe",
        "fail",
        "advisory",
        "Artifact a.exe is packed (ASPack) and must be unpackable to be scanned: ASPack cannot be unpacked here (only UPX can)",
      ],
      ["b", "pass", "advisory", "packed with UPX 3.94; scanned unpacked"],
      ["c", "pass", "advisory", "not packed"],
      ["d", "not-applicable", "advisory", "the artifact could not be scanned: refused"],
      ["e", "unknown", "advisory", "the artifact's scan is not known yet"],
    ]);
    expect(f[0]).toMatchObject({
      resourceId: "artifact:a.exe",
      location: { file: "a.exe", sha256: SHA },
      properties: { packer: "ASPack" },
    });
    expect(f[0].location?.byteOffset).toBeUndefined();
  });

  it("a matched file that is also packed and not unpacked fails both rules", () => {
    const f = judge([
      artifact({
        verdict: "matched",
        packer: "MPRESS",
        unpackError: "MPRESS cannot be unpacked here (only UPX can)",
        matches: [{ rule: "m", ruleFile: "r.yar", tags: [], offset: 4, inUnpackedContent: false }],
      }),
    ]);
    expect(f.filter((x) => x.verdict === "fail").map((x) => x.ruleId)).toEqual(["artifact-signature-clean", "artifact-packed"]);
  });
});
