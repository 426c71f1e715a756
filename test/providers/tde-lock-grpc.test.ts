import { thisProcess } from "../../src/platform/process-identity";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/domain/audit/audit-entry";
import { verifyTrailText } from "../../src/domain/audit/audit-chain";
import { handoffText } from "../../src/domain/reconcile/lock-handoff";
import { acquireStackLock, type StackLock } from "../../src/domain/reconcile/stack-lock";
import type { StateStores } from "../../src/domain/state/state-ports";
import { openStateStores } from "../../src/platform/state/open-state";
import { SqlClient } from "../../src/services/sql/client";
import { startTestAzurite, azuriteEnv } from "../helpers/azurite";
import { FAST_RETRY, type TestEmulator } from "../helpers/emulator";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin } from "../helpers/provider-plugin";
import { eventually } from "../interfaces/watch/watch-metrics";
import { TEST_STACK, dbId, dbRef, providerStateDir, sqlDatabase, startEstate } from "./provider-test-kit";

/**
 * A plain `pulumi up`'s TDE writes go under the stack's lock and audit trail, as every apply's: the
 * real dynamic-provider plugin, driven over gRPC as the engine drives it, against the emulator, with
 * the state in local files and in Blob Storage (Azurite). It takes the lock (or is refused, or waits,
 * while another process holds it), fences its PUT, appends an entry naming the Pulumi engine as its
 * actor; under `apply --engine pulumi`'s hand-off it writes under the holder's lock and leaves the
 * entry to it.
 */

const compiled = () => require(join(PROJECT_ROOT, "dist/providers/index.js")) as { providerText(name: "tde"): string };
const TDE_TYPE = "pulumi-nodejs:dynamic/sql:TransparentDataEncryption";
const tdeId = (database: string) => `${dbId(database)}/transparentDataEncryption/current`;
const inputsOf = (database: string, transparentDataEncryption: "Enabled" | "Disabled") => ({
  ...dbRef(database),
  transparentDataEncryption,
  pollIntervalMs: 25,
  scanTimeoutSeconds: 20,
  stack: TEST_STACK,
});

let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(async () => {
  await azurite?.stop();
});

/** One emulator, one state location and plugins on them; what the tests of one location share. */
interface Rig {
  t: TestEmulator;
  env: Record<string, string>;
  state: StateStores;
  plugins: ProviderPlugin[];
}

async function rig(stateEnv: () => Record<string, string>): Promise<Rig> {
  const t = await startEstate();
  const env = { STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, ...stateEnv() };
  const state = await openStateStores({ cwd: mkdtempSync(join(tmpdir(), "stackwarden-lock-grpc-")), env });
  return { t, env, state, plugins: [] };
}

async function pluginOf(r: Rig, extra: Record<string, string> = {}): Promise<{ plugin: ProviderPlugin; tde: DynamicResourceDriver }> {
  const plugin = await ProviderPlugin.start({ env: { ...r.env, ...extra } });
  r.plugins.push(plugin);
  await plugin.configure();
  return { plugin, tde: new DynamicResourceDriver(plugin, compiled().providerText("tde"), TDE_TYPE, "tde-under-lock") };
}

async function close(r: Rig | undefined): Promise<void> {
  for (const p of r?.plugins ?? []) await p.close();
  await r?.t.close();
}

const putsOf = (t: TestEmulator) =>
  Object.entries(t.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

async function trailOf(state: StateStores): Promise<AuditEntry[]> {
  const text = (await state.audit.read(TEST_STACK)) ?? "";
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditEntry);
}

const holdLock = (state: StateStores, command: string): Promise<StackLock> =>
  acquireStackLock(state.locks, { stack: TEST_STACK, command, holderProcess: thisProcess() });

const LOCATIONS: [string, () => Record<string, string>][] = [
  ["local files", () => ({ STACKWARDEN_STATE_URL: `file:${providerStateDir()}` })],
  ["Blob Storage (Azurite)", () => azuriteEnv(azurite.freshStateUrl()) as Record<string, string>],
];

