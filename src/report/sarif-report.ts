import { createHash } from "node:crypto";
import type { Finding } from "../compliance/finding";
import { allRules } from "../compliance/registry";
import { ruleName } from "../compliance/rule";
import type { ComplianceReportInput } from "./compliance-report";

/**
 * A SARIF 2.1.0 log for code scanning: stable ruleIds, partialFingerprints so re-runs update
 * alerts instead of opening new ones, and locations at the stack file's line for each resource.
 * Exempt findings are included as suppressed results.
 */
export function renderSarif(r: ComplianceReportInput): string {
  const registered = allRules();
  const rules = registered.map((rule) => ({
    id: rule.id,
    name: ruleName(rule.id),
    shortDescription: { text: rule.title },
    fullDescription: { text: rule.description },
    help: { text: rule.help },
    defaultConfiguration: { level: sarifLevel(rule.defaultLevel) },
    properties: { tags: ["security", "compliance"] },
  }));
  const index = new Map(registered.map((rule, i) => [rule.id, i]));
  const results = r.result.findings
    .filter((f) => f.verdict === "fail" || f.verdict === "exempt")
    .map((f) => result(f, r.file, index.get(f.ruleId) ?? -1));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "stackwarden", version: r.toolVersion, semanticVersion: r.toolVersion, rules } },
        automationDetails: { id: `stackwarden/${r.stackName}/` },
        invocations: [
          {
            executionSuccessful: true,
            endTimeUtc: r.generatedAt.toISOString(),
            ...(r.notes?.length ? { toolExecutionNotifications: r.notes.map((text) => ({ level: "note", message: { text } })) } : {}),
          },
        ],
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}

function result(f: Finding, file: string, ruleIndex: number) {
  const out: Record<string, unknown> = {
    ruleId: f.ruleId,
    ruleIndex,
    level: sarifLevel(f.level),
    message: { text: f.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: file.split("\\").join("/") },
          region: { startLine: f.source?.line ?? 1, startColumn: f.source?.column ?? 1 },
        },
        logicalLocations: [{ fullyQualifiedName: f.resourceId, kind: "resource" }],
      },
    ],
    partialFingerprints: { "stackwardenFinding/v1": fingerprint(f) },
    properties: { resourceId: f.resourceId, enforcementLevel: f.level },
  };
  if (f.verdict === "exempt" && f.exemption) {
    out.suppressions = [{ kind: "external", status: "accepted", justification: f.exemption.reason }];
  }
  return out;
}

/** Stable across runs and line moves: the rule and the resource, nothing else. */
function fingerprint(f: Finding): string {
  return createHash("sha256").update(`${f.ruleId}|${f.resourceId.toLowerCase()}`).digest("hex");
}

function sarifLevel(level: string): "error" | "warning" | "none" {
  return level === "mandatory" ? "error" : level === "advisory" ? "warning" : "none";
}
