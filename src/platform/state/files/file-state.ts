import { relative } from "node:path";
import type { StateDirs } from "../../settings/state-dirs";
import { claimDirectory } from "./directory-claim";
import { FileAuditLog } from "./file-audit-log";
import { FileDocumentStore } from "./file-document-store";
import { FileLockStore } from "./file-lock-store";

/**
 * The state on local files (the default): locks, audit trails, probe results, the watcher's status
 * and events each in its directory, in the formats stackwarden has always written.
 */
export function openFileState(dirs: StateDirs, cwd = process.cwd()) {
  return {
    locks: new FileLockStore(dirs.locks),
    audit: new FileAuditLog(dirs.audit),
    // Probe results have always been world-readable (they hold no parameter, only outcomes).
    probes: new FileDocumentStore(dirs.probes, 0o644),
    status: new FileDocumentStore(dirs.status),
    events: new FileDocumentStore(dirs.events),
    /** The event outbox belongs to one watcher (`owner.pid` in its directory): what gives it up. */
    claimOutbox: () => claimDirectory(dirs.events),
    describe: () => `files under ${relative(cwd, dirs.locks.replace(/[/\\]locks$/, "")) || "."}`,
  };
}
