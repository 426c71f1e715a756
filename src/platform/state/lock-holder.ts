/** Who holds a stack's lock: written beside the lock by its holder, read by whoever finds it taken. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the lock was taken (ISO 8601). */
  since: string;
  /** What took it: `apply`, `watch`, `watch (remediation)`, `apply --engine pulumi`. */
  command: string;
  stack: string;
}

/** A holder as read back from storage: anything that is not a holder (a damaged file, another tool's blob) is undefined. */
export function lockHolderOf(value: unknown): LockHolder | undefined {
  const h = value as Partial<LockHolder> | null;
  if (!h || typeof h !== "object") return undefined;
  if (typeof h.pid !== "number" || typeof h.host !== "string" || typeof h.since !== "string") return undefined;
  return { pid: h.pid, host: h.host, since: h.since, command: String(h.command ?? "unknown"), stack: String(h.stack ?? "") };
}

/** A request for a named lock (one per stack, one per group of watcher replicas): what every lock store takes. */
export interface LockRequest {
  /** The lock's name: the stack's name. */
  name: string;
  holder: LockHolder;
  /** How long to wait for a held lock, in ms; 0 fails at once. */
  timeoutMs: number;
  /** Time between attempts while waiting, in ms. */
  pollMs?: number;
  /** Called once when the lock is held by someone else and the request starts to wait. */
  onWait?(holder: LockHolder | undefined): void;
  signal?: AbortSignal;
}
