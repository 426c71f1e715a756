import { sqlDatabaseId } from "../../platform/arm/resource-id";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { AuditChange } from "../audit/audit-entry";
import { auditChangesOf, startedChange } from "./apply-changes";
import type { TdeApi, TdeDatabaseRef, TdeResource, TdeStatus } from "./tde-api";
import { applyTde, waitForScan } from "./tde-apply";
import { decideAction, type TdePlanItem } from "./tde-plan";

/** One database's desired TDE status, and how long its scan may take. */
export interface TdeWrite {
  ref: TdeDatabaseRef;
  status: TdeStatus;
  /** Longest wait for the scan, in ms. */
  scanTimeoutMs: number;
  /** Time between progress polls, in ms. */
  pollIntervalMs: number;
}

/** How a set went: the configuration as read first (its location), and the change made, if one was. */
export interface TdeSetResult {
  /** The TDE configuration as read before anything was sent. */
  read: TdeResource;
  /** The change, as the audit trail records it (converged, or failed with where it ended); absent when none was needed. */
  change?: AuditChange;
  /** Why the change did not converge (SW_NOT_CONVERGED, SW_LOCK_LOST, the API's own code …); absent when it did. */
  failure?: StackwardenError;
}

/**
 * Sets one database's TDE status (what a declarative resource's create and update do): reads it,
 * and when it differs announces the change (`started`, before anything is sent), PUTs it (waiting
 * out a scan that refuses it) and waits for its scan; when it already reads as desired, a scan
 * still under way is waited for. A failed read throws (nothing was changed); a change that did not
 * converge is returned with its failure, the status read back.
 */
export async function setTdeStatus(
  api: TdeApi,
  write: TdeWrite,
  opts: { signal?: AbortSignal; started?: (change: AuditChange) => Promise<void> } = {},
): Promise<TdeSetResult> {
  const { ref, status } = write;
  const timing = { scanTimeoutMs: write.scanTimeoutMs, pollIntervalMs: write.pollIntervalMs, signal: opts.signal };
  const read = await api.getTransparentDataEncryption(ref, opts.signal);
  const live = read.properties?.status;
  const item: TdePlanItem = {
    desired: { resourceGroup: ref.resourceGroup, server: ref.server, database: ref.database, transparentDataEncryption: status },
    ref,
    id: sqlDatabaseId(ref),
    live,
    action: decideAction(live, status),
  };
  if (item.action === "none") {
    await waitForScan(api, item, timing);
    return { read };
  }
  await opts.started?.(startedChange(item));
  const [outcome] = await applyTde(api, [item], { ...timing, concurrency: 1 });
  const [change] = await auditChangesOf(api, [outcome], opts.signal);
  if (outcome.ok) return { read, change };
  return {
    read,
    change,
    failure: new StackwardenError(outcome.code ?? "SW_NOT_CONVERGED", outcome.error ?? "the change did not converge"),
  };
}
