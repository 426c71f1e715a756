import type { StackConfig } from "../stack/stack-config";
import { UNKNOWN, type ComplianceFacts } from "../compliance/facts";

/**
 * The facts as they will be once the stack is applied: each managed database's TDE status becomes
 * the one the stack sets (marked `desired`, as the policy pack sees it during `pulumi preview`).
 * A pull-request gate judges this state, so a change that would disable TDE fails before merge,
 * and a change that will encrypt a database that is unencrypted today passes. `facts.databases`
 * must be in the stack's order (as `gatherFacts` returns them).
 */
export function plannedFacts(facts: ComplianceFacts, stack: Pick<StackConfig, "databases">): ComplianceFacts {
  return {
    ...facts,
    databases: facts.databases.map((f, i) => {
      const desired = stack.databases[i]?.transparentDataEncryption;
      if (!desired || (f.liveTdeStatus !== UNKNOWN && f.liveTdeStatus === desired)) return f;
      return { ...f, liveTdeStatus: desired, tdeStatusSource: "desired" as const };
    }),
  };
}
