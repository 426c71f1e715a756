import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import type { BlobClient, BlobLeaseClient } from "@azure/storage-blob";
import { StackwardenError } from "../../errors/stackwarden-error";
import { stackFileKey } from "../../settings/state-dirs";
import { lockHolderOf, type LockHolder } from "../lock-holder";
import { statusOf, storageCodeOf, type BlobContainer } from "./blob-container";

/** How the leases behave; every field has a default. */
export interface LeaseSettings {
  /** The lease's length, in seconds: 15 to 60, as Blob Storage allows. Default 30. */
  leaseSeconds?: number;
}

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
    const seconds = settings.leaseSeconds ?? 30;
    if (!(seconds >= 15 && seconds <= 60)) throw new Error(`a lease lasts 15 to 60 s, got ${seconds}`);
    this.leaseMs = seconds * 1000;
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

  async acquire(request: {
    name: string;
    holder: LockHolder;
    timeoutMs: number;
    pollMs?: number;
    onWait?(holder: LockHolder | undefined): void;
    signal?: AbortSignal;
  }) {
    const blob = this.blob(request.name);
    await this.ensureBlob(blob, request.name);
    const started = Date.now();
    const pollMs = request.pollMs ?? 1000;
    let waiting = false;
    for (;;) {
      const lease = blob.getBlobLeaseClient(randomUUID());
      const holder: LockHolder = { ...request.holder, since: new Date().toISOString() };
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
        lease: new HeldBlobLease(lease, holder, waiting ? Date.now() - started : 0, this.leaseMs, request.name),
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

/** A lease held by this process: renewed in the background, checked before every write. */
class HeldBlobLease {
  private readonly lostController = new AbortController();
  private lastRenewedAt = Date.now();
  private released = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly lease: BlobLeaseClient,
    readonly holder: LockHolder,
    readonly waitedMs: number,
    private readonly leaseMs: number,
    private readonly name: string,
  ) {
    this.timer = setInterval(() => void this.renew().catch(() => undefined), Math.floor(leaseMs / 3));
    this.timer.unref();
  }

  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  expiresAt(): number {
    return this.lastRenewedAt + this.leaseMs;
  }

  /** Renews now: the fence before a write. Throws SW_LOCK_LOST once the lease is not certainly ours. */
  async check(): Promise<void> {
    if (this.lost.aborted) throw this.lost.reason;
    await this.renew();
    if (this.lost.aborted) throw this.lost.reason;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    clearInterval(this.timer);
    // Released even when it seemed lost: if it is still ours after all (a refusal that was not the
    // service's last word), the next holder need not wait for it to lapse; if not, nothing happens.
    await this.lease.releaseLease().catch(() => undefined);
  }

  private async renew(): Promise<void> {
    if (this.released || this.lost.aborted) return;
    try {
      await this.lease.renewLease();
      this.lastRenewedAt = Date.now();
    } catch (e) {
      if (this.released) return;
      const code = storageCodeOf(e);
      if (LEASE_GONE.has(code) || statusOf(e) === 409 || statusOf(e) === 412) {
        this.lose(`its lease was broken or taken over (${code || `HTTP ${statusOf(e)}`})`);
        return;
      }
      // No answer, or a 5xx: the lease may still be ours, but only while it cannot have lapsed.
      // Half the lease is the margin: no write is sent after that without a renewal that worked.
      if (Date.now() - this.lastRenewedAt > this.leaseMs / 2) {
        this.lose(
          `it could not be renewed for ${Math.round((Date.now() - this.lastRenewedAt) / 1000)} s (${(e as Error).message.split("\n")[0]})`,
        );
      }
    }
  }

  private lose(why: string): void {
    clearInterval(this.timer);
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
