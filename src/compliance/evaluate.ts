import type { Exemption } from "../config/stack-config";
import { applyExemptions, type ExemptionStatus } from "./exemptions";
import type { ComplianceFacts } from "./facts";
import { isAdvisoryViolation, isMandatoryViolation, type Finding } from "./finding";
import type { RuleSettings } from "./rule-settings";
import { batchQuotaHeadroom } from "./rules/batch-quota-headroom";
import { sqlTdeEnabled } from "./rules/sql-tde-enabled";
import { sqlTierAdvisorDrift } from "./rules/sql-tier-advisor-drift";

export interface ComplianceResult {
  findings: Finding[];
  exemptions: ExemptionStatus[];
  summary: {
    mandatoryViolations: number;
    advisoryViolations: number;
    exempt: number;
    passed: number;
    notApplicable: number;
    unknown: number;
  };
}

/** Runs every enabled rule over the facts, then applies exemptions. Pure: `now` is passed in. */
export function evaluateCompliance(
  facts: ComplianceFacts,
  settings: RuleSettings,
  exemptions: readonly Exemption[],
  now: number,
): ComplianceResult {
  const raw: Finding[] = [];
  const tde = settings["sql-tde-enabled"];
  const drift = settings["sql-tier-advisor-drift"];
  const quota = settings["batch-quota-headroom"];
  for (const db of facts.databases) {
    if (tde.enforcementLevel !== "disabled") raw.push(sqlTdeEnabled(db, tde));
    if (drift.enforcementLevel !== "disabled") raw.push(sqlTierAdvisorDrift(db, drift, now));
  }
  if (quota.enforcementLevel !== "disabled") {
    for (const u of facts.usages) raw.push(batchQuotaHeadroom(facts.subscriptionId, u, quota, facts.batchSource));
  }
  const { findings, statuses } = applyExemptions(raw, exemptions, now);
  return { findings, exemptions: statuses, summary: summarize(findings) };
}

function summarize(findings: Finding[]): ComplianceResult["summary"] {
  return {
    mandatoryViolations: findings.filter(isMandatoryViolation).length,
    advisoryViolations: findings.filter(isAdvisoryViolation).length,
    exempt: findings.filter((f) => f.verdict === "exempt").length,
    passed: findings.filter((f) => f.verdict === "pass").length,
    notApplicable: findings.filter((f) => f.verdict === "not-applicable").length,
    unknown: findings.filter((f) => f.verdict === "unknown").length,
  };
}
