import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { verifyTrailText } from "../../src/domain/audit/audit-chain";
import { LockBusyError } from "../../src/domain/reconcile/stack-lock";
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

  it("a lock lost before the PUT (broken, lapsed) sends nothing: the fence refuses, and the entry says so", async () => {
    await setTde("b", "Disabled");
    const drift = (await planTde(clients.sql, stack)).changes;
    const state = openMemoryState("fenced");
    const before = puts();
    // Broken as soon as it is taken: what a paused holder finds when it wakes after another took over.
    const r = await reconcileStack(request(state, { only: drift }), { lockAcquired: () => void state.locks.break("dev") });
    expect(puts() - before).toBe(0);
    expect(r.exitCode).toBe(1);
    expect(r.outcomes).toEqual([expect.objectContaining({ ok: false, error: expect.stringMatching(/lock of stack dev/) })]);
    expect(r.entry.what).toEqual([expect.objectContaining({ outcome: "failed", before: "Disabled", after: "Disabled" })]);
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
