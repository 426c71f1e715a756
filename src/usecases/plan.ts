import type { ClientSet } from "../clients/client-set";
import { planTde, type TdePlan } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import { discoverScope, mayWriteDatabase } from "./scope";

/** Exit code of `plan` and `drift` when changes are pending. */
export const EXIT_CHANGES = 2;

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
}): Promise<TdePlan> {
  const { stack } = await discoverScope(req.stack, req.clients, req);
  const plan = await planTde(req.clients.sql, stack, { concurrency: req.concurrency, signal: req.signal });
  if (!stack.coverage) return plan;
  const held = plan.changes.filter((c) => !mayWriteDatabase(stack, c.desired));
  return held.length ? { ...plan, changes: plan.changes.filter((c) => !held.includes(c)), held } : plan;
}

/** The exit code of a plan: 1 when a database could not be read (the user must fix the stack), 2 when changes are pending, else 0. */
export function planExitCode(plan: TdePlan): number {
  return plan.errors.length > 0 ? 1 : plan.changes.length > 0 ? EXIT_CHANGES : 0;
}
