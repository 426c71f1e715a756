import { createHash } from "node:crypto";
import type { Finding } from "../compliance/finding";
import { DEFAULT_RULE_SETTINGS, RULE_IDS, type RuleId } from "../compliance/rule-settings";
import type { ComplianceReportInput } from "./compliance-report";

const RULE_TEXT: Record<RuleId, { name: string; short: string; full: string }> = {
  "sql-tde-enabled": {
    name: "SqlTdeEnabled",
    short: "SQL databases must have transparent data encryption enabled",
    full: "Flags a database (never master) whose live transparent data encryption status is not Enabled.",
  },
  "sql-tier-advisor-drift": {
    name: "SqlTierAdvisorDrift",
    short: "SQL databases should run at the tier their service tier advisor recommends",
    full: "Flags a database whose service tier advisor recommends a different service objective than the intended (or current) one, with confidence at or above the threshold, from a recent observation period.",
  },
  "batch-quota-headroom": {
    name: "BatchQuotaHeadroom",
    short: "Batch AI usages must keep headroom below their limits",
    full: "Flags a Batch AI usage at or above a share of its limit (default 0.8) in a location the stack names.",
  },
};

/**
 * A SARIF 2.1.0 log for code scanning: stable ruleIds, partialFingerprints so re-runs update
 * alerts instead of opening new ones, and locations at the stack file's line for each resource.
 * Exempt findings are included as suppressed results.
 */
export function renderSarif(r: ComplianceReportInput): string {
  const rules = RULE_IDS.map((id) => ({
    id,
    name: RULE_TEXT[id].name,
    shortDescription: { text: RULE_TEXT[id].short },
    fullDescription: { text: RULE_TEXT[id].full },
    defaultConfiguration: { level: sarifLevel(DEFAULT_RULE_SETTINGS[id].enforcementLevel) },
    properties: { tags: ["security", "compliance"] },
  }));
  const results = r.result.findings.filter((f) => f.verdict === "fail" || f.verdict === "exempt").map((f) => result(f, r.file));
  const log = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "stackwarden", version: r.toolVersion, semanticVersion: r.toolVersion, rules } },
        automationDetails: { id: `stackwarden/${r.stackName}/` },
        invocations: [{ executionSuccessful: true, endTimeUtc: r.generatedAt.toISOString() }],
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2);
}

function result(f: Finding, file: string) {
  const out: Record<string, unknown> = {
    ruleId: f.ruleId,
    ruleIndex: RULE_IDS.indexOf(f.ruleId),
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
