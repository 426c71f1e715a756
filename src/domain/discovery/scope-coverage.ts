import { sqlDatabaseId } from "../../platform/arm/resource-id";
import { applyExemptions, isExemptionActive } from "../compliance/exemption-application";
import { evaluateRule } from "../compliance/evaluate";
import { findRule, tdeWriteRuleId } from "../compliance/registry";
import { settingsOf } from "../compliance/rule-settings";
import type { ComplianceFacts } from "../facts/model/compliance-facts";
import type { DatabaseFacts } from "../facts/tde-status";
import { isMandatoryViolation, type Finding } from "../compliance/finding";
import { databaseSubscription, type DesiredDatabase, type StackConfig } from "../stack/stack-config";
import type { ScopeCoverage } from "../stack/stack-scope";
import type { CoverageCounts, ScopeSummary } from "../reports/compliance-report";

/**
 * Whether an apply may write to a database of the stack: a listed one always; a discovered one only
 * with `scope.remediate`, and not when an active exemption of the scope covers it for `ruleId` (the
 * rule that judges the desired state written).
 */
export function mayWrite(
  stack: Pick<StackConfig, "scope" | "exemptions" | "subscriptionId">,
  d: DesiredDatabase,
  ruleId: string,
  now: number,
): boolean {
  if (!d.discovered) return true;
  if (stack.scope?.remediate !== true) return false;
  const id = sqlDatabaseId({ ...d, subscriptionId: databaseSubscription(stack, d) }).toLowerCase();
  return !stack.exemptions.some(
    (e) => e.resourceId.toLowerCase() === id && isExemptionActive(e, now) && (!e.rules || e.rules.includes(ruleId)),
  );
}

/** The stack with only the databases an apply may write to (`mayWrite`). */
export function writableOnly(stack: StackConfig, ruleId: string, now: number): StackConfig {
  const kept = stack.databases.filter((d) => mayWrite(stack, d, ruleId, now));
  return kept.length === stack.databases.length ? stack : { ...stack, databases: kept };
}

/** The stack as its file lists it: without the databases discovery added (what `apply` writes to without `scope.remediate`). */
export function listedOnly(stack: StackConfig): StackConfig {
  return stack.databases.some((d) => d.discovered) ? { ...stack, databases: stack.databases.filter((d) => !d.discovered) } : stack;
}

/** The databases in scope with a mandatory violation, and the discovered ones among them (labels), from a check's findings. */
export function nonCompliantInScope(
  coverage: ScopeCoverage,
  findings: readonly Finding[],
): { nonCompliant: number; discoveredFailing: string[] } {
  const inScope = new Set(coverage.inScopeIds);
  const discovered = new Set(coverage.discoveredIds);
  const failing = new Map<string, string>();
  for (const f of findings) {
    const id = f.resourceId.toLowerCase();
    if (isMandatoryViolation(f) && inScope.has(id) && !failing.has(id)) failing.set(id, f.label);
  }
  return { nonCompliant: failing.size, discoveredFailing: [...failing].filter(([id]) => discovered.has(id)).map(([, label]) => label) };
}

/** The sentence every report leads with: "N databases in scope: L listed, D discovered; X non-compliant", naming the discovered ones that fail. */
export function coverageSentence(coverage: ScopeCoverage, findings: readonly Finding[]): string {
  const outside = coverage.listedOutside.length
    ? `; listed but outside the scope (still judged): ${coverage.listedOutside.join(", ")}`
    : "";
  return `${countsSentence(coverageCounts(coverage, findings))}${outside}`;
}

/** The sentence of the counts alone (what the watcher's page shows from its API's `coverage`). */
export function countsSentence(c: CoverageCounts): string {
  const failing = c.discoveredNonCompliant.length ? ` (discovered and non-compliant: ${c.discoveredNonCompliant.join(", ")})` : "";
  return `${c.inScope} databases in scope: ${c.listed} listed, ${c.discovered} discovered; ${c.nonCompliant} non-compliant${failing}`;
}

/** The counts reports carry (JSON `coverage`, SARIF `run.properties.coverage`). */
export function coverageCounts(coverage: ScopeCoverage, findings: readonly Finding[]): CoverageCounts {
  const { nonCompliant, discoveredFailing } = nonCompliantInScope(coverage, findings);
  return {
    inScope: coverage.listed + coverage.discovered,
    listed: coverage.listed,
    discovered: coverage.discovered,
    nonCompliant,
    discoveredNonCompliant: discoveredFailing,
  };
}

/** The findings with each one about a discovered database marked (`properties.discovered`: in JSON and SARIF). */
export function markDiscovered(coverage: ScopeCoverage, findings: readonly Finding[]): Finding[] {
  const discovered = new Set(coverage.discoveredIds);
  return findings.map((f) =>
    discovered.has(f.resourceId.toLowerCase()) ? { ...f, properties: { ...f.properties, discovered: true } } : f,
  );
}

/**
 * The scope's summary for the commands that read each database's live TDE but judge no rule over it
 * (`plan`, `drift`): the TDE rule (sql-tde-enabled) over those statuses, with the stack's settings
 * and exemptions (the scope's among them), beside any other findings the command judged, counted as
 * `check` counts them. Undefined for a stack without a scope (or not discovered).
 */
export function liveTdeSummary(
  stack: Pick<StackConfig, "coverage" | "policies" | "exemptions">,
  databases: readonly DatabaseFacts[],
  now: number,
  also: readonly Finding[] = [],
): ScopeSummary | undefined {
  if (!stack.coverage) return undefined;
  const rule = findRule(tdeWriteRuleId())!;
  const judged = evaluateRule(
    rule,
    { databases: databases.filter((d) => !d.unread) } as ComplianceFacts,
    settingsOf(rule, stack.policies),
    now,
  );
  const findings = [...applyExemptions(judged, stack.exemptions, now).findings, ...also];
  return { sentence: coverageSentence(stack.coverage, findings), counts: coverageCounts(stack.coverage, findings) };
}
