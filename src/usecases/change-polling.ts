import { setTimeout as delay } from "node:timers/promises";
import type { ChangeFeed } from "./change-feed";

/**
 * Pulls the Activity Log every `intervalMs` while this replica leads. A pull that fails for a
 * subscription (no permission to read its Activity Log, the service down) is logged when its
 * error changes, not every interval; the sweep covers what it misses. Returns what stops it.
 */
export function startChangePolling(feed: ChangeFeed, intervalMs: number, log: (line: string) => void): () => Promise<void> {
  const stop = new AbortController();
  const said = new Map<string, string>();
  const loop = (async () => {
    while (!stop.signal.aborted) {
      try {
        const r = await feed.pull(stop.signal);
        for (const f of r.failed) {
          if (said.get(f.subscriptionId) === f.error) continue;
          said.set(f.subscriptionId, f.error);
          log(`changes: cannot read the Activity Log of subscription ${f.subscriptionId} (the sweep still finds drift): ${f.error}`);
        }
        const failing = new Set(r.failed.map((f) => f.subscriptionId));
        for (const s of [...said.keys()]) {
          if (failing.has(s)) continue;
          said.delete(s);
          log(`changes: the Activity Log of subscription ${s} reads again`);
        }
      } catch {
        /* stopped */
      }
      await delay(intervalMs, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  })();
  return async () => {
    stop.abort();
    await loop;
  };
}
