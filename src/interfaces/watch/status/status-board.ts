import { randomUUID } from "node:crypto";
import { initialStackStatus, type StackStatus, type StatusCondition } from "./stack-status";
import { withAnswers } from "./stack-answers";
import { continueStatus } from "./status-continuity";
import type { DatabaseInventory } from "./database-inventory";
import type { StatusStore, StoredBoard } from "./status-store";

/**
 * What an update may set. The board keeps the rest (see continueStatus): `generation`, `episodes`,
 * `updatedAt`, the answers (`sync`, `compliance`), the condition's `lastTransitionTime`, the drift's `since` and `episode`, and the
 * `episode` of findings and probes; values given there are replaced.
 */
export type StatusUpdate = Partial<
  Omit<StackStatus, "name" | "generation" | "episodes" | "updatedAt" | "sync" | "compliance" | "condition">
> & {
  condition?: Omit<StatusCondition, "lastTransitionTime"> & { lastTransitionTime?: string };
};

/** One change on the board, as subscribers receive it. */
export interface StatusChange {
  name: string;
  /** Undefined when the stack was just registered. */
  previous: StackStatus | undefined;
  /** Undefined when the stack was removed. */
  current: StackStatus | undefined;
  /** The board's revision after the change. */
  revision: number;
}

export type StatusListener = (change: StatusChange) => void;

export interface StatusBoardOptions {
  /** Keeps statuses across restarts; without one they live in memory only. */
  store?: StatusStore;
  /** The clock. Default: the system's. */
  now?: () => Date;
  /** Where a subscriber's exception is reported (it never reaches the updater). Default: dropped. */
  warn?: (line: string) => void;
}

/**
 * The statuses of every watched stack. The watcher updates them; the status page, the API and the
 * event derivation read them and subscribe to their changes. Statuses handed out are frozen: change
 * one through update(), which notifies every subscriber synchronously, then saves it to the store
 * (notify first: an event enqueued by a subscriber is on disk before the status that caused it, so a
 * kill between the two makes the next process derive the same event again, with the same id).
 */
export class StatusBoard {
  private readonly statuses = new Map<string, StackStatus>();
  private readonly listeners = new Set<StatusListener>();
  private readonly inventories = new Map<string, DatabaseInventory>();
  private readonly now: () => Date;
  private readonly warn: (line: string) => void;
  private rev = 0;
  /** Part of every event id: the store's, or a new one per process without a store. */
  readonly incarnation: string;

  constructor(
    private readonly opts: StatusBoardOptions = {},
    stored?: StoredBoard,
  ) {
    this.now = opts.now ?? (() => new Date());
    this.warn = opts.warn ?? (() => {});
    if (stored) {
      this.incarnation = stored.incarnation;
      for (const s of stored.statuses) this.statuses.set(s.name, deepFreeze(upgraded(s)));
    } else {
      this.incarnation = randomUUID();
    }
  }

  /** A board that starts from what its store kept (its incarnation and statuses), saving every change back to it. */
  static async open(opts: StatusBoardOptions & { store: StatusStore }): Promise<StatusBoard> {
    return new StatusBoard(opts, await opts.store.load());
  }

  /** Resolves once every status change so far is in the store. */
  flushed(): Promise<void> {
    return this.opts.store?.writes.flushed() ?? Promise.resolve();
  }

  /** This watcher replica's role among those sharing the state (absent: a lone watcher), for the page. */
  replica?: { role: "leader" | "standby"; leader?: { pid: number; host: string } };

  /** +1 with every change of any stack. */
  get revision(): number {
    return this.rev;
  }

