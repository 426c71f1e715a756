import type { StackConfig } from "../stack/stack-config";
import { evaluateCompliance } from "../compliance/evaluate";
import type { ComplianceFacts } from "../facts/model/compliance-facts";
import { factsAbout } from "../facts/facts-about";
import { databaseFactsIn, withTdeStatus } from "../facts/tde-status";
import type { Finding } from "../compliance/finding";
import type { TdePlanItem } from "./tde-plan";

/** Whether one drifted database is repaired automatically, and why not when it is not. */
export interface RepairDecision {
  item: TdePlanItem;
  repair: boolean;
  /** For a refused repair: the rule that would flag the repaired state, and its message. */
  ruleId?: string;
  reason?: string;
}

/**
 * Decides which drift `--auto-remediate` repairs. The repaired state of each database (its TDE
 * status as the stack wants it) is judged by the compliance rules, exactly as `check` would judge
 * it, and compared with the drifted state:
 * - a repair that a mandatory rule would flag is refused (decrypting because the stack says Disabled);
 * - a repair that adds an advisory failure the drifted state does not have is refused too: it moves away from compliance;
 * - every other repair (Disabled -> Enabled where the stack wants Enabled) is made.
 * Only the facts about the repaired database are judged (the kinds whose scope is a database): what
 * a TDE repair does not change (a server's key custody, a failed probe, a quota, a dirty artifact,
 * where things are) is not the repair's to answer for. Pure: `now` is passed in.
 */
export function decideRepairs(
  drift: readonly TdePlanItem[],
  facts: ComplianceFacts,
  stack: Pick<StackConfig, "policies" | "exemptions">,
  now: number,
): RepairDecision[] {
  return drift.map((item) => {
    const drifted = factsAbout(facts, "database", item.id);
    if (databaseFactsIn(drifted).length === 0) return { item, repair: false, reason: "the database was not read this tick" };
    const repaired = withTdeStatus(drifted, databaseFactsIn(drifted)[0].id, item.desired.transparentDataEncryption);
    const before = failures(drifted, stack, now);
    const after = failures(repaired, stack, now);
    const mandatory = after.find((f) => f.level === "mandatory");
    if (mandatory)
      return {
        item,
        repair: false,
        ruleId: mandatory.ruleId,
        reason: `${mandatory.ruleId} (mandatory) would flag it: ${mandatory.message}`,
      };
    const added = after.find((f) => !before.some((b) => b.ruleId === f.ruleId));
    if (added) return { item, repair: false, ruleId: added.ruleId, reason: `${added.ruleId} (advisory) would flag it: ${added.message}` };
    return { item, repair: true };
  });
}

/** The failing findings over the facts, with the stack's settings and exemptions. */
function failures(facts: ComplianceFacts, stack: Pick<StackConfig, "policies" | "exemptions">, now: number): Finding[] {
  return evaluateCompliance(facts, stack.policies, stack.exemptions, now).findings.filter((f) => f.verdict === "fail");
}
