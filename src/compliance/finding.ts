import type { Exemption, SourceLocation } from "../config/stack-config";
import type { EnforcementLevel, RuleId } from "./rule-settings";

/**
 * - `fail`: the rule flags the resource;
 * - `pass`: checked and fine;
 * - `not-applicable`: the rule cannot judge (no advisor output, `master`, no limit);
 * - `unknown`: a value is not known yet (preview);
 * - `exempt`: it would fail, but an active exemption covers it.
 */
export type Verdict = "pass" | "fail" | "not-applicable" | "unknown" | "exempt";

export interface Finding {
  ruleId: RuleId;
  /** ARM id of the resource judged. */
  resourceId: string;
  /** Short name for tables: `rg/server/db` or `eastus/cores`. */
  label: string;
  verdict: Verdict;
  level: EnforcementLevel;
  /** One sentence, phrased "X must …" for failures. */
  message: string;
  source?: SourceLocation;
  exemption?: Exemption;
}

/** A failure that counts against the exit code / `pulumi up`. */
export function isMandatoryViolation(f: Finding): boolean {
  return f.verdict === "fail" && f.level === "mandatory";
}

export function isAdvisoryViolation(f: Finding): boolean {
  return f.verdict === "fail" && f.level === "advisory";
}
