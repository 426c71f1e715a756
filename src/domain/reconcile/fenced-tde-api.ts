import type { TdeApi } from "./tde-api";

/**
 * Wraps a TdeApi so that every write is fenced by the stack's lock: right before a PUT, `check`
 * confirms the lock is still ours (and throws, SW_LOCK_LOST, once it is not). A process that was
 * paused past its lease (SIGSTOP, a long GC, a partition) and wakes after another took the lock
 * sends no further PUT. Reads go through unchecked: they change nothing.
 */
export function fenceWrites(api: TdeApi, lock: { check(): Promise<void> }): TdeApi {
  return {
    getTransparentDataEncryption: (db, signal) => api.getTransparentDataEncryption(db, signal),
    putTransparentDataEncryption: async (db, status, signal) => {
      await lock.check();
      return api.putTransparentDataEncryption(db, status, signal);
    },
    listTransparentDataEncryptionActivities: (db, signal) => api.listTransparentDataEncryptionActivities(db, signal),
  };
}
