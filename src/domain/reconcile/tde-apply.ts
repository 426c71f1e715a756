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
  | { kind: "failed"; item: TdePlanItem; error: string; code: ErrorCode };

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

/**
 * Whether a change's PUT reached Azure: `not-sent` (refused by the fence, or never started),
 * `unknown` (sent, and no answer came before the apply stopped: Azure may have taken it), `sent`
 * (accepted). What an apply that stops half-way (its lock lost, a shutdown) must say of each change.
 */
export type PutState = "not-sent" | "unknown" | "sent";

export interface ApplyOutcome {
  item: TdePlanItem;
  ok: boolean;
  /** Whether its PUT reached Azure. */
  put: PutState;
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
  const put: PutState[] = changes.map(() => "not-sent");
  const settled = await settleBounded(changes, opts.concurrency ?? 8, async (item, i) => {
    const started = Date.now();
    opts.onEvent?.({ kind: "started", item });
    await putWhenIdle(api, item.ref, item.desired.transparentDataEncryption, opts, (state) => (put[i] = state));
    await waitForScan(api, item, opts);
    const elapsedMs = Date.now() - started;
    opts.onEvent?.({ kind: "converged", item, elapsedMs });
    return elapsedMs;
  });
  return settled.map((s, i) => {
    if (s.status === "fulfilled") return { item: changes[i], ok: true, put: "sent", elapsedMs: s.value };
    // Stopped (the lock lost, a shutdown): why it stopped, not the abort that the stop caused.
    const reason = opts.signal?.aborted && opts.signal.reason instanceof Error ? opts.signal.reason : (s.reason as Error);
    const error = reason.message;
    const code = errorCodeOf(reason);
    opts.onEvent?.({ kind: "failed", item: changes[i], error, code });
    return { item: changes[i], ok: false, put: put[i], error, code, elapsedMs: 0 };
  });
}

/**
 * PUTs the desired status. Azure refuses a change while an encryption or decryption scan still
 * runs (409 ConflictingDatabaseOperation); then this waits for that scan to end and tries once more.
 */
export async function putWhenIdle(
  api: TdeApi,
  ref: TdeDatabaseRef,
  status: TdeStatus,
  opts: ApplyOptions,
  onPut: (state: PutState) => void = () => {},
): Promise<void> {
  try {
    await sendPut(api, ref, status, opts, onPut);
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
  await sendPut(api, ref, status, opts, onPut);
}

/**
 * One PUT, telling `onPut` what is known of it: `unknown` once it may have gone out, `sent` once
 * Azure accepted it, back to `not-sent` when it certainly did not go (the fence refused it, or Azure
 * refused it with a 4xx: a 409 while a scan runs changes nothing). No answer, or a 5xx, stays unknown.
 */
async function sendPut(
  api: TdeApi,
  ref: TdeDatabaseRef,
  status: TdeStatus,
  opts: ApplyOptions,
  onPut: (state: PutState) => void,
): Promise<void> {
  onPut("unknown");
  try {
    await api.putTransparentDataEncryption(ref, status, opts.signal);
  } catch (e) {
    if ((e instanceof CallFailure && e.status >= 400 && e.status < 500) || errorCodeOf(e) === "SW_LOCK_LOST") onPut("not-sent");
    throw e;
  }
  onPut("sent");
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
