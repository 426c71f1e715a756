import type { ClientSet } from "../clients/client-set";
import { liveTdeSummary } from "../domain/discovery/scope-coverage";
import type { ScopeSummary } from "../domain/reports/compliance-report";
import { subjectOf, type DatabaseFacts } from "../domain/facts/tde-status";
import { planTde, type TdePlan, type TdePlanItem } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import { discoverScope, mayWriteDatabase } from "./scope";

/** Exit code of `plan` and `drift` when changes are pending. */
export const EXIT_CHANGES = 2;

/** A plan of a stack with a scope: also "N databases in scope: L listed, D discovered; X non-compliant", judged on the live statuses read. */
export type ScopedPlan = TdePlan & { scope?: ScopeSummary };

/**
 * Compares each database's desired TDE with its live one: the changes `apply` would make, and the
 * databases that could not be read. With `stackwarden:scope`, the databases it discovers are
 * planned too; the changes apply may not make to them (no `scope.remediate`) are `held`.
 */
export async function runPlan(req: {
  stack: StackConfig;
  clients: ClientSet;
  concurrency?: number;
  signal?: AbortSignal;
}): Promise<ScopedPlan> {
  const { stack } = await discoverScope(req.stack, req.clients, req);
  const plan = await planTde(req.clients.sql, stack, { concurrency: req.concurrency, signal: req.signal });
  if (!stack.coverage) return plan;
  const held = plan.changes.filter((c) => !mayWriteDatabase(stack, c.desired));
  // The scope's counts, as check gives them, from the live statuses the plan read (no read more).
  const scope = liveTdeSummary(stack, plan.items.map(liveFactsOf), Date.now());
  return held.length ? { ...plan, changes: plan.changes.filter((c) => !held.includes(c)), held, scope } : { ...plan, scope };
}

/** A planned database's live TDE status, as the rules judge it. */
function liveFactsOf(i: TdePlanItem): DatabaseFacts {
  return { ...subjectOf(i.ref), liveTdeStatus: i.live };
}

/** The exit code of a plan: 1 when a database could not be read (the user must fix the stack), 2 when changes are pending, else 0. */
export function planExitCode(plan: TdePlan): number {
  return plan.errors.length > 0 ? 1 : plan.changes.length > 0 ? EXIT_CHANGES : 0;
}