for (const [where, stateEnv] of LOCATIONS) {
  describe(`a plain pulumi up's TDE writes, state in ${where}`, () => {
    let r: Rig;
    let tde: DynamicResourceDriver;
    let plugin: ProviderPlugin;
    beforeAll(async () => {
      r = await rig(stateEnv);
      ({ plugin, tde } = await pluginOf(r));
    });
    afterAll(() => close(r));

    it("a create takes the stack's lock while it writes, then appends an entry with the Pulumi engine as actor and lets the lock go", async () => {
      expect(sqlDatabase(r.t.emu, "orders").transparentDataEncryption).toBe("Disabled");
      // A scan of a few seconds: the lock is held at least that long, however slowly this test is scheduled.
      sqlDatabase(r.t.emu, "orders").scan = { durationMs: 3000 };
      r.t.emu.store.changed();
      const creating = tde.create(inputsOf("orders", "Enabled"));
      const holder = await eventually("the plugin holding the stack's lock", () => r.state.locks.holder(TEST_STACK), 10_000);
      expect(holder).toMatchObject({ pid: plugin.pid, command: "pulumi up", stack: TEST_STACK });
      const created = await creating;
      expect(created.properties).toMatchObject({ status: "Enabled", stack: TEST_STACK, location: "East US" });
      expect(sqlDatabase(r.t.emu, "orders").transparentDataEncryption).toBe("Enabled");
      expect(await r.state.locks.holder(TEST_STACK)).toBeUndefined();

      const trail = await trailOf(r.state);
      expect(trail).toHaveLength(1);
      expect(trail[0]).toMatchObject({
        seq: 1,
        stack: TEST_STACK,
        command: "pulumi up",
        who: { engine: "pulumi", claims: "decoded" },
        what: [{ resource: dbId("orders"), before: "Disabled", after: "Enabled", outcome: "converged" }],
        exitCode: 0,
      });
      expect(trail[0].applyId).toEqual(expect.any(String)); // tied to the pending record it kept while writing
      expect(verifyTrailText((await r.state.audit.read(TEST_STACK))!)).toMatchObject({ intact: true, entries: 1 });
      // Nothing of the state's location, its key or the lock is in what Pulumi keeps.
      expect(JSON.stringify(created)).not.toMatch(/STACKWARDEN|file:|devstoreaccount1|Eby8vdM02x/);
    });

    it("refused at once while another process holds the lock (a watcher repairing): SW_LOCK_HELD naming it; no PUT, no entry", async () => {
      const lock = await holdLock(r.state, "watch (remediation)");
      const puts = putsOf(r.t);
      try {
        await expect(tde.update(tdeId("orders"), inputsOf("orders", "Enabled"), inputsOf("orders", "Disabled"))).rejects.toThrow(
          new RegExp(`SW_LOCK_HELD.*stack ${TEST_STACK} is locked by pid ${process.pid} .*\\(watch \\(remediation\\)`),
        );
      } finally {
        await lock.release();
      }
      expect(putsOf(r.t)).toBe(puts);
      expect(sqlDatabase(r.t.emu, "orders").transparentDataEncryption).toBe("Enabled");
      expect(await trailOf(r.state)).toHaveLength(1);
    });
  });
}

