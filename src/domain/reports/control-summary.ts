import { controlConcerns, controlKey, type Control } from "../compliance/control";
import type { Finding } from "../compliance/finding";
import { allRules } from "../compliance/registry";
import type { RuleDefinition } from "../compliance/rule";

/** One control's tally over an evaluation: the findings of every rule that gives evidence for it. */
export interface ControlSummary extends Control {
  /** The rules that give evidence for it, in registry order. */
  rules: string[];
  pass: number;
  fail: number;
  exempt: number;
}

/**
 * Per control of the registered rules (each once, in rule order), how the findings of its rules
 * came out: passed, failed (at any level) and exempt. Not-applicable and unknown findings count in
 * none of them; a control with `onlyWhere` counts only the findings it concerns.
 */
export function controlSummary(findings: readonly Finding[], rules: readonly RuleDefinition<unknown>[] = allRules()): ControlSummary[] {
  const out = new Map<string, ControlSummary>();
  for (const rule of rules) {
    for (const c of rule.controls ?? []) {
      const key = controlKey(c);
      const s = out.get(key) ?? { ...c, rules: [], pass: 0, fail: 0, exempt: 0 };
      s.rules.push(rule.id);
      out.set(key, s);
    }
  }
  const byRule = new Map<string, ControlSummary[]>();
  for (const s of out.values()) for (const r of s.rules) byRule.set(r, [...(byRule.get(r) ?? []), s]);
  for (const f of findings) {
    for (const s of byRule.get(f.ruleId) ?? []) {
      if (!controlConcerns(s, f.properties)) continue;
      if (f.verdict === "pass") s.pass += 1;
      else if (f.verdict === "fail") s.fail += 1;
      else if (f.verdict === "exempt") s.exempt += 1;
    }
  }
  return [...out.values()];
}
