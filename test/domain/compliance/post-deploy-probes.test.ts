import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { UNKNOWN } from "../../../src/platform/unknown-value";
import type { ProbeFacts } from "../../../src/domain/facts/probe-results";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { findRule, ruleIds } from "../../../src/domain/compliance/registry";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { postDeployProbes, probeSubjectId } from "../../../src/domain/compliance/rules/post-deploy-probes";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";
import { probeFactsOf as probeFacts } from "../../../src/domain/facts/probe-results";
import type { StoredProbeRun } from "../../../src/domain/probes/probe-results-store";

/** `post-deploy-probes`: a probe whose last run failed is flagged, at the probe's stack-file line. */
const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2025-06-15T12:00:00Z");
const SOURCE = { file: "stacks/Pulumi.t.yaml", line: 12, column: 7 };

const probe = (over: Partial<ProbeFacts> = {}): ProbeFacts => ({
  name: "health-policy",
  issuer: "newindia",
  doctype: "hlipc",
  format: "pdf",
  outcome: "passed",
  latencyMs: 42,
  size: 2704,
  sha256: "ed3330f605662c540d9653b86aebf07f24cbad01cbb2c5951a11b527487f62b1",
  source: SOURCE,
  ...over,
});

/** Judges the probes with every other rule disabled. */
function judge(probes: ProbeFacts[], level?: "advisory" | "mandatory" | "disabled") {
  const others = Object.fromEntries(ruleIds().map((id) => [id, { enforcementLevel: "disabled" }]));
  const settings = resolveRuleSettings({ ...others, "post-deploy-probes": level ? { enforcementLevel: level } : {} });
  return evaluateCompliance({ ...emptyFacts(SUB), probes }, settings, [], NOW);
}

describe("post-deploy-probes", () => {
  it("is registered once, advisory by default, judged at the end of a stack", () => {
    expect(ruleIds().filter((id) => id === "post-deploy-probes")).toHaveLength(1);
    expect(findRule("post-deploy-probes")).toBe(postDeployProbes);
    expect(postDeployProbes).toMatchObject({ defaultLevel: "advisory", packScope: "stack", settings: {} });
  });

  it("a failed probe is an advisory violation naming the issuer's error, at the probe's line", () => {
    const r = judge([
      probe({ outcome: "failed", size: undefined, sha256: undefined, error: { code: "record_not_found", message: "No record found" } }),
    ]);
    expect(r.summary).toMatchObject({ advisoryViolations: 1, mandatoryViolations: 0 });
    expect(r.findings).toEqual([
      {
        ruleId: "post-deploy-probes",
        resourceId: "stackwarden:probes/health-policy",
        label: "health-policy",
        verdict: "fail",
        level: "advisory",
        message:
          "Probe health-policy must get a valid document from newindia/hlipc (pdf) after a deployment; the issuer answered record_not_found: No record found",
        source: SOURCE,
        origin: undefined,
      },
    ]);
  });

  it("a document that failed its check says what the check found; mandatory when the stack says so", () => {
    const r = judge(
      [
        probe({
          outcome: "failed",
          error: { code: "check-failed", message: 'none of the PDF\'s 1 page(s) shows the title "Insurance Policy - Health"' },
        }),
      ],
      "mandatory",
    );
    expect(r.summary.mandatoryViolations).toBe(1);
    expect(r.findings[0].message).toBe(
      'Probe health-policy must get a valid document from newindia/hlipc (pdf) after a deployment; the document failed its check: none of the PDF\'s 1 page(s) shows the title "Insurance Policy - Health"',
    );
  });

  it("a passed probe passes with what it kept; no result is not applicable; a preview is unknown; disabled judges nothing", () => {
    const r = judge([probe(), probe({ name: "fresh", outcome: undefined }), probe({ name: "preview", outcome: UNKNOWN })]);
    expect(r.findings.map((f) => [f.label, f.verdict, f.message])).toEqual([
      ["health-policy", "pass", "newindia/hlipc (pdf) issued a document (2704 bytes, sha-256 ed3330f605662c54…) in 42 ms"],
      [
        "fresh",
        "not-applicable",
        "probe fresh of newindia/hlipc (pdf) has no result yet: run `stackwarden probe` (or `apply --probe`) after a deployment",
      ],
      ["preview", "unknown", "probe preview has not run yet in this deployment"],
    ]);
    expect(r.summary).toMatchObject({ advisoryViolations: 0, passed: 1, notApplicable: 1, unknown: 1 });
    expect(judge([probe({ outcome: "failed" })], "disabled").findings).toEqual([]);
  });

  it("the subject id is not an ARM id, stable per probe name", () => {
    expect(probeSubjectId("transfer-certificate")).toBe("stackwarden:probes/transfer-certificate");
  });
});

