import { XMLBuilder } from "fast-xml-parser";
import type { Finding } from "../compliance/finding";
import { ruleIds } from "../compliance/registry";
import type { ComplianceReportInput } from "./compliance-report";

/**
 * JUnit XML as CI systems read it: one testsuite per rule, one testcase per resource.
 * A mandatory violation is a <failure>; exempt and not-applicable are <skipped>; an advisory
 * violation passes with its message in <system-out>, so it is visible without failing the build.
 */
export function renderJunit(r: ComplianceReportInput): string {
  const suites = ruleIds().map((id) => {
    const findings = r.result.findings.filter((f) => f.ruleId === id);
    return {
      "@_name": `stackwarden.${id}`,
      "@_tests": findings.length,
      "@_failures": findings.filter((f) => f.verdict === "fail" && f.level === "mandatory").length,
      "@_errors": 0,
      "@_skipped": findings.filter((f) => f.verdict === "exempt" || f.verdict === "not-applicable" || f.verdict === "unknown").length,
      "@_timestamp": r.generatedAt.toISOString().replace(/\.\d+Z$/, ""),
      testcase: findings.map(testcase),
    };
  });
  const doc = {
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    testsuites: {
      "@_name": `stackwarden check ${r.stackName}`,
      "@_tests": r.result.findings.length,
      "@_failures": r.result.summary.mandatoryViolations,
      "@_errors": 0,
      testsuite: suites,
    },
  };
  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: "@_", format: true, suppressEmptyNode: true }).build(doc) as string;
}

function testcase(f: Finding) {
  // Several findings of one rule on one resource (each signature matching an artifact) are told apart by their facet.
  const name = f.facet !== undefined ? `${f.label} [${f.facet}]` : f.label;
  const tc: Record<string, unknown> = { "@_classname": `stackwarden.${f.ruleId}`, "@_name": name, "@_time": 0 };
  if (f.verdict === "fail" && f.level === "mandatory") {
    tc.failure = { "@_message": f.message, "@_type": f.ruleId, "#text": `${f.resourceId}\n${f.message}` };
  } else if (f.verdict === "fail") {
    tc["system-out"] = `ADVISORY: ${f.message}`;
  } else if (f.verdict !== "pass") {
    tc.skipped = { "@_message": `${f.verdict}: ${f.message}` };
  }
  return tc;
}
