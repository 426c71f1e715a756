import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { verifyTrailText } from "../../src/domain/audit/audit-chain";
import { LockBusyError } from "../../src/domain/reconcile/stack-lock";
import { LockLostError } from "../../src/domain/reconcile/lock-lost-error";
import { StackwardenError } from "../../src/platform/errors/stackwarden-error";
import { planTde } from "../../src/domain/reconcile/tde-plan";
import { parseStackConfig, type StackConfig } from "../../src/domain/stack/stack-config";
import { openMemoryState } from "../../src/platform/state/memory/memory-state";
import { reconcileStack, type ReconcileRequest } from "../../src/usecases/reconcile";
import { G } from "../domain/stack/bad-stacks";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * reconcileStack, the one path of every apply, against the emulator: under the lock it reads each
 * database again and changes only what still differs (nothing applies twice), every PUT is fenced
 * by the lock (a lock lost before a PUT sends nothing), and every run leaves one audit entry.
 */
const SEED = `
sql:
  scanDurationMs: 50
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: a, transparentDataEncryption: Disabled }
        - { name: b, transparentDataEncryption: Disabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${G}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: a, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: b, transparentDataEncryption: Enabled }
`;

let t: TestEmulator;
let clients: ClientSet;
let stack: StackConfig;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  clients = newClientSet({ STACKWARDEN_EMULATOR: t.url });
  stack = parseStackConfig("Pulumi.dev.yaml", STACK, {});
});
afterAll(async () => {
  await clients.close();
  await t.close();
});

const puts = () =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

function request(state: ReturnType<typeof openMemoryState>, extra: Partial<ReconcileRequest> = {}): ReconcileRequest {
  return {
    stack,
    stackName: "dev",
    clients,
    cwd: process.cwd(),
    state,
    command: "remediate",
    lockTimeoutMs: 0,
    commit: null,
    engine: "native",
    yes: true,
    concurrency: 4,
    scanTimeoutMs: 30_000,
    pollIntervalMs: 20,
    ...extra,
  };
}

