import { setTimeout as delay } from "node:timers/promises";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  acquireStackLock as acquireIn,
  LockBusyError,
  type LockHolder,
  type StackLockOptions,
} from "../../../src/domain/reconcile/stack-lock";
import { FileLockStore, lockPathOf } from "../../../src/platform/state/files/file-lock-store";
import { isProcessAlive as pidAlive } from "../../../src/platform/state/files/process-alive";
import { thisProcess } from "../../../src/platform/process-identity";

/** The lock of a stack in a lock directory, as `apply` takes it with the default (file) state. */
const acquireStackLock = ({ dir, staleMs, ...opts }: Omit<StackLockOptions, "holderProcess"> & { dir: string; staleMs?: number }) =>
  acquireIn(new FileLockStore(dir, { staleMs }), { ...opts, holderProcess: thisProcess() });
const readLockHolder = (dir: string, stack: string) => new FileLockStore(dir).holder(stack);

const fresh = () => mkdtempSync(join(tmpdir(), "stackwarden-lock-"));

/** A pid that certainly ran on this host and no longer does. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

function plantLock(dir: string, stack: string, holder: LockHolder): string {
  const path = lockPathOf(dir, stack);
  mkdirSync(path, { recursive: true });
  writeFileSync(join(path, "holder.json"), JSON.stringify(holder));
  return path;
}

describe("per-stack locks", () => {
  it("a lock names its holder while held and is gone after release", async () => {
    const dir = fresh();
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    expect(lock.waitedMs).toBe(0);
    const holder = await readLockHolder(dir, "dev");
    expect(holder).toEqual({ pid: process.pid, host: hostname(), since: lock.holder.since, command: "apply", stack: "dev" });
    expect(JSON.parse(readFileSync(join(dir, "dev.lock", "holder.json"), "utf8"))).toEqual(holder);
    await lock.release();
    expect(existsSync(join(dir, "dev.lock"))).toBe(false);
    await lock.release(); // twice is harmless
  });

  it("a second acquire fails at once with the holder's pid, host and since", async () => {
    const dir = fresh();
    const first = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    const err = await acquireStackLock({ dir, stack: "dev", command: "watch" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LockBusyError);
    expect((err as LockBusyError).holder).toEqual(first.holder);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^stack dev is locked by pid ${process.pid} on host ${hostname()} since ${first.holder.since.replace(/[.]/g, "\\.")} \\(apply, .* ago\\); wait for it with --lock-timeout`,
      ),
    );
    // Another stack is not affected.
    const other = await acquireStackLock({ dir, stack: "prod", command: "apply" });
    await other.release();
    await first.release();
  });

  it("with a timeout, a waiter gets the lock once the holder releases it", async () => {
    const dir = fresh();
    const first = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    const seen: (LockHolder | undefined)[] = [];
    const waiting = acquireStackLock({ dir, stack: "dev", command: "apply", timeoutMs: 30_000, pollMs: 20, onWait: (h) => seen.push(h) });
    setTimeout(() => void first.release(), 100);
    const second = await waiting;
    expect(seen).toEqual([first.holder]);
    expect(second.waitedMs).toBeGreaterThan(0);
    await second.release();
  });

  it("a waiter whose timeout runs out fails naming the holder and how long it waited", async () => {
    const dir = fresh();
    const first = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    const err = (await acquireStackLock({ dir, stack: "dev", command: "apply", timeoutMs: 60, pollMs: 20 }).catch(
      (e: unknown) => e,
    )) as LockBusyError;
    expect(err).toBeInstanceOf(LockBusyError);
    expect(err.message).toMatch(/gave up after waiting/);
    await first.release();
  });

  it("a lock left by a process of this host that no longer runs is recovered at once", async () => {
    const dir = fresh();
    const pid = deadPid();
    expect(pidAlive(pid)).toBe(false);
    const dead: LockHolder = { pid, host: hostname(), since: new Date().toISOString(), command: "apply", stack: "dev" };
    plantLock(dir, "dev", dead);
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    expect(lock.recovered).toEqual(dead);
    expect((await readLockHolder(dir, "dev"))?.pid).toBe(process.pid);
    await lock.release();
  });

  it("a process killed after making the lock's directory, before writing its holder, is recovered at once, naming it", async () => {
    const dir = fresh();
    const pid = deadPid();
    const dead: LockHolder = { pid, host: hostname(), since: new Date().toISOString(), command: "apply", stack: "dev" };
    // What a kill -9 at that moment leaves: the directory, and the intent the process announced first.
    mkdirSync(lockPathOf(dir, "dev"), { recursive: true });
    writeFileSync(join(dir, `dev.lock-intent.${pid}@${hostname()}.json`), JSON.stringify(dead));
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    expect(lock.recovered).toEqual(dead);
    expect((await readLockHolder(dir, "dev"))?.pid).toBe(process.pid);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a lock without a holder while a live process is taking it (or one of another host) is respected", async () => {
    const dir = fresh();
    mkdirSync(lockPathOf(dir, "dev"), { recursive: true });
    const taking: LockHolder = { pid: process.ppid, host: hostname(), since: new Date().toISOString(), command: "apply", stack: "dev" };
    const intent = join(dir, `dev.lock-intent.${taking.pid}@${hostname()}.json`);
    writeFileSync(intent, JSON.stringify(taking));
    const busy = await acquireStackLock({ dir, stack: "dev", command: "apply" }).catch((e: unknown) => e);
    expect((busy as Error).message).toMatch(/^stack dev is locked by another process \(it is just taking the lock/);
    writeFileSync(intent, JSON.stringify({ ...taking, pid: 1, host: "some-other-host" }));
    expect(await acquireStackLock({ dir, stack: "dev", command: "apply" }).catch((e: unknown) => e)).toBeInstanceOf(LockBusyError);
    // With no intent at all (a lock made by something else), it is respected too, until it goes stale.
    rmSync(intent);
    expect(await acquireStackLock({ dir, stack: "dev", command: "apply" }).catch((e: unknown) => e)).toBeInstanceOf(LockBusyError);
  });

  it("leaves no intent behind, taken or refused", async () => {
    const dir = fresh();
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply" });
    await acquireStackLock({ dir, stack: "dev", command: "apply" }).catch(() => {});
    expect(readdirSync(dir)).toEqual(["dev.lock"]);
    await lock.release();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("a live holder on another host is respected until its lock goes stale, then taken over", async () => {
    const dir = fresh();
    const remote: LockHolder = { pid: 1, host: "some-other-host", since: new Date().toISOString(), command: "apply", stack: "dev" };
    const path = plantLock(dir, "dev", remote);
    const busy = await acquireStackLock({ dir, stack: "dev", command: "apply", staleMs: 5_000 }).catch((e: unknown) => e);
    expect((busy as LockBusyError).holder).toEqual(remote);
    // Its holder stopped refreshing it a minute ago.
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply", staleMs: 5_000 });
    expect((await readLockHolder(dir, "dev"))?.host).toBe(hostname());
    await lock.release();
  });

  it("a lock held across several refreshes stays ours (writing its holder does not look like a takeover) and is removed on release", async () => {
    const dir = fresh();
    // staleMs 2 000: proper-lockfile refreshes it every second and checks the mtime is still its own.
    const lock = await acquireStackLock({ dir, stack: "dev", command: "apply", staleMs: 2000 });
    await delay(3500);
    expect(lock.lost.aborted, String(lock.lost.reason)).toBe(false);
    await lock.release();
    expect(existsSync(join(dir, "dev.lock"))).toBe(false);
  });

  it("a stack name unfit for a file name gets a hashed lock file", () => {
    expect(lockPathOf("/l", "dev")).toBe("/l/dev.lock");
    expect(lockPathOf("/l", "../../etc/x")).toMatch(/^\/l\/stack-[0-9a-f]{16}\.lock$/);
  });
});
