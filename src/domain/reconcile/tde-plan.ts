import type { ChangeAttribution } from "../changes/change-record";
import { databaseSubscription } from "../stack/stack-config";
import { mapBounded } from "../../platform/bounded-map";
import type { DesiredDatabase, StackConfig } from "../stack/stack-config";
import { databaseLabel, sqlDatabaseId } from "../../platform/arm/resource-id";
import { failedReadOf } from "../../platform/arm/failed-read";
import type { UnreadEntry } from "../stack/unread-entry";
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
  /** Who changed the database, when a change record led to it (a watcher's targeted re-read); absent when found by a sweep. */
  cause?: ChangeAttribution;
}

/** A database whose live state could not be read: it is left out of the plan, the others are planned. */
export interface TdePlanError {
  desired: DesiredDatabase;
  ref: TdeDatabaseRef;
  id: string;
  /** The API's answer: 404 when the cloud does not have the database (or its server or group). */
  status: number;
  code: string;
  message: string;
}

export interface TdePlan {
  items: TdePlanItem[];
  changes: TdePlanItem[];
  /** Databases that could not be read, each at its stack-file line; any makes `plan` exit 1. */
  errors: TdePlanError[];
  /**
   * Changes to databases found in the stack's scope that `apply` will not make (no `scope.remediate`,
   * or a scope exemption covers them): shown, never applied, and not counted as pending.
   */
  held?: TdePlanItem[];
}

export interface PlanOptions {
  /** Databases read at once. Default 16. */
  concurrency?: number;
  signal?: AbortSignal;
  /** Called after each database is read. */
  onRead?: (done: number, total: number) => void;
}

/**
 * Reads each database's live TDE status (one GET each) and lists the changes `apply` would make.
 * A database the API answers for with an error (404: the cloud does not have it; 403; a 5xx that
 * outlasted the retries …) becomes an entry of `errors` and the others are still planned. Failures
 * that are not about one database (no answer at all, no credential, a refused token, a
 * cancellation) stop the plan: every read would fail the same way.
 */
export async function planTde(
  api: TdeApi,
  stack: Pick<StackConfig, "subscriptionId" | "databases">,
  opts: PlanOptions = {},
): Promise<TdePlan> {
  let done = 0;
  const read = await mapBounded(stack.databases, opts.concurrency ?? 16, async (desired): Promise<TdePlanItem | TdePlanError> => {
    const ref: TdeDatabaseRef = {
      subscriptionId: databaseSubscription(stack, desired),
      resourceGroup: desired.resourceGroup,
      server: desired.server,
      database: desired.database,
    };
    const id = sqlDatabaseId(ref);
    let live: string | undefined;
    try {
      live = (await api.getTransparentDataEncryption(ref, opts.signal)).properties?.status;
    } catch (e) {
      const failed = failedReadOf(e);
      if (!failed) throw e;
      opts.onRead?.(++done, stack.databases.length);
      return { desired, ref, id, status: failed.status, code: failed.code, message: failed.message };
    }
    opts.onRead?.(++done, stack.databases.length);
    return { desired, ref, id, live, action: decideAction(live, desired.transparentDataEncryption) };
  });
  const items = read.filter((r): r is TdePlanItem => "action" in r);
  const errors = read.filter((r): r is TdePlanError => !("action" in r));
  return { items, changes: items.filter((i) => i.action !== "none"), errors };
}

/** What to do to move a live status to the desired one. An unknown live value is moved too. */
export function decideAction(live: string | undefined, desired: TdeStatus): TdeAction {
  if (live === desired) return "none";
  return desired === "Enabled" ? "enable" : "disable";
}

/** A plan error as the entry every command reports a database it could not read by. */
export function unreadOfPlanError(e: TdePlanError): UnreadEntry {
  return {
    kind: "database",
    id: e.id,
    label: databaseLabel(e.ref),
    source: e.desired.source,
    operation: "TransparentDataEncryptions_Get",
    status: e.status,
    code: e.code,
    message: e.message,
  };
}