describe("probeFacts: the stack's probes with the last run's results", () => {
  const stack = parseStackConfig(
    "stacks/Pulumi.t.yaml",
    `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:probes:
    - { name: tc, issuer: lawcollegeandaman, doctype: trcer, parameters: { ADMN_NO: "\${env:A}", FullName: "\${env:B}" } }
    - { name: id, issuer: swavlambancard, doctype: govid, format: xml, parameters: { CERT_NO: "\${env:C}", FullName: "\${env:D}" } }
    - { name: new, issuer: mbose, doctype: sscer, parameters: { RROLL: "\${env:E}", FullName: "\${env:F}", YEAR: "\${env:G}" } }
`,
    {},
  );
  const result = (over: Record<string, unknown>) => ({
    name: "tc",
    issuer: "lawcollegeandaman",
    doctype: "trcer",
    format: "pdf",
    outcome: "failed" as const,
    latencyMs: 7,
    status: 404,
    error: { code: "record_not_found", message: "No record found" },
    source: { file: "elsewhere.yaml", line: 99, column: 1 },
    ...over,
  });
  const run = (results: ReturnType<typeof result>[]): StoredProbeRun => ({
    version: 1,
    stack: "t",
    command: "probe",
    endpoint: "http://127.0.0.1:1/apisetu",
    startedAt: "2025-06-15T11:00:00.000Z",
    finishedAt: "2025-06-15T11:00:01.000Z",
    results,
  });

  it("matches results by name, issuer, doctype and format; locates each at its line in the stack now", () => {
    const facts = probeFacts(
      stack.probes!,
      run([
        result({}),
        // The stack now asks for XML: a PDF result says nothing about it.
        result({ name: "id", issuer: "swavlambancard", doctype: "govid", format: "pdf", outcome: "passed", error: undefined }),
        // A probe the stack no longer declares.
        result({ name: "gone" }),
      ]),
    );
    expect(facts).toEqual([
      {
        name: "tc",
        issuer: "lawcollegeandaman",
        doctype: "trcer",
        format: "pdf",
        source: { file: "stacks/Pulumi.t.yaml", line: 4, column: 7 },
        outcome: "failed",
        latencyMs: 7,
        error: { code: "record_not_found", message: "No record found" },
      },
      { name: "id", issuer: "swavlambancard", doctype: "govid", format: "xml", source: expect.any(Object), outcome: undefined },
      { name: "new", issuer: "mbose", doctype: "sscer", format: "pdf", source: expect.any(Object), outcome: undefined },
    ]);
    // No file at all: every probe has no result.
    expect(probeFacts(stack.probes!, undefined).map((f) => f.outcome)).toEqual([undefined, undefined, undefined]);
  });

  it("facts carry no HTTP status or parameter: only what the rule may see", () => {
    const [tc] = probeFacts(stack.probes!, run([result({})]));
    expect(Object.keys(tc).sort()).toEqual(["doctype", "error", "format", "issuer", "latencyMs", "name", "outcome", "source"]);
  });
});