async function setTde(database: string, status: "Enabled" | "Disabled"): Promise<void> {
  const ref = { subscriptionId: G, resourceGroup: "rg", server: "s1", database };
  await clients.sql.putTransparentDataEncryption(ref, status);
  for (;;) {
    const activities = await clients.sql.listTransparentDataEncryptionActivities(ref);
    if (!activities.some((a) => a.properties?.status)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("reconcileStack", () => {
  it("two reconcilers given the same drift at once: one takes the lock and repairs, the other is refused; one PUT per database", async () => {
    await setTde("a", "Disabled");
    await setTde("b", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    expect(drift).toHaveLength(2);
    const state = openMemoryState("race");
    const before = puts();
    const results = await Promise.allSettled([
      reconcileStack(request(state, { only: drift })),
      reconcileStack(request(state, { only: drift })),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    expect(won).toHaveLength(1);
    expect(results.find((r) => r.status === "rejected")).toMatchObject({ reason: expect.any(LockBusyError) });
    expect(puts() - before).toBe(2);
    expect((await planTde(clients.sql, stack)).changes).toEqual([]);
  });

  it("a drift someone else repaired between the tick's read and the lock is read again under the lock: no PUT, an entry with no change", async () => {
    await setTde("a", "Disabled");
    const stale = (await planTde(clients.sql, stack)).changes;
    expect(stale.map((c) => c.ref.database)).toEqual(["a"]);
    await setTde("a", "Enabled"); // the other replica, or a person, got there first
    const state = openMemoryState("stale");
    const before = puts();
    const r = await reconcileStack(request(state, { only: stale }));
    expect(puts() - before).toBe(0);
    expect(r).toMatchObject({ exitCode: 0, outcomes: [], entry: { seq: 1, what: [], command: "remediate" } });
  });

  it("a lock lost before the PUT (broken, lapsed) sends nothing: the fence refuses (SW_LOCK_LOST), and the entry says so", async () => {
    await setTde("b", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    const state = openMemoryState("fenced");
    const before = puts();
    // Broken as soon as it is taken: what a paused holder finds when it wakes after another took over.
    const r = reconcileStack(request(state, { only: drift }), { lockAcquired: () => void state.locks.break("dev") });
    await expect(r).rejects.toMatchObject({ swCode: "SW_LOCK_LOST" });
    expect(puts() - before).toBe(0);
    const entries = (await state.audit.read("dev"))!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries).toEqual([
      expect.objectContaining({ exitCode: 1, what: [], note: expect.stringMatching(/^failed: .*lock of stack dev/) }),
    ]);
    await setTde("b", "Enabled");
  });

  it("an apply killed after it began changing things is on record: the next holder writes its started entry", async () => {
    await setTde("a", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    // A normal apply keeps a pending record while it runs, ties its entry to it, and removes it.
    const state = openMemoryState("normal");
    await reconcileStack(request(state, { only: drift }));
    const chain = (await state.audit.read("dev"))!;
    const pendingId = (JSON.parse(chain.trim().split("\n").pop()!) as { applyId: string }).applyId;
    expect(pendingId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await state.audit.readPending("dev")).toBeUndefined();
    // What a kill -9 after the PUTs and before the entry leaves: the pending record, and no entry.
    const killedState = openMemoryState("killed-2");
    await killedState.audit.writePending(
      "dev",
      JSON.stringify({
        applyId: pendingId,
        pid: 4242,
        record: {
          at: "2026-11-27T10:00:00.000Z",
          stack: "dev",
          command: "remediate",
          who: { claims: "decoded", host: "h" },
          what: [{ resource: drift[0].id, before: "Disabled", after: "Enabled", outcome: "started" }],
          commit: null,
          exitCode: null,
          phase: "started",
        },
      }),
    );
    await reconcileStack(request(killedState, { only: [] }));
    const entries = (await killedState.audit.read("dev"))!
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries[0]).toMatchObject({
      phase: "started",
      exitCode: null,
      applyId: pendingId,
      what: [{ resource: drift[0].id, outcome: "started" }],
      note: expect.stringMatching(
        /^the apply of pid 4242 \(remediate, started 2026-11-27T10:00:00\.000Z\) ended before its entry was written/,
      ),
    });
    expect(await killedState.audit.readPending("dev")).toBeUndefined();
    expect(verifyTrailText((await killedState.audit.read("dev"))!).intact).toBe(true);
  });

  it("a pending record that cannot be read is not dropped silently: the trail says its changes are unknown", async () => {
    const state = openMemoryState("torn");
    await state.audit.writePending("dev", '{"applyId":"cut sh');
    await reconcileStack(request(state, { only: [] }));
    const first = JSON.parse((await state.audit.read("dev"))!.split("\n")[0]) as Record<string, unknown>;
    expect(first).toMatchObject({ command: "recover", phase: "started", exitCode: null, what: [] });
    expect(first.note).toMatch(/pending record that could not be read \(18 bytes\)/);
    expect(await state.audit.readPending("dev")).toBeUndefined();
  });

  it("an apply whose lock was taken over does not remove the next holder's pending record", async () => {
    await setTde("a", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    const state = openMemoryState("taken-over");
    const theirs = JSON.stringify({ applyId: "theirs", pid: 1, record: { what: [] } });
    // The next holder has begun (its record is in place) when this one, its lock broken, records its failure.
    const r = reconcileStack(request(state, { only: drift }), {
      lockAcquired: () => void state.locks.break("dev").then(() => state.audit.writePending("dev", theirs)),
    });
    await expect(r).rejects.toMatchObject({ swCode: "SW_LOCK_LOST" });
    expect(await state.audit.readPending("dev")).toBe(theirs);
    await setTde("a", "Enabled");
  });

  it("a lock lost mid-apply, then a store that refuses the entry: SW_LOCK_LOST all the same, naming what was sent; the pending record stays for the next holder", async () => {
    await setTde("a", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    const state = openMemoryState("lost-then-silent");
    let silent = false;
    const audit = new Proxy(state.audit, {
      get: (target, key) =>
        key === "append" && silent
          ? () => Promise.reject(new StackwardenError("SW_STATE_UNAVAILABLE", "cannot append: no answer"))
          : (Reflect.get(target, key) as (...a: unknown[]) => unknown).bind(target),
    });
    // Broken once the PUT is accepted and its scan is being watched; the store goes silent with it.
    const r = reconcileStack(request({ ...state, audit }, { only: drift }), {
      event: (e) => {
        if (e.kind === "progress" && !silent) {
          silent = true;
          void state.locks.break("dev");
        }
      },
    });
    const e = await r.then(
      () => undefined,
      (x: unknown) => x as LockLostError,
    );
    expect(e).toBeInstanceOf(LockLostError);
    expect(e).toMatchObject({ swCode: "SW_LOCK_LOST", auditSeq: undefined });
    expect(e!.message).toMatch(
      /1 change\(s\) had been sent \(rg\/s1\/a sent \(its scan not awaited; TDE now \w+\)\); its audit entry could not be written \(cannot append: no answer\): the record it kept of them goes into the trail with the lock's next holder/,
    );
    expect(await state.audit.readPending("dev")).toMatch(/"outcome":"started"/);
    await setTde("a", "Enabled");
  });

  it("every run leaves one entry, chained: the trail verifies", async () => {
    const state = openMemoryState("chain");
    await setTde("a", "Disabled");
    await reconcileStack(request(state, { command: "apply" }));
    await reconcileStack(request(state, { command: "apply" }));
    const text = await state.audit.read("dev");
    expect(verifyTrailText(text!)).toMatchObject({ intact: true, entries: 2 });
    expect(text!.split("\n")[0]).toContain('"after":"Enabled"');
  });

  it("without yes and with no one to ask, it refuses before the lock, the trail or any request", async () => {
    const state = openMemoryState("refused");
    const before = t.emu.stats.total;
    await expect(reconcileStack(request(state, { yes: false }))).rejects.toThrow(/without --yes/);
    expect(t.emu.stats.total).toBe(before);
    expect(await state.audit.read("dev")).toBeUndefined();
    expect(await state.locks.holder("dev")).toBeUndefined();
  });
});
