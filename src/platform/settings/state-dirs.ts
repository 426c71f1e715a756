import { createHash } from "node:crypto";
import { join, resolve } from "node:path";

/** Where stackwarden keeps its own operational files. */
export interface StateDirs {
  /** Per-stack apply locks. Default `.stackwarden/locks`; `STACKWARDEN_LOCK_DIR` or `--lock-dir`. */
  locks: string;
  /** Per-stack audit trails (`<stack>.jsonl`). Default `.stackwarden/audit`; `STACKWARDEN_AUDIT_DIR` or `--audit-dir`. */
  audit: string;
  /** The last probe run of each stack (`<stack>.json`), read by `check`. Default `.stackwarden/probes`; `STACKWARDEN_PROBE_DIR` or `--probe-dir`. */
  probes: string;
  /** The watcher's stack statuses (`board.json`, `stacks/<stack>.json`). `.stackwarden/status`. */
  status: string;
  /** The watcher's event outbox and dead letters. `.stackwarden/events`. */
  events: string;
}

/**
 * Resolves the lock, audit, probe-result, status and event directories under `base` (`.stackwarden`, or the
 * directory of a `file:` state URL): a flag wins over the environment, which wins over the
 * default under the working directory. Point the lock directory of every machine that applies a
 * stack at one shared directory (a network file system) to lock across machines.
 */
export function stateDirs(
  cwd: string,
  env: NodeJS.ProcessEnv,
  flags: { lockDir?: string; auditDir?: string; probeDir?: string } = {},
  base = ".stackwarden",
): StateDirs {
  return {
    locks: resolve(cwd, flags.lockDir || env.STACKWARDEN_LOCK_DIR?.trim() || join(base, "locks")),
    audit: resolve(cwd, flags.auditDir || env.STACKWARDEN_AUDIT_DIR?.trim() || join(base, "audit")),
    probes: resolve(cwd, flags.probeDir || env.STACKWARDEN_PROBE_DIR?.trim() || join(base, "probes")),
    status: resolve(cwd, base, "status"),
    events: resolve(cwd, base, "events"),
  };
}

/** A file-system-safe name for a stack (`dev`, or a hash of an odd name). */
export function stackFileKey(stack: string): string {
  if (/^[A-Za-z0-9_.-]{1,100}$/.test(stack) && !stack.startsWith(".")) return stack;
  return `stack-${createHash("sha256").update(stack).digest("hex").slice(0, 16)}`;
}
