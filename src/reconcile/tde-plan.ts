import { mapBounded } from "../concurrency/bounded-map";
import type { DesiredDatabase, StackConfig } from "../config/stack-config";
import { sqlDatabaseId } from "../arm/resource-id";
import type { TdeApi, TdeDatabaseRef, TdeStatus } from "./tde-api";

export type TdeAction = "none" | "enable" | "disable";

/** One database's comparison of desired and live TDE status. */
export interface TdePlanItem {
  desired: DesiredDatabase;
  ref: TdeDatabaseRef;
  /** The database's ARM id. */
  id: string;
  /** The live status, exactly as the API said it (an unknown value is carried through). */
  live: string | undefined;
  action: TdeAction;
}

export interface TdePlan {
  items: TdePlanItem[];
  changes: TdePlanItem[];
}

export interface PlanOptions {
  /** Databases read at once. Default 16. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called after each database is read. */
  onRead?: (done: number, total: number) => void;
}

/** Reads each database's live TDE status (one GET each) and lists the changes `apply` would make. */
export async function planTde(
  api: TdeApi,
  stack: Pick<StackConfig, "subscriptionId" | "databases">,
  opts: PlanOptions = {},
): Promise<TdePlan> {
  let done = 0;
  const items = await mapBounded(stack.databases, opts.concurrency ?? 16, async (desired) => {
    const ref: TdeDatabaseRef = {
      subscriptionId: stack.subscriptionId,
      resourceGroup: desired.resourceGroup,
      server: desired.server,
      database: desired.database,
    };
    const live = (await api.getTransparentDataEncryption(ref, opts.signal)).properties?.status;
    opts.onRead?.(++done, stack.databases.length);
    return { desired, ref, id: sqlDatabaseId(ref), live, action: decideAction(live, desired.transparentDataEncryption) };
  });
  return { items, changes: items.filter((i) => i.action !== "none") };
}

/** What to do to move a live status to the desired one. An unknown live value is moved too. */
export function decideAction(live: string | undefined, desired: TdeStatus): TdeAction {
  if (live === desired) return "none";
  return desired === "Enabled" ? "enable" : "disable";
}
