import type { ClientSet } from "../clients/client-set";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import { databaseFactsIn, tdeStatus } from "../domain/facts/tde-status";
import { UNKNOWN } from "../platform/unknown-value";
import type { TdeDatabaseRef } from "../domain/reconcile/tde-api";
import { decideAction, type TdePlanItem } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import { sqlDatabaseId } from "../platform/arm/resource-id";
import type { StateDirs } from "../platform/settings/state-dirs";
import { runCheck, type CheckOutcome } from "./check";

/** What one watch tick found: the check of the stack's live state, and each database's plan from the same reads. */
export interface TickFindings {
  check: CheckOutcome;
  /** Every managed database's plan item (action `none` when live TDE matches the stack). */
  items: TdePlanItem[];
  /** The items with a change to make. */
  drift: TdePlanItem[];
}

/**
 * The reading half of a watch tick: judges the stack with every enabled rule through the check use
 * case (artifacts and probe results included, as `check` does), and plans each database's TDE from
 * the same reads. What the tick then applies or repairs is the watcher's to decide.
 */
export async function judgeTick(req: {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  dirs: StateDirs;
  concurrency: number;
  signal?: AbortSignal;
  warn?: (line: string) => void;
}): Promise<TickFindings> {
  const check = await runCheck({ ...req, alsoGather: [tdeStatus.key] });
  const items = planItems(req.stack, check.facts);
  return { check, items, drift: items.filter((i) => i.action !== "none") };
}

/**
 * Plan items from facts gathered for the stack (the facts are in the stack's database order). A
 * database that could not be read (the check's `unread`) has no item: nothing is applied to it.
 */
export function planItems(stack: StackConfig, facts: ComplianceFacts): TdePlanItem[] {
  return stack.databases.flatMap((desired, i) => {
    const fact = databaseFactsIn(facts)[i];
    if (fact?.unread) return [];
    const ref: TdeDatabaseRef = {
      subscriptionId: stack.subscriptionId,
      resourceGroup: desired.resourceGroup,
      server: desired.server,
      database: desired.database,
    };
    const raw = fact?.liveTdeStatus;
    const live = raw === UNKNOWN ? undefined : raw;
    return [{ desired, ref, id: sqlDatabaseId(ref), live, action: decideAction(live, desired.transparentDataEncryption) }];
  });
}
