import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStorageFaultProxy, type StorageFaultProxy, type StorageFaults } from "../../../campaigns/storage-fault-proxy";
import { errorCodeOf } from "../../../src/platform/errors/error-code-of";
import { openStateStores } from "../../../src/platform/state/open-state";
import { AZURITE_KEY, startTestAzurite } from "../../helpers/azurite";

/**
 * Every storage call has a client-side deadline per try (STACKWARDEN_STATE_TIMEOUT_MS), lease
 * renewals and the fence included: Azurite behind a proxy that can hold a request, or switch to
 * "accept and hold" (connections accepted, nothing answered). A stray stall is given up at its
 * deadline and tried once more; a store that answers nothing fails each call in one or two tries,
 * and a held lease is lost half a lease after its last renewal that worked, whatever its renewals
 * are doing.
 */
const TRY_MS = 1_500;
const LEASE_MS = 15_000;
/** What a busy test machine may add to a deadline (Azurite's answers, the event loop's turns). */
const SLACK_MS = 1_000;

let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
const proxies: StorageFaultProxy[] = [];
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await azurite?.stop();
});

/** A proxy in front of Azurite, holding the next request each time `holdNext` is set, and the state opened through it. */
async function throughProxy() {
  const hold = { next: false };
  const faults: StorageFaults = { errorRate: 0, timeoutRate: 0.5, renewalRefusedRate: 0, holdMs: 20_000 };
  const proxy = await startStorageFaultProxy(azurite.accountUrl, faults, () => {
    const held = hold.next;
    hold.next = false;
    return held ? 0 : 0.9;
  });
  proxies.push(proxy);
  const env = {
    STACKWARDEN_STATE_URL: `${proxy.accountUrl}/${`d-${Date.now().toString(36)}-${proxies.length}`}`,
    STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY,
    STACKWARDEN_STATE_TIMEOUT_MS: String(TRY_MS),
    STACKWARDEN_LEASE_SECONDS: String(LEASE_MS / 1000),
  };
  const state = await openStateStores({ cwd: process.cwd(), env });
  return { proxy, state, hold };
}

/** How long `p` takes to settle, and what it rejected with (its code and message). */
async function timed(p: Promise<unknown>): Promise<{ ms: number; code?: string; message?: string }> {
  const started = Date.now();
  try {
    await p;
    return { ms: Date.now() - started };
  } catch (e) {
    return { ms: Date.now() - started, code: errorCodeOf(e), message: (e as Error).message };
  }
}

describe("client-side deadlines on Blob Storage", () => {
  it("a stray stall (one request held) is given up at its try's deadline and tried again at once", async () => {
    const { proxy, state, hold } = await throughProxy();
    await state.probes.put("dev.json", "{}");
    hold.next = true;
    const read = await timed(state.probes.get("dev.json"));
    expect(proxy.injected.timeouts).toBe(1);
    // Not the 20 s the proxy holds it for: one deadline, then a second try that is answered.
    expect(read).toEqual({ ms: expect.any(Number) });
    expect(read.ms).toBeGreaterThanOrEqual(TRY_MS);
    expect(read.ms).toBeLessThan(2 * TRY_MS + SLACK_MS);
  });

  it("a store that accepts and never answers: calls fail in one or two tries; the fence lets nothing through and fails when the lease is lost, at half its length", async () => {
    const { proxy, state } = await throughProxy();
    const holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command: "apply", stack: "dev" };
    const taken = Date.now();
    const lock = await state.locks.acquire({ name: "dev", holder, timeoutMs: 0 });
    if (!lock.held) throw new Error("not taken");
    const lease = lock.lease;
    let lostAt: number | undefined;
    lease.lost.addEventListener("abort", () => (lostAt = Date.now()));

    proxy.silence(true);
    const silentAt = Date.now();
    // The fence, from the moment the store is silent: no renewal can be confirmed (the lease might
    // have been broken meanwhile), so no write is let through; it fails when the lease is lost.
    const fence = timed(lease.check());
    // The first call to find the store silent may try twice (it might have been a stray stall) ...
    const first = await timed(state.probes.get("dev.json"));
    expect(first.code).toBe("SW_STATE_UNAVAILABLE");
    expect(first.message).toMatch(
      /no answer within 1500 ms a try \(STACKWARDEN_STATE_TIMEOUT_MS\); is the store reachable\? \(STACKWARDEN_STATE_URL\)$/,
    );
    expect(first.ms).toBeGreaterThanOrEqual(TRY_MS);
    expect(first.ms).toBeLessThan(2 * TRY_MS + SLACK_MS);
    // ... the next, to a store known to be silent, once.
    const second = await timed(state.audit.read("dev"));
    expect(second.code).toBe("SW_STATE_UNAVAILABLE");
    expect(second.ms).toBeLessThan(TRY_MS + SLACK_MS);

    const fenced = await fence;
    expect(fenced.code).toBe("SW_LOCK_LOST");
    expect(fenced.message).toMatch(
      /^the lock of stack dev was lost while held: no renewal worked for \d+\.\d s \(the store did not answer in time/,
    );
    expect(lostAt).toBeDefined();
    // Lost half a lease after the last renewal that worked (here the acquisition), not at a try's deadline.
    expect(lostAt! - taken).toBeGreaterThanOrEqual(LEASE_MS / 2);
    expect(lostAt! - taken).toBeLessThanOrEqual(LEASE_MS / 2 + SLACK_MS);
    expect(lostAt! - silentAt).toBeLessThanOrEqual(LEASE_MS / 2 + SLACK_MS);
    expect(silentAt + fenced.ms - lostAt!).toBeLessThan(SLACK_MS);
    expect((lease as { expiresAt(): number }).expiresAt()).toBeLessThanOrEqual(silentAt + LEASE_MS);

    // Once lost: refused at once, and released without waiting on a store that does not answer.
    expect((await timed(lease.check())).ms).toBeLessThan(50);
    expect((await timed(lease.release())).ms).toBeLessThan(50);
    proxy.silence(false);
  }, 30_000);

  it("STACKWARDEN_STATE_TIMEOUT_MS is whole ms up to a quarter of the lease, defaulting to 5 s or that quarter", async () => {
    const open = (env: NodeJS.ProcessEnv) =>
      timed(
        openStateStores({
          cwd: process.cwd(),
          env: { STACKWARDEN_STATE_URL: "http://127.0.0.1:1/acct/state", STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY, ...env },
        }),
      );
    for (const value of ["abc", "0", "1.5", "7501"]) {
      const r = await open({ STACKWARDEN_STATE_TIMEOUT_MS: value });
      expect(r.code, value).toBe("SW_SETTING_INVALID");
      expect(r.message).toMatch(
        /^STACKWARDEN_STATE_TIMEOUT_MS: each try's deadline is whole milliseconds from 100 to a quarter of the lease \(7500 ms of 30 s, STACKWARDEN_LEASE_SECONDS\), got /,
      );
    }
    expect((await open({ STACKWARDEN_STATE_TIMEOUT_MS: "4000", STACKWARDEN_LEASE_SECONDS: "15" })).code).toBe("SW_SETTING_INVALID");
    expect((await open({ STACKWARDEN_LEASE_SECONDS: "10" })).message).toBe(
      "STACKWARDEN_LEASE_SECONDS: a blob lease lasts 15 to 60 s, got 10",
    );
  });
});
