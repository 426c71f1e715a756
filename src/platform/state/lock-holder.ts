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