describe("a plain pulumi up's TDE writes, state in local files: waiting, writes that overlap, the hand-off of apply --engine pulumi", () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig(() => ({ STACKWARDEN_STATE_URL: `file:${providerStateDir()}` }));
  });
  afterAll(() => close(r));

  it("with STACKWARDEN_LOCK_TIMEOUT it waits for the holder, then reads again under the lock and writes", async () => {
    const { tde } = await pluginOf(r, { STACKWARDEN_LOCK_TIMEOUT: "30s" });
    const lock = await holdLock(r.state, "watch (remediation)");
    const puts = putsOf(r.t);
    const updating = tde.update(tdeId("orders"), inputsOf("orders", "Enabled"), inputsOf("orders", "Enabled"));
    let settled = false;
    void updating.then(
      () => (settled = true),
      () => (settled = true),
    );
    // While the holder holds it: no write, and the update is still waiting.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(settled).toBe(false);
    expect(putsOf(r.t)).toBe(puts);
    // The holder repairs the database meanwhile, then lets the lock go.
    await new SqlClient({ endpoint: r.t.url, credential: r.t.credential, retry: FAST_RETRY }).putTransparentDataEncryption(
      dbRef("orders"),
      "Enabled",
    );
    await eventually("the holder's scan", async () =>
      sqlDatabase(r.t.emu, "orders").transparentDataEncryption === "Enabled" ? true : undefined,
    );
    await lock.release();
    await updating;
    // Read again under the lock: already Enabled, so nothing is sent twice; the entry says so.
    expect(putsOf(r.t)).toBe(puts + 1);
    const trail = await trailOf(r.state);
    expect(trail.at(-1)).toMatchObject({ command: "pulumi up", who: { engine: "pulumi" }, what: [], exitCode: 0 });
  });

  it("writes of one process that overlap share one hold of the lock and one entry listing each change", async () => {
    const { tde } = await pluginOf(r);
    const before = (await trailOf(r.state)).length;
    await Promise.all(
      ["customers", "analytics"].map((db) =>
        new DynamicResourceDriver(tde.plugin, tde.providerText, TDE_TYPE, `tde-${db}`).update(
          tdeId(db),
          inputsOf(db, "Enabled"),
          inputsOf(db, "Disabled"),
        ),
      ),
    );
    const trail = await trailOf(r.state);
    expect(trail).toHaveLength(before + 1);
    expect(
      trail
        .at(-1)!
        .what.map((w) => `${w.resource.split("/").at(-1)} ${w.before}->${w.after} ${w.outcome}`)
        .sort(),
    ).toEqual(["analytics Enabled->Disabled converged", "customers Enabled->Disabled converged"]);
  });

  it("under apply --engine pulumi's hand-off: writes under the holder's lock without taking it, leaves the entry to it; a lock that changed hands stops it before the PUT", async () => {
    const outer = await holdLock(r.state, "apply --engine pulumi");
    const { tde } = await pluginOf(r, { STACKWARDEN_LOCK_HELD: handoffText(outer) });
    const entries = (await trailOf(r.state)).length;
    const puts = putsOf(r.t);
    try {
      await tde.update(tdeId("customers"), inputsOf("customers", "Disabled"), inputsOf("customers", "Enabled"));
      expect(sqlDatabase(r.t.emu, "customers").transparentDataEncryption).toBe("Enabled");
      expect(putsOf(r.t)).toBe(puts + 1);
      // Still the outer holder's lock; the provider wrote no entry of its own (the outer one records the engine's steps).
      expect(await r.state.locks.holder(TEST_STACK)).toMatchObject({
        pid: process.pid,
        since: outer.holder.since,
        command: "apply --engine pulumi",
      });
      expect(await trailOf(r.state)).toHaveLength(entries);
    } finally {
      await outer.release();
    }
    // The outer holder lost the lock and a watcher took it: the handed-on fence refuses the next PUT.
    const watcher = await holdLock(r.state, "watch (remediation)");
    try {
      await expect(tde.update(tdeId("customers"), inputsOf("customers", "Enabled"), inputsOf("customers", "Disabled"))).rejects.toThrow(
        /SW_LOCK_LOST.*no longer held by it .*\(watch \(remediation\)\)/,
      );
    } finally {
      await watcher.release();
    }
    expect(putsOf(r.t)).toBe(puts + 1);
    expect(sqlDatabase(r.t.emu, "customers").transparentDataEncryption).toBe("Enabled");
  });
});