  /** Every stack's status, by name. */
  list(): StackStatus[] {
    return [...this.statuses.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): StackStatus | undefined {
    return this.statuses.get(name);
  }

  /**
   * Keeps a stack's databases as a tick (or re-read) left them, for its page to filter: in memory
   * only, beside the status (the status, stored and streamed on every change, stays the size of its
   * drift and findings, not of the stack). Set before the tick's status update, whose notification
   * makes the page read them again.
   */
  keepDatabases(name: string, inventory: DatabaseInventory): void {
    if (this.statuses.has(name)) this.inventories.set(name, inventory);
  }

  /** A stack's databases as its last tick left them; undefined before this process's first tick of it (or on a standby). */
  databases(name: string): DatabaseInventory | undefined {
    return this.inventories.get(name);
  }

  /**
   * Puts a stack on the board in its state before the first tick, or keeps the status it has (one
   * loaded from the store, after a restart) with its file and schedule brought up to date.
   */
  register(name: string, init: { file: string; schedule?: string | null }): StackStatus {
    const had = this.statuses.get(name);
    if (!had) return this.commit(name, undefined, deepFreeze(initialStackStatus(name, init.file, this.now(), init.schedule ?? null)));
    if (had.file === init.file && (init.schedule === undefined || had.schedule === init.schedule)) return had;
    return this.update(name, { file: init.file, ...(init.schedule !== undefined ? { schedule: init.schedule } : {}) });
  }

  /** Applies an update (or a function of the previous status giving one) to a registered stack; returns the new status. */
  update(name: string, change: StatusUpdate | ((prev: StackStatus) => StatusUpdate)): StackStatus {
    const prev = this.statuses.get(name);
    if (!prev) throw new Error(`stack ${name} is not on the status board: register it first`);
    const u = typeof change === "function" ? change(prev) : change;
    const draft: StackStatus = {
      ...prev,
      ...u,
      name,
      condition: u.condition
        ? { ...u.condition, lastTransitionTime: u.condition.lastTransitionTime ?? prev.condition.lastTransitionTime }
        : prev.condition,
    } as StackStatus;
    return this.commit(name, prev, deepFreeze(continueStatus(prev, structuredClone(draft), this.now())));
  }

  /**
   * Takes the statuses another replica stored (a standby following its leader): each one newer than
   * what the board shows replaces it, and the page's listeners hear of it; nothing is saved (the
   * leader writes) and no event is derived here (a standby has no notifier subscribed).
   */
  adopt(statuses: readonly StackStatus[]): void {
    for (const s of statuses) {
      const prev = this.statuses.get(s.name);
      if (prev && prev.generation >= s.generation && prev.updatedAt === s.updatedAt) continue;
      const next = deepFreeze(upgraded(structuredClone(s)));
      this.statuses.set(s.name, next);
      this.notify({ name: s.name, previous: prev, current: next, revision: ++this.rev });
    }
  }

  /** Takes a stack off the board (and out of the store). */
  remove(name: string): boolean {
    const prev = this.statuses.get(name);
    if (!prev) return false;
    this.statuses.delete(name);
    this.inventories.delete(name);
    this.notify({ name, previous: prev, current: undefined, revision: ++this.rev });
    this.opts.store?.remove(name);
    return true;
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  subscribe(listener: StatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private commit(name: string, prev: StackStatus | undefined, next: StackStatus): StackStatus {
    this.statuses.set(name, next);
    this.notify({ name, previous: prev, current: next, revision: ++this.rev });
    this.opts.store?.save(next);
    return next;
  }

  private notify(change: StatusChange): void {
    for (const l of [...this.listeners]) {
      try {
        l(change);
      } catch (e) {
        this.warn(`status board: a subscriber failed on the change of ${change.name}: ${(e as Error).message}`);
      }
    }
  }
}

/**
 * A status stored by an earlier version, brought to the current shape: codes of a time before
 * conditions and ticks carried them read as null (unknown), as does a re-read before re-reads were told apart from ticks; the answers (sync, compliance) are
 * derived, and a deployment from before the trail was read has no `last` apply yet.
 */
function upgraded(s: StackStatus): StackStatus {
  return withAnswers({
    ...s,
    condition: { ...s.condition, code: s.condition.code ?? null },
    lastTick: s.lastTick && { ...s.lastTick, errorCode: s.lastTick.errorCode ?? null },
    lastReread: s.lastReread ?? null,
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
