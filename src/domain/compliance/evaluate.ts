import type { Exemption } from "./declared-exemption";
import { applyExemptions, type ExemptionStatus } from "./exemption-application";
import type { ComplianceFacts, FactOrigin } from "../facts/model/compliance-facts";
import { isAdvisoryViolation, isMandatoryViolation, type Finding } from "./finding";
import { allRules } from "./registry";
import { lowerLevel } from "./enforcement-level";
import { resolveSettings, type ResolvedSettings, type RuleDefinition } from "./rule";
import type { RuleSettings } from "./rule-settings";

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

/**
 * Runs every enabled rule (of `rules`, default every registered one) over the facts, then applies
 * exemptions. Findings of one resource stay together, resources in the order they are first
 * judged, rules in registry order. Pure: `now` is passed in.
 */
export function evaluateCompliance(
  facts: ComplianceFacts,
  settings: RuleSettings,
  exemptions: readonly Exemption[],
  now: number,
  rules: readonly RuleDefinition<unknown>[] = allRules(),
): ComplianceResult {
  const raw: Finding[] = [];
  for (const rule of rules) {
    const s = settings[rule.id] ?? resolveSettings(rule, undefined);
    if (s.enforcementLevel !== "disabled") raw.push(...evaluateRule(rule, facts, s, now));
  }
  const unread = unreadSubjects(facts);
  const judged = unread.size ? raw.map((f) => notJudgedWhenUnread(f, unread)) : raw;
  const { findings, statuses } = applyExemptions(groupByResource(judged), exemptions, now);
  return { findings, exemptions: statuses, summary: summarize(findings) };
}

/**
 * One rule's findings over the facts at its resolved settings, each at its own level but never
 * above the configured one: a rule may report a finding lower (advisory beside mandatory ones),
 * never higher than the stack allows. Pure.
 */
export function evaluateRule(rule: RuleDefinition<unknown>, facts: ComplianceFacts, settings: ResolvedSettings, now: number): Finding[] {
  return rule.evaluate(facts, settings, now).map((f) => {
    const level = lowerLevel(f.level, settings.enforcementLevel);
    return level === f.level ? f : { ...f, level };
  });
}

/** The rules the settings leave enabled (every rule not set to `disabled`), in registry order. */
export function enabledRules(settings: RuleSettings): RuleDefinition<unknown>[] {
  return allRules().filter((rule) => (settings[rule.id] ?? resolveSettings(rule, undefined)).enforcementLevel !== "disabled");
}

/** The fact kinds some of the rules judge, each once. */
export function factKeysOf(rules: readonly RuleDefinition<unknown>[]): string[] {
  return [...new Set(rules.flatMap((r) => r.facts))];
}

/** The subjects whose data could not be read, by lower-cased id, with why. */
function unreadSubjects(facts: ComplianceFacts): Map<string, string> {
  const out = new Map<string, string>();
  for (const list of Object.values(facts)) {
    if (!Array.isArray(list)) continue;
    for (const f of list as (FactOrigin & { id?: unknown })[]) {
      if (f?.unread && typeof f.id === "string" && !out.has(f.id.toLowerCase())) out.set(f.id.toLowerCase(), f.unread);
    }
  }
  return out;
}

/** A subject that could not be read is judged by no rule: its finding says so, not applicable, whatever the rule made of the missing data. */
function notJudgedWhenUnread(f: Finding, unread: ReadonlyMap<string, string>): Finding {
  const why = unread.get(f.resourceId.toLowerCase());
  return why ? { ...f, verdict: "not-applicable", message: `${f.label} could not be read: ${why}` } : f;
}

function groupByResource(findings: Finding[]): Finding[] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const key = f.resourceId.toLowerCase();
    const g = groups.get(key);
    if (g) g.push(f);
    else groups.set(key, [f]);
  }
  return [...groups.values()].flat();
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
