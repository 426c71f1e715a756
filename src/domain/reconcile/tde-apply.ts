import { setTimeout as sleep } from "node:timers/promises";
import { settleBounded } from "../../platform/bounded-map";
import type { ErrorCode } from "../../platform/errors/error-codes";
import { errorCodeOf } from "../../platform/errors/error-code-of";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import { CallFailure } from "../../platform/errors/call-failure";
import { databaseLabel } from "../../platform/arm/resource-id";
import type { TdeApi, TdeDatabaseRef, TdeStatus } from "./tde-api";
import type { TdePlanItem } from "./tde-plan";

/** What happens to one database during apply, for live progress output. */
export type ApplyEvent =
  | { kind: "started"; item: TdePlanItem }
  | { kind: "progress"; item: TdePlanItem; activity: string; percentComplete: number }
  | { kind: "converged"; item: TdePlanItem; elapsedMs: number }
  | { kind: "failed"; item: TdePlanItem; error: string };

export interface ApplyOptions {
  /** Databases changed at once. Default 8. */
  concurrency?: number;
  /** How long to wait for one scan to finish, in ms. Default 60 minutes. */
  scanTimeoutMs?: number;
  /** Time between progress polls, in ms. Default 1000. */
  pollIntervalMs?: number;
  signal?: AbortSignal;
  onEvent?: (e: ApplyEvent) => void;
}

export interface ApplyOutcome {
  item: TdePlanItem;
  ok: boolean;
  error?: string;
  /** The stable code of the failure, when it failed (`SW_NOT_CONVERGED` for a scan, an API failure's own). */
  code?: ErrorCode;
  elapsedMs: number;
}

/** A scan that ended without reaching the desired state, or did not end in time (`SW_NOT_CONVERGED`). */
export class ScanError extends StackwardenError {
  constructor(message: string) {
    super("SW_NOT_CONVERGED", message);
    this.name = "ScanError";
  }
}

/**
 * Applies the planned changes: PUT the desired status, then poll operationResults until the
 * encryption or decryption scan has finished and the status reads as desired. Every change is
 * attempted; each outcome is reported.
 */
export async function applyTde(api: TdeApi, changes: readonly TdePlanItem[], opts: ApplyOptions = {}): Promise<ApplyOutcome[]> {
  const settled = await settleBounded(changes, opts.concurrency ?? 8, async (item) => {
    const started = Date.now();
    opts.onEvent?.({ kind: "started", item });
    await putWhenIdle(api, item.ref, item.desired.transparentDataEncryption, opts);
    await waitForScan(api, item, opts);
    const elapsedMs = Date.now() - started;
    opts.onEvent?.({ kind: "converged", item, elapsedMs });
    return elapsedMs;
  });
  return settled.map((s, i) => {
    if (s.status === "fulfilled") return { item: changes[i], ok: true, elapsedMs: s.value };
    const error = (s.reason as Error).message;
    opts.onEvent?.({ kind: "failed", item: changes[i], error });
    return { item: changes[i], ok: false, error, code: errorCodeOf(s.reason), elapsedMs: 0 };
  });
}

/**
 * PUTs the desired status. Azure refuses a change while an encryption or decryption scan still
 * runs (409 ConflictingDatabaseOperation); then this waits for that scan to end and tries once more.
 */
export async function putWhenIdle(api: TdeApi, ref: TdeDatabaseRef, status: TdeStatus, opts: ApplyOptions): Promise<void> {
  try {
    await api.putTransparentDataEncryption(ref, status, opts.signal);
    return;
  } catch (e) {
    if (!(e instanceof CallFailure && e.status === 409)) throw e;
  }
  const deadline = Date.now() + (opts.scanTimeoutMs ?? 60 * 60_000);
  const interval = opts.pollIntervalMs ?? 1000;
  while ((await api.listTransparentDataEncryptionActivities(ref, opts.signal)).some((a) => a.properties?.status)) {
    if (Date.now() + interval > deadline) {
      throw new ScanError(
        `${databaseLabel(ref)}: an earlier scan still runs after ${Math.round((opts.scanTimeoutMs ?? 3_600_000) / 1000)} s, so TDE cannot be changed yet`,
      );
    }
    await sleep(interval, undefined, { signal: opts.signal });
  }
  await api.putTransparentDataEncryption(ref, status, opts.signal);
}

/**
 * Polls until no scan runs and the status reads as desired. A scan that disappears while the
 * status is not the desired one has failed; one that outlives the timeout is reported with the
 * progress it had reached.
 */
export async function waitForScan(
  api: TdeApi,
  item: Pick<TdePlanItem, "ref" | "desired"> & Partial<TdePlanItem>,
  opts: ApplyOptions,
): Promise<void> {
  const timeout = opts.scanTimeoutMs ?? 60 * 60_000;
  const interval = opts.pollIntervalMs ?? 1000;
  const desired: TdeStatus = item.desired.transparentDataEncryption;
  const deadline = Date.now() + timeout;
  let last: { activity: string; percent: number } | undefined;
  for (;;) {
    const activities = await api.listTransparentDataEncryptionActivities(item.ref, opts.signal);
    const running = activities.find((a) => a.properties?.status);
    if (running) {
      last = { activity: running.properties!.status!, percent: Number(running.properties!.percentComplete ?? 0) };
      opts.onEvent?.({ kind: "progress", item: item as TdePlanItem, activity: last.activity, percentComplete: last.percent });
    } else {
      const status = (await api.getTransparentDataEncryption(item.ref, opts.signal)).properties?.status;
      if (status === desired) return;
      throw new ScanError(
        `${databaseLabel(item.ref)}: the ${desired === "Enabled" ? "encryption" : "decryption"} scan ended${last ? ` at ${last.percent}%` : ""} but the status is ${status ?? "missing"}, not ${desired}; the scan failed, check the database's activity log and retry apply`,
      );
    }
    if (Date.now() + interval > deadline) {
      throw new ScanError(
        `${databaseLabel(item.ref)}: the ${last?.activity.toLowerCase() ?? "TDE"} scan did not finish within ${Math.round(timeout / 1000)} s (stuck at ${last?.percent ?? 0}%); raise --scan-timeout or investigate the database`,
      );
    }
    await sleep(interval, undefined, { signal: opts.signal });
  }
}
