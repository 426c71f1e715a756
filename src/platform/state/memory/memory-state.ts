import { StackwardenError } from "../../errors/stackwarden-error";
import type { LockHolder, LockRequest } from "../lock-holder";

/**
 * State kept in this process's memory and gone with it: for a run whose changes are not the
 * cloud's (`npm start` against its embedded emulator: no audit trail of the real estate should
 * record them) and for tests. The same contract as the file and Blob Storage adapters.
 */
export function openMemoryState(label = "memory") {
  return {
    locks: new MemoryLockStore(label),
    audit: new MemoryAuditLog(label),
    probes: new MemoryDocumentStore(`${label}:probes`),
    status: new MemoryDocumentStore(`${label}:status`),
    events: new MemoryDocumentStore(`${label}:events`),
    describe: () => `${label} (this process only)`,
  };
}

/** Locks held in memory: one holder per name, released or broken. */
export class MemoryLockStore {
  private readonly held = new Map<string, { holder: LockHolder; lost: AbortController }>();

  constructor(private readonly label: string) {}

  where(name: string): string {
    return `${this.label}:locks/${name}`;
  }

  async holder(name: string): Promise<LockHolder | undefined> {
    return this.held.get(name)?.holder;
  }

  async break(name: string): Promise<LockHolder | undefined> {
    const h = this.held.get(name);
    if (!h) return undefined;
    this.held.delete(name);
    h.lost.abort(new StackwardenError("SW_LOCK_LOST", `the lock of stack ${name} was broken`));
    return h.holder;
  }

  async acquire(request: LockRequest) {
    const started = Date.now();
    let waiting = false;
    for (;;) {
      const current = this.held.get(request.name);
      if (!current) {
        const entry = { holder: request.holder, lost: new AbortController() };
        this.held.set(request.name, entry);
        return {
          held: true as const,
          lease: {
            holder: request.holder,
            waitedMs: waiting ? Date.now() - started : 0,
            lost: entry.lost.signal,
            check: async () => {
              if (this.held.get(request.name) !== entry)
                throw (
                  entry.lost.signal.reason ?? new StackwardenError("SW_LOCK_LOST", `the lock of stack ${request.name} is no longer ours`)
                );
            },
            release: async () => {
              if (this.held.get(request.name) === entry) this.held.delete(request.name);
            },
          },
        };
      }
      const waited = Date.now() - started;
      if (waited >= request.timeoutMs)
        return { held: false as const, holder: current.holder, waitedMs: request.timeoutMs > 0 ? waited : 0 };
      if (!waiting) {
        waiting = true;
        request.onWait?.(current.holder);
      }
      await new Promise((r) => setTimeout(r, Math.min(request.pollMs ?? 50, request.timeoutMs - waited)));
      request.signal?.throwIfAborted();
    }
  }
}

/** Audit logs in memory: the same conditional append as the stores that last. */
export class MemoryAuditLog {
  private readonly logs = new Map<string, string[]>();

  constructor(private readonly label: string) {}

  where(name: string): string {
    return `${this.label}:audit/${name}`;
  }

  async read(name: string): Promise<string | undefined> {
    const lines = this.logs.get(name);
    return lines ? lines.map((l) => `${l}\n`).join("") : undefined;
  }

  async end(name: string): Promise<{ line: string } | undefined> {
    const lines = this.logs.get(name);
    return lines?.length ? { line: lines[lines.length - 1] } : undefined;
  }

  private readonly pending = new Map<string, string>();

  async readPending(name: string): Promise<string | undefined> {
    return this.pending.get(name);
  }

  async writePending(name: string, text: string | undefined): Promise<void> {
    if (text === undefined) this.pending.delete(name);
    else this.pending.set(name, text);
  }

  async recent(name: string, count: number): Promise<string[]> {
    return (this.logs.get(name) ?? []).slice(-count);
  }

  async append(name: string, _seq: number, line: string, previous: string | undefined): Promise<"appended" | "conflict"> {
    const lines = this.logs.get(name) ?? [];
    if (lines[lines.length - 1] !== previous) return "conflict";
    lines.push(line);
    this.logs.set(name, lines);
    return "appended";
  }
}

/** Documents in memory, each with a version counter as its etag. */
export class MemoryDocumentStore {
  private readonly docs = new Map<string, { text: string; etag: string; modifiedMs: number }>();
  private version = 0;

  constructor(private readonly label: string) {}

  where(name: string): string {
    return `${this.label}/${name}`;
  }

  async get(name: string): Promise<{ text: string; etag: string } | undefined> {
    const d = this.docs.get(name);
    return d && { text: d.text, etag: d.etag };
  }

  async put(name: string, text: string, condition?: { ifMatch?: string; ifNoneMatch?: "*" }): Promise<string | undefined> {
    const current = this.docs.get(name);
    if (condition?.ifNoneMatch === "*" && current) return undefined;
    if (condition?.ifMatch !== undefined && current?.etag !== condition.ifMatch) return undefined;
    const etag = String(++this.version);
    this.docs.set(name, { text, etag, modifiedMs: Date.now() });
    return etag;
  }

  async delete(name: string): Promise<void> {
    this.docs.delete(name);
  }

  async list(prefix: string): Promise<{ name: string; size: number; modifiedMs: number }[]> {
    return (
      [...this.docs.entries()]
        // As a directory listing: what is directly under the prefix, not in a folder below it.
        .filter(([name]) => name.startsWith(prefix) && !name.slice(prefix.length).includes("/"))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, d]) => ({ name, size: Buffer.byteLength(d.text), modifiedMs: d.modifiedMs }))
    );
  }

  async appendLine(name: string, line: string): Promise<void> {
    const current = this.docs.get(name);
    await this.put(name, `${current?.text ?? ""}${line}\n`);
  }

  async touch(name: string): Promise<void> {
    const d = this.docs.get(name);
    if (d) d.modifiedMs = Date.now();
  }
}
