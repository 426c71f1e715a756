import type { Finding } from "../domain/compliance/finding";
import { databaseSubscription } from "../domain/stack/stack-config";
import type { ChangeAttribution } from "../domain/changes/change-record";
import { databaseIdOf, type RereadPlan } from "../domain/rereads/reread-plan";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import type { TdePlanItem } from "../domain/reconcile/tde-plan";
import { runWatchTick, type TickHooks, type TickReport, type TickRequest } from "./watch-tick";
import { mergedReads, type DatabaseRead } from "./watch-inventory";

/** What a watcher shows of its whole stack: the drift and findings the last sweep left, as re-reads since have updated them. */
export interface WatchView {
  drift: readonly TdePlanItem[];
  findings: readonly Finding[];
  /** Every database read (listed and discovered), as the last sweep and the re-reads since left it. */
  databases: readonly DatabaseRead[];
}

/**
 * A targeted re-read after changes: a watch tick over the stack narrowed to what the changes reach,
 * judging only the rules over the fact kinds they can alter (reread-plan.ts), with who made each
 * change carried by the drift it caused, then remediated as any tick is (locked, read again under
 * the lock: a re-read of something already repaired changes nothing). Its `remaining` and
 * `findings` are the whole stack's: the view's, with what was read again replaced.
 */
export async function runRereadTick(req: TickRequest, plan: RereadPlan, view: WatchView, hooks: TickHooks = {}): Promise<TickReport> {
  const report = await runWatchTick({ ...req, stack: plan.stack, rules: plan.rules, causes: mergedCauses(req.causes, plan.causes) }, hooks);
  const reread = new Set(plan.stack.databases.map((d) => databaseIdOf(databaseSubscription(plan.stack, d), d)));
  const subjects = subjectsOf(report.check.facts);
  const judged = new Set(plan.rules.map((r) => r.id));
  return {
    ...report,
    remaining: [...view.drift.filter((i) => !reread.has(i.id.toLowerCase())), ...report.remaining],
    findings: [...view.findings.filter((f) => !(judged.has(f.ruleId) && subjects.has(f.resourceId.toLowerCase()))), ...report.findings],
    databases: mergedReads(view.databases, report.databases),
  };
}

/** The causes a watcher remembers, with the batch's (newer) over them. */
function mergedCauses(
  kept: ReadonlyMap<string, ChangeAttribution> | undefined,
  batch: ReadonlyMap<string, ChangeAttribution>,
): ReadonlyMap<string, ChangeAttribution> {
  return kept ? new Map([...kept, ...batch]) : batch;
}

/** The subjects (lower-cased ids) of every gathered fact: the findings about them were judged again. */
function subjectsOf(facts: ComplianceFacts): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(facts))
    if (Array.isArray(list)) for (const f of list as { id?: unknown }[]) if (typeof f?.id === "string") out.add(f.id.toLowerCase());
  return out;
}
