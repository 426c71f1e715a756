import type { EnforcementLevel as PolicyLevel, ReportViolation } from "@pulumi/policy";
import type { Finding } from "../src/domain/compliance/finding";
import type { RuleDefinition } from "../src/domain/compliance/rule";

/**
 * The level the pack judges every rule at: the strictest, so that a finding still at it follows
 * the policy's level as CrossGuard resolves it (the pack's config, else the rule's default), and a
 * finding below it is one the rule reports at a lower level of its own.
 */
export const PACK_JUDGING_LEVEL = "mandatory" as const;

/**
 * The object form of CrossGuard's `reportViolation`: one diagnostic at a level of its own. The
 * analyzer protocol carries a level per diagnostic (`AnalyzeDiagnostic.enforcementLevel`), and
 * @pulumi/policy 1.21 takes this object in `makeReportViolationFun` (server.js: `typeof message ===
 * "object"`, `enforcementLevel: policyInfo.enforcementLevel || <the policy's level>`), though its
 * public type declares only `(message, urn?)` ("future support", `ReportViolationArgs` is
 * `@internal`, pulumi/pulumi-policy#424). test/policies/finding-levels-grpc.test.ts proves it over
 * gRPC, so an upgrade that drops it fails there, not in a user's `pulumi up`.
 */
interface LeveledViolation {
  /** The diagnostic's whole message: CrossGuard does not prefix the description in this form. */
  message: string;
  urn?: string;
  enforcementLevel: PolicyLevel;
}

/**
 * Reports a failed finding to CrossGuard on the resource its fact came from: at the policy's level
 * when the finding is at the level the rule was judged at, at its own lower level otherwise (an
 * advisory finding beside mandatory ones stays advisory, whatever the policy's level). The message
 * reads the same either way ("<title>\n<finding's message>"). A finding at `disabled` counts for
 * nothing, as in `check`.
 */
export function reportFinding(rule: RuleDefinition<unknown>, f: Finding, reportViolation: ReportViolation): void {
  if (f.level === PACK_JUDGING_LEVEL) return reportViolation(f.message, f.origin);
  if (f.level === "disabled") return;
  const report = reportViolation as unknown as (v: LeveledViolation) => void;
  report({ message: `${rule.title}\n${f.message}`, urn: f.origin, enforcementLevel: f.level });
}
