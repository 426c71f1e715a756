import { setTimeout as delay } from "node:timers/promises";
import { StackwardenError } from "../../platform/errors/stackwarden-error";
import type { LockHolder } from "../../platform/state/lock-holder";
import type { HeldLease, LockStore } from "./state-ports";

/** Who leads, as one replica sees it. */
export interface LeaderView {
  role: "leader" | "standby";
  /** The leader (this replica when it leads); absent while nobody holds the lease. */
  leader?: LockHolder;
  /** When the leader's lease lapses unless renewed (ISO 8601); known to the leader only. */
  leaseExpiresAt?: string;
}

/** What a replica does when it is elected and when it is deposed. */
export interface LeaderDuties {
  /** Called once per term, when this replica takes the lease. */
  elected(term: HeldLease): Promise<void> | void;
  /** Called when the term ends: the lease was lost (lapsed, broken, taken) or released at stop. */
  deposed(reason: string): Promise<void> | void;
}

/**
 * Leader election on the state's locks, as Azure's Event Processor and the Pulumi Kubernetes
 * Operator elect (a lease): every replica campaigns for one named lease; the holder leads until it
 * loses the lease (its renewals failed, or it was broken) or stops, and the others try again every
 * `retryMs`. A leader that lost its lease is told at once (`deposed`) and must stop writing; `check`
 * is the fence before each of its writes.
 */
export class LeaderLease {
  private term?: HeldLease;
  private stopped = false;
  private readonly wake = new AbortController();
  private loop?: Promise<void>;

  constructor(
    private readonly locks: LockStore,
    readonly name: string,
    private readonly holder: LockHolder,
    private readonly duties: LeaderDuties,
    private readonly opts: { retryMs?: number; warn?: (line: string) => void } = {},
  ) {}

  /** Starts campaigning; resolves once the first attempt has ended (elected or standing by). */
  async start(): Promise<void> {
    await this.attempt();
    this.loop = this.campaign();
  }

  /** This replica's view: its role, the leader, and (leading) when its lease lapses. */
  async view(): Promise<LeaderView> {
    const term = this.term;
    if (term && !term.lost.aborted)
      return {
        role: "leader",
        leader: term.holder,
        ...(term.expiresAt ? { leaseExpiresAt: new Date(term.expiresAt()).toISOString() } : {}),
      };
    const leader = await this.locks.holder(this.name).catch(() => undefined);
    return { role: "standby", ...(leader ? { leader } : {}) };
  }

  /** Whether this replica leads now (as far as it knows without asking the store). */
  get leading(): boolean {
    return !!this.term && !this.term.lost.aborted;
  }

  /** The fence before a leader's write: throws (SW_NOT_LEADER, SW_LOCK_LOST) unless the lease is still ours. */
  async check(): Promise<void> {
    const term = this.term;
    if (!term) throw new StackwardenError("SW_NOT_LEADER", `this replica does not lead (${this.name}): it writes nothing`);
    await term.check();
  }

  /** Stops campaigning and gives the lease up (the next replica takes over within its retry period). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake.abort();
    await this.loop;
    const term = this.term;
    this.term = undefined;
    if (term) {
      await term.release();
      await this.duties.deposed("stopping: the lease was given up");
    }
  }

  private async campaign(): Promise<void> {
    const retryMs = this.opts.retryMs ?? 1000;
    while (!this.stopped) {
      if (this.term) {
        // Leading: wait for the term to end (or the replica to stop).
        await new Promise<void>((resolve) => {
          if (this.term!.lost.aborted || this.wake.signal.aborted) return resolve();
          this.term!.lost.addEventListener("abort", () => resolve(), { once: true });
          this.wake.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        if (this.stopped) return;
        const reason = (this.term!.lost.reason as Error)?.message ?? "the lease was lost";
        this.term = undefined;
        await this.duties.deposed(reason);
        continue;
      }
      await delay(retryMs, undefined, { signal: this.wake.signal }).catch(() => undefined);
      if (!this.stopped) await this.attempt();
    }
  }

  private async attempt(): Promise<void> {
    try {
      const got = await this.locks.acquire({ name: this.name, holder: { ...this.holder, since: new Date().toISOString() }, timeoutMs: 0 });
      if (!got.held) return;
      this.term = got.lease;
      await this.duties.elected(got.lease);
    } catch (e) {
      this.opts.warn?.(`leader election: ${(e as Error).message}`);
    }
  }
}
