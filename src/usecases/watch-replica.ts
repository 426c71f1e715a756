import { hostname } from "node:os";
import { LeaderLease, type LeaderView } from "../domain/state/leader-lease";
import type { LockStore } from "../domain/state/state-ports";
import type { LockHolder } from "../domain/reconcile/stack-lock";
import type { WatchStatusesPort } from "./watch-ports";

/** What a replica does while it leads: started when elected, stopped (and awaited) when deposed. */
export type LeaderWork = () => Promise<(reason: string) => Promise<void>>;

export interface WatchReplicaOptions {
  /** The state's locks: the leader holds the lease named after the watched stacks. */
  locks: LockStore;
  /** The lease's name: one leader per group of stacks (`watch-dev`, `watch-all`). */
  group: string;
  /** The statuses the leader keeps, which a standby follows. */
  statuses: Pick<WatchStatusesPort, "adoptStored">;
  /** The leader's work: ticks, applies, events. */
  lead: LeaderWork;
  /** Called with the new role (and, standing by, who leads) whenever it changes. */
  onRole?: (role: "leader" | "standby", leader?: LockHolder) => void;
  log: (line: string) => void;
  /** How often a standby campaigns and reads the leader's statuses, in ms. Default 1000. */
  retryMs?: number;
}

/**
 * One watcher replica among those sharing a state store: it campaigns for the group's lease; while
 * it leads it does the work (ticks, applies, remediations, events), and while it stands by it
 * serves the page, the API and /metrics from the statuses the leader stores, naming the leader. A
 * leader that loses its lease (its renewals failed, it was paused past it, it was broken) stops its
 * work at once and says so; the standby that takes the lease next resumes from the stored state.
 */
export class WatchReplica {
  private readonly lease: LeaderLease;
  private stopWork?: (reason: string) => Promise<void>;
  private follow?: NodeJS.Timeout;
  private stopping = false;

  constructor(private readonly o: WatchReplicaOptions) {
    this.lease = new LeaderLease(
      o.locks,
      o.group,
      { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: "watch", stack: o.group },
      {
        elected: async () => {
          this.o.log(`leading ${o.group} (lease ${o.locks.where(o.group)})`);
          // The previous leader's last statuses first: episodes and event ids go on where it left them.
          await o.statuses.adoptStored();
          this.stopWork = await o.lead();
          o.onRole?.("leader", (await this.lease.view()).leader);
        },
        deposed: async (why) => {
          if (this.stopping) return;
          this.o.log(`no longer leading ${o.group}: ${why}; standing by`);
          const stop = this.stopWork;
          this.stopWork = undefined;
          o.onRole?.("standby");
          await stop?.(`the leadership was lost: ${why}`);
        },
      },
      { retryMs: o.retryMs ?? 1000, warn: o.log },
    );
  }

  /** Campaigns once (leading or standing by when it resolves), then goes on in the background. */
  async start(): Promise<void> {
    await this.lease.start();
    if (!this.lease.leading) {
      const leader = (await this.lease.view()).leader;
      this.o.onRole?.("standby", leader);
      this.o.log(
        `standing by: ${leader ? `pid ${leader.pid} on host ${leader.host} leads ${this.o.group}` : `nobody leads ${this.o.group} yet`}`,
      );
    }
    this.follow = setInterval(() => void this.followLeader(), this.o.retryMs ?? 1000);
    this.follow.unref();
  }

  /** This replica's role and the leader (`/api/v1/replica`). */
  view(): Promise<LeaderView> {
    return this.lease.view();
  }

  get leading(): boolean {
    return this.lease.leading;
  }

  /** The fence before a leader's write (an event's delivery, a status): throws unless the lease is still ours. */
  check(): Promise<void> {
    return this.lease.check();
  }

  /** Stops: the work ends (a running apply within its grace period), then the lease is given up for the next replica. */
  async stop(reason: string): Promise<void> {
    this.stopping = true;
    clearInterval(this.follow);
    const stop = this.stopWork;
    this.stopWork = undefined;
    if (stop) await stop(reason);
    else this.o.log(`stopping: ${reason}`);
    await this.lease.stop();
  }

  /** A standby reads the leader's statuses, so its page and API show what the leader sees. */
  private async followLeader(): Promise<void> {
    if (this.lease.leading) return;
    try {
      this.o.onRole?.("standby", (await this.lease.view()).leader);
      await this.o.statuses.adoptStored();
    } catch (e) {
      this.o.log(`standby: cannot read the leader's statuses: ${(e as Error).message}`);
    }
  }
}
