import { hostname } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { LeaderLease } from "../../../src/domain/state/leader-lease";
import { openMemoryState } from "../../../src/platform/state/memory/memory-state";

/** Leader election over one lease: one leader at a time, a lost lease deposes at once, a standby takes over. */
function replica(locks: ReturnType<typeof openMemoryState>["locks"], pid: number, log: string[]) {
  return new LeaderLease(
    locks,
    "watch-dev",
    { pid, host: hostname(), since: "", command: "watch", stack: "dev" },
    { elected: () => void log.push(`${pid} elected`), deposed: (why) => void log.push(`${pid} deposed: ${why}`) },
    { retryMs: 30 },
  );
}

async function until(what: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out");
    await delay(10);
  }
}

describe("LeaderLease", () => {
  it("one of two replicas leads; the other stands by naming it; when the leader stops, the standby takes over", async () => {
    const { locks } = openMemoryState("election");
    const log: string[] = [];
    const a = replica(locks, 101, log);
    const b = replica(locks, 202, log);
    await a.start();
    await b.start();
    expect(await a.view()).toMatchObject({ role: "leader", leader: { pid: 101 } });
    expect(await b.view()).toMatchObject({ role: "standby", leader: { pid: 101 } });
    await expect(b.check()).rejects.toThrow(/does not lead/);
    await a.check();
    await a.stop();
    await until(() => b.leading);
    expect(await b.view()).toMatchObject({ role: "leader", leader: { pid: 202 } });
    expect(log).toEqual(["101 elected", "101 deposed: stopping: the lease was given up", "202 elected"]);
    await b.stop();
  });

  it("a leader whose lease is taken from it is deposed at once, and its fence refuses; it campaigns again", async () => {
    const { locks } = openMemoryState("deposed");
    const log: string[] = [];
    const a = replica(locks, 101, log);
    await a.start();
    expect(a.leading).toBe(true);
    await locks.break("watch-dev"); // what a lapse, or an operator's break, does
    await until(() => log.length === 2);
    expect(log[1]).toMatch(/^101 deposed: the lock of stack watch-dev was broken/);
    await expect(a.check()).rejects.toThrow();
    // Nobody else campaigns: it is elected again in its next round.
    await until(() => a.leading);
    expect(log[2]).toBe("101 elected");
    await a.stop();
  });
});
