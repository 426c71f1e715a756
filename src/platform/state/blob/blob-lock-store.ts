import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { BlobClient, BlobLeaseClient } from "@azure/storage-blob";
import { StackwardenError } from "../../errors/stackwarden-error";
import { stackFileKey } from "../../settings/state-dirs";
import { leaseMsOf } from "../lease-timing";
import { lockHolderOf, type LockHolder, type LockRequest } from "../lock-holder";
import { statusOf, storageCodeOf, type BlobContainer } from "./blob-container";

/** How the leases behave; every field has a default. */
export interface LeaseSettings {
  /** The lease's length, in seconds: 15 to 60, as Blob Storage allows. Default 30. */
  leaseSeconds?: number;
}

/** The pause between a fence's renewals that proved nothing (no answer, a 5xx), in ms. */
const FENCE_RETRY_MS = 100;

/** Lease errors that mean the lease is no longer ours (broken, lapsed and taken, released). */
const LEASE_GONE = new Set([
  "LeaseIdMismatchWithLeaseOperation",
  "LeaseNotPresentWithLeaseOperation",
  "LeaseLost",
  "LeaseIsBrokenAndCannotBeRenewed",
  "LeaseIsBreakingAndCannotBeAcquired",
  "LeaseIdMismatchWithBlobOperation",
]);

/**
 * Per-stack locks as blob leases, as Terraform's azurerm backend locks its state: one empty blob per
 * lock (`<prefix>locks/<stack>.lock`), leased for `leaseSeconds` and renewed every third of it while
 * held, the holder (pid, host, since, command, stack) in the blob's metadata. A crashed holder's
 * lease lapses by itself. A holder whose renewals fail stops before its lease can lapse (`lost`),
 * and `check()` renews right before every write: a process paused past its lease (SIGSTOP, a long
 * GC, a partition) finds the lease gone and sends nothing more.
 */
export class BlobLockStore {
  readonly leaseMs: number;

  constructor(
    private readonly c: BlobContainer,
    settings: LeaseSettings = {},
  ) {
    this.leaseMs = leaseMsOf(settings.leaseSeconds);
  }

  where(name: string): string {
    return `${this.c.base}/${this.blobName(name)}`;
  }

  async holder(name: string): Promise<LockHolder | undefined> {
    try {
      const props = await this.blob(name).getProperties();
      return props.leaseState === "leased" ? holderOf(props.metadata) : undefined;
    } catch (e) {
      if (statusOf(e) === 404) return undefined;
      throw this.c.failure(`read the lock ${this.where(name)}`, e);
    }
  }

  async break(name: string): Promise<LockHolder | undefined> {
    const holder = await this.holder(name);
    if (!holder) return undefined;
    try {
      await this.blob(name).getBlobLeaseClient().breakLease(0);
    } catch (e) {
      // Already lapsed or released meanwhile: broken all the same.
      if (statusOf(e) !== 409) throw this.c.failure(`break the lock ${this.where(name)}`, e);
    }
    return holder;
  }

  async acquire(request: LockRequest) {
    const blob = this.blob(request.name);
    await this.ensureBlob(blob, request.name);
    const started = Date.now();
    const pollMs = request.pollMs ?? 1000;
    let waiting = false;
    for (;;) {
      const lease = blob.getBlobLeaseClient(randomUUID());
      const holder: LockHolder = { ...request.holder, since: new Date().toISOString() };
      // The lease runs from when the service took the request: at the latest from now on.
      const sentAt = Date.now();
      try {
        await lease.acquireLease(this.leaseMs / 1000);
      } catch (e) {
        if (statusOf(e) !== 409) throw this.c.failure(`take the lock ${this.where(request.name)}`, e);
        const current = await this.holder(request.name);
        const waited = Date.now() - started;
        if (waited >= request.timeoutMs) return { held: false as const, holder: current, waitedMs: request.timeoutMs > 0 ? waited : 0 };
        if (!waiting) {
          waiting = true;
          request.onWait?.(current);
        }
        await delay(Math.min(pollMs, request.timeoutMs - waited), undefined, { signal: request.signal });
        continue;
      }
      try {
        await blob.setMetadata(metadataOf(holder), { conditions: { leaseId: lease.leaseId } });
      } catch (e) {
        await lease.releaseLease().catch(() => undefined);
        throw this.c.failure(`write the holder of the lock ${this.where(request.name)}`, e);
      }
      return {
        held: true as const,
        lease: new HeldBlobLease(lease, holder, waiting ? Date.now() - started : 0, this.leaseMs, request.name, sentAt),
      };
    }
  }

  private blobName(name: string): string {
    return `${this.c.prefix}locks/${stackFileKey(name)}.lock`;
  }

  private blob(name: string): BlobClient {
    return this.c.client.getBlobClient(this.blobName(name));
  }

  /** The lease blob exists (an empty block blob, created once by whoever comes first). */
  private async ensureBlob(blob: BlobClient, name: string): Promise<void> {
    try {
      await blob.getBlockBlobClient().upload("", 0, { conditions: { ifNoneMatch: "*" } });
    } catch (e) {
      const status = statusOf(e);
      // 409: it exists (and may be leased); 412: it exists.
      if (status !== 409 && status !== 412) throw this.c.failure(`create the lock ${this.where(name)}`, e);
    }
  }
}

/**
 * A lease held by this process: renewed in the background every third of its length, checked
 * before every write. It is ours for a full lease from when the last renewal that worked was sent;
 * it counts as lost half a lease after that (a watchdog, whatever the renewals are doing: one that
 * never returns counts as failed at its deadline, and is aborted when the lease is lost), so a
 * holder stops writing with half a lease to spare before the lease can lapse.
 */
