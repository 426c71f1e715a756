import type { StateDirs } from "../settings/state-dirs";
import { openFileState } from "./files/file-state";

/**
 * Opens the state stores (locks, audit trails, probe results, the watcher's status and events)
 * where the settings say: today local files under `.stackwarden/` (or the directories given).
 */
export function openStateStores(dirs: StateDirs, cwd = process.cwd()) {
  return openFileState(dirs, cwd);
}

/** The stores an adapter opens (what the domain's StateStores ports are satisfied by). */
export type OpenedStateStores = ReturnType<typeof openStateStores>;