class HeldBlobLease {
  private readonly lostController = new AbortController();
  /** When the last renewal (or the acquisition) that worked was sent, in ms since the epoch. */
  private renewedSentAt: number;
  private released = false;
  /** The background renewal under way, if any (one at a time: a hung one is not piled onto). */
  private background: Promise<void> | undefined;
  /** Lost because nothing answered (not refused): a release could not get through either. */
  private lostForSilence = false;
  /** What the last renewal that failed got: an answer (a 5xx) or none (undefined: none failed since the last that worked). */
  private lastFailure: { answered: boolean; said: string } | undefined;
  private readonly timer: NodeJS.Timeout;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly lease: BlobLeaseClient,
    readonly holder: LockHolder,
    readonly waitedMs: number,
    private readonly leaseMs: number,
    private readonly name: string,
    acquiredSentAt: number,
  ) {
    this.renewedSentAt = acquiredSentAt;
    this.timer = setInterval(
      () => {
        this.background ??= this.renew()
          .then(() => undefined)
          .finally(() => (this.background = undefined));
      },
      Math.floor(leaseMs / 3),
    );
    this.timer.unref();
    this.armWatchdog();
  }

  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  expiresAt(): number {
    return this.renewedSentAt + this.leaseMs;
  }

  /**
   * The fence before a write: resolves once a renewal sent after it was called has worked (and was
   * answered within half a lease: an answer read late, the process paused with it in its socket,
   * proves nothing for now). A renewal that got no answer, or a 5xx, proves nothing either (the
   * lease may have been broken meanwhile): it is tried again until one works or the lease is lost.
   * Throws SW_LOCK_LOST once the lease is not certainly ours (refused, or no renewal worked for half
   * a lease: a renewal under way is then abandoned at once), so nothing is written unconfirmed.
   */
  async check(): Promise<void> {
    for (;;) {
      if (this.lost.aborted) throw this.lost.reason;
      const sentAt = await this.renew();
      if (sentAt !== undefined && Date.now() - sentAt >= this.leaseMs / 2) this.loseForSilence();
      if (this.lost.aborted) throw this.lost.reason;
      if (sentAt !== undefined) return;
      await delay(FENCE_RETRY_MS, undefined, { signal: this.lost }).catch(() => undefined);
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    clearTimeout(this.watchdog);
    // Lost because the store did not answer: the lease lapses by itself within half a lease, and a
    // release would only wait for the same silence. Otherwise released even when it seemed lost:
    // if it is still ours after all (a refusal that was not the service's last word), the next
    // holder need not wait for it to lapse; if not, nothing happens.
    if (this.lostForSilence) return;
    await this.lease.releaseLease().catch(() => undefined);
  }

  /** Renews once; resolves to when the renewal was sent if it worked, undefined if not. */
  private async renew(): Promise<number | undefined> {
    if (this.released || this.lost.aborted) return undefined;
    const sentAt = Date.now();
    try {
      await this.lease.renewLease({ abortSignal: this.lost });
      if (this.released || this.lost.aborted) return undefined;
      if (sentAt > this.renewedSentAt) {
        this.renewedSentAt = sentAt;
        this.lastFailure = undefined;
        this.armWatchdog();
      }
      return sentAt;
    } catch (e) {
      if (this.released || this.lost.aborted) return undefined;
      const code = storageCodeOf(e);
      if (LEASE_GONE.has(code) || statusOf(e) === 409 || statusOf(e) === 412) {
        this.lose(`its lease was broken or taken over (${code || `HTTP ${statusOf(e)}`})`);
        return undefined;
      }
      // No answer, or a 5xx: the lease may still be ours, until the watchdog says otherwise.
      const status = statusOf(e);
      this.lastFailure = {
        answered: status !== 0,
        said: status ? `HTTP ${status}${code ? ` ${code}` : ""}` : (e as Error).message.split("\n")[0],
      };
      return undefined;
    }
  }

  /** Loses the lease half a lease after the last renewal that worked was sent. */
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    this.watchdog = setTimeout(() => this.loseForSilence(), Math.max(0, this.renewedSentAt + this.leaseMs / 2 - Date.now()));
    this.watchdog.unref();
  }

  private loseForSilence(): void {
    if (this.released || this.lost.aborted) return;
    const last = this.lastFailure;
    this.lostForSilence = !last?.answered;
    const why = last?.answered ? `the store answered ${last.said}` : `the store did not answer in time${last ? `: ${last.said}` : ""}`;
    this.lose(`no renewal worked for ${((Date.now() - this.renewedSentAt) / 1000).toFixed(1)} s (${why})`);
  }

  private lose(why: string): void {
    clearInterval(this.timer);
    clearTimeout(this.watchdog);
    this.lostController.abort(
      new StackwardenError("SW_LOCK_LOST", `the lock of stack ${this.name} was lost while held: ${why}; stopping before the next write`),
    );
  }
}

/** Blob metadata is ASCII header values: each field percent-encoded. */
function metadataOf(h: LockHolder): Record<string, string> {
  return {
    holderpid: String(h.pid),
    holderhost: encodeURIComponent(h.host),
    holdersince: h.since,
    holdercommand: encodeURIComponent(h.command),
    holderstack: encodeURIComponent(h.stack),
  };
}

function holderOf(metadata: Record<string, string> | undefined): LockHolder | undefined {
  if (!metadata?.holderpid) return undefined;
  const decode = (v: string | undefined) => {
    try {
      return decodeURIComponent(v ?? "");
    } catch {
      return v ?? "";
    }
  };
  return lockHolderOf({
    pid: Number(metadata.holderpid),
    host: decode(metadata.holderhost),
    since: metadata.holdersince,
    command: decode(metadata.holdercommand),
    stack: decode(metadata.holderstack),
  });
}
