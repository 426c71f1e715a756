import { setTimeout as delay } from "node:timers/promises";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator } from "../../src/emulator/server";
import { StateStore, type PersistedState } from "../../src/emulator/state-store";
import { PROJECT_ROOT } from "../../src/platform/version";
import { requireCompiledCli, startEmulatorProcess, type EmulatorProcess } from "../helpers/cli-process";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "sw-state-"));
  dirs.push(d);
  return d;
};
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The state as the emulator would load it: the snapshot with its journal replayed. */
const readState = (dir: string) => StateStore.load(dir)!;
const readSnapshot = (dir: string) => JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as PersistedState;
const tmpLeftovers = (dir: string, exceptPid?: number) =>
  readdirSync(dir).filter((f) => f.endsWith(".tmp") && (exceptPid === undefined || f !== `.state.json.${exceptPid}.tmp`));

async function clock(url: string, advanceMs: number): Promise<number> {
  const res = await fetch(`${url}/_emulator/clock`, { method: "POST", body: JSON.stringify({ advanceMs }) });
  return ((await res.json()) as { offsetMs: number }).offsetMs;
}

describe("state in-process", () => {
  it("survives a restart: the clock offset and the token key persist, so old tokens still verify", async () => {
    const dir = tempDir();
    const a = await startEmulator({ stateDir: dir, onError: () => {} });
    const res = await fetch(`${a.url}/metadata/identity/oauth2/token?api-version=2020-10-01&resource=r`, { headers: { Metadata: "true" } });
    const { access_token } = (await res.json()) as { access_token: string };
    await clock(a.url, 1234);
    await a.close();
    // A clean stop folds the journal into the snapshot.
    expect(readSnapshot(dir).emulator.clockOffsetMs).toBe(1234);

    const b = await startEmulator({ stateDir: dir, onError: () => {} });
    try {
      expect(await clock(b.url, 0)).toBe(1234);
      expect(b.tokens.verify(access_token, b.now()).ok).toBe(true);
      expect(readState(dir).services.imds).toBeTruthy();
    } finally {
      await b.close();
    }
  });

  it("the start snapshot is on disk once the emulator is up (regression: a kill right after its URL was announced found no state)", async () => {
    const dir = tempDir();
    const emu = await startEmulator({ stateDir: dir, onError: () => {} });
    try {
      // Checked before the event loop turns again: the snapshot must not wait for the end of the turn.
      expect(StateStore.load(dir)?.emulator.tokenKey).toBe(emu.tokens.keyHex);
    } finally {
      await emu.close();
    }
  });

  it("a write is atomic: the state file is whole and no temporary file stays behind", async () => {
    const dir = tempDir();
    const emu = await startEmulator({ stateDir: dir, onError: () => {} });
    try {
      for (let i = 0; i < 50; i++) await clock(emu.url, 1);
      await new Promise((r) => setImmediate(r));
      expect(readState(dir).emulator.clockOffsetMs).toBe(50);
      expect(tmpLeftovers(dir)).toEqual([]);
      // Many changes in one turn of the event loop become one write.
      const writes = emu.store.writes;
      for (let i = 0; i < 20; i++) emu.advanceClock(1);
      await new Promise((r) => setImmediate(r));
      expect(emu.store.writes - writes).toBe(1);
    } finally {
      await emu.close();
    }
  });

  it("sweeps temporary files that a killed process left, and refuses a corrupt state file by name", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, ".state.json.999999.tmp"), '{"version":1,"emu');
    const emu = await startEmulator({ stateDir: dir, onError: () => {} });
    await emu.close();
    expect(tmpLeftovers(dir)).toEqual([]);

    writeFileSync(join(dir, "state.json"), '{"version":1,"emulator":');
    await expect(startEmulator({ stateDir: dir, onError: () => {} })).rejects.toThrow(
      `${join(dir, "state.json")}: the state file is not valid JSON`,
    );
    writeFileSync(join(dir, "state.json"), '{"version":7,"services":{}}');
    expect(() => StateStore.load(dir)).toThrow("not a stackwarden emulator state (version 7)");
  });
});

/** Starts `stackwarden emulator` as a child process and resolves once it printed its URL. */
async function spawnEmulator(dir: string): Promise<EmulatorProcess> {
  const p = await startEmulatorProcess(["--port", "0", "--state", dir], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, STACKWARDEN_LOG: "" },
  });
  children.add(p.child);
  return p;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

describe("kill test: SIGKILL at random moments never leaves an unreadable state", () => {
  beforeAll(() => {
    requireCompiledCli();
  });

  it("restarts from the state after every kill", async () => {
    const dir = tempDir();
    // A small deterministic generator, so a failure can be replayed.
    let seed = 20_260_301;
    const rand = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const STEP = 7;
    let lastOffset = 0;
    let sent = 0;
    let { child, url } = await spawnEmulator(dir);
    for (let round = 0; round < 6; round++) {
      // Several writers keep state changes (and so writes to disk) going until the kill.
      let stop = false;
      const writer = async () => {
        while (!stop) {
          try {
            sent += 1;
            await clock(url, STEP);
          } catch {
            return; // the process was killed under us
          }
        }
      };
      const writers = [writer(), writer(), writer(), writer()];
      await delay(20 + rand() * 200);
      stop = true;
      await killed(child);
      await Promise.all(writers);

      // Whatever moment the kill hit, the state file is whole and moved forward only.
      const state = readState(dir);
      expect(state.version).toBe(1);
      expect(state.emulator.tokenKey).toMatch(/^[0-9a-f]{64}$/);
      expect(state.emulator.clockOffsetMs % STEP).toBe(0);
      expect(state.emulator.clockOffsetMs).toBeGreaterThanOrEqual(lastOffset);
      expect(state.emulator.clockOffsetMs).toBeLessThanOrEqual(sent * STEP);
      if (round === 2) writeFileSync(join(dir, ".state.json.4194304.tmp"), "{torn"); // as if killed mid-write

      ({ child, url } = await spawnEmulator(dir));
      expect(await clock(url, 0)).toBe(state.emulator.clockOffsetMs);
      expect(tmpLeftovers(dir, child.pid)).toEqual([]);
      lastOffset = state.emulator.clockOffsetMs;
    }
    expect(lastOffset).toBeGreaterThan(0);
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    expect(code).toBe(0);
  }, 60_000);
});

describe("the state journal", () => {
  const SEED = {
    sql: {
      scanDurationMs: 0,
      servers: [
        {
          name: "s1",
          resourceGroup: "rg",
          databases: Array.from({ length: 20 }, (_, i) => ({ name: `db${i}`, transparentDataEncryption: "Disabled" })),
        },
      ],
    },
  };
  const journal = (dir: string) => readFileSync(join(dir, "state.journal"), "utf8");
  const tde = (state: PersistedState, i: number) =>
    (state.services.sql as { servers: { databases: { transparentDataEncryption: string }[] }[] }).servers[0].databases[i]
      .transparentDataEncryption;

  async function put(url: string, token: string, db: number, status: string): Promise<number> {
    const res = await fetch(
      `${url}/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/db${db}/transparentDataEncryption/current?api-version=2014-04-01`,
      {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ properties: { status } }),
      },
    );
    return res.status;
  }
  async function tokenOf(url: string): Promise<string> {
    const res = await fetch(`${url}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/`, {
      headers: { Metadata: "true" },
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it("a TDE write appends one line naming the database; the snapshot is not rewritten", async () => {
    const dir = tempDir();
    const emu = await startEmulator({ stateDir: dir, seed: SEED, onError: () => {} });
    try {
      await new Promise((r) => setImmediate(r));
      const snapshot = readFileSync(join(dir, "state.json"), "utf8");
      const token = await tokenOf(emu.url);
      expect(await put(emu.url, token, 7, "Enabled")).toBe(200);
      await new Promise((r) => setImmediate(r));
      expect(readFileSync(join(dir, "state.json"), "utf8")).toBe(snapshot);
      const lines = journal(dir).trim().split("\n");
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]) as { seq: number; path: unknown[]; value: { name: string; transparentDataEncryption: string } };
      expect(entry.path).toEqual(["services", "sql", "servers", 0, "databases", 7]);
      expect(entry.value).toMatchObject({ name: "db7", transparentDataEncryption: "Enabled" });
      // The journal is what makes the change durable: loading replays it over the snapshot.
      expect(tde(readSnapshot(dir), 7)).toBe("Disabled");
      expect(tde(readState(dir), 7)).toBe("Enabled");
    } finally {
      await emu.close();
    }
    expect(tde(readSnapshot(dir), 7)).toBe("Enabled");
    expect(journal(dir)).toBe("");
  });

  it("a database created or deleted at run time is journaled as its server's databases, and a restart keeps it", async () => {
    const dir = tempDir();
    const emu = await startEmulator({ stateDir: dir, seed: SEED, onError: () => {} });
    const names = (state: PersistedState) =>
      (state.services.sql as { servers: { databases: { name: string }[] }[] }).servers[0].databases.map((d) => d.name);
    try {
      const token = await tokenOf(emu.url);
      const db = (name: string) =>
        `${emu.url}/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/${name}?api-version=2014-04-01`;
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const created = await fetch(db("ledger"), { method: "PUT", headers, body: JSON.stringify({ location: "East US" }) });
      expect(created.status).toBe(201);
      expect((await fetch(db("db3"), { method: "DELETE", headers })).status).toBe(200);
      await new Promise((r) => setImmediate(r));
      const state = names(readState(dir));
      expect(state).toContain("ledger");
      expect(state).not.toContain("db3");
      expect(state).toHaveLength(SEED.sql.servers[0].databases.length); // one created, one deleted
    } finally {
      await emu.close();
    }
    const restarted = await startEmulator({ stateDir: dir, onError: () => {} });
    try {
      const res = await fetch(
        `${restarted.url}/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https://management.azure.com/`,
        { headers: { Metadata: "true" } },
      );
      const token = ((await res.json()) as { access_token: string }).access_token;
      const list = await fetch(
        `${restarted.url}/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases?api-version=2014-04-01`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const listed = ((await list.json()) as { value: { name: string }[] }).value.map((d) => d.name);
      expect(listed).toContain("ledger");
      expect(listed).not.toContain("db3");
    } finally {
      await restarted.close();
    }
  });

  it("a request still in flight when its emulator stops writes nothing: the restarted emulator owns the directory", async () => {
    const dir = tempDir();
    const seed = { sql: { ...SEED.sql, scanDurationMs: 200 } };
    const a = await startEmulator({ stateDir: dir, seed, onError: () => {} });
    const token = await tokenOf(a.url);
    expect(await put(a.url, token, 3, "Enabled")).toBe(200); // a scan starts
    // The next GET is held back 400 ms (a latency spike): it runs after a has stopped, and settles the scan in a's memory.
    a.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [{ match: "/subscriptions/", delayMs: 400, count: 1 }] });
    const late = fetch(
      `${a.url}/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/db3/transparentDataEncryption/current?api-version=2014-04-01`,
      { headers: { authorization: `Bearer ${token}` } },
    ).catch(() => "cut off");
    await delay(50);
    await a.close();
    const b = await startEmulator({ stateDir: dir, seed, onError: () => {} });
    try {
      expect(await late).toBe("cut off");
      await delay(500); // the held-back GET has run in a by now
      expect(await put(b.url, await tokenOf(b.url), 5, "Enabled")).toBe(200);
      await new Promise((r) => setImmediate(r));
      // On disk: b's change alone. a's late write would have taken the same journal number first, and hidden b's.
      const loaded = readState(dir);
      expect(tde(loaded, 5)).toBe("Enabled");
      expect(journal(dir).trim().split("\n")).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it("a torn last line (a kill in the middle of an append) is dropped on load and cut off the file", async () => {
    const dir = tempDir();
    const emu = await startEmulator({ stateDir: dir, seed: SEED, onError: () => {} });
    const token = await tokenOf(emu.url);
    await put(emu.url, token, 1, "Enabled");
    await new Promise((r) => setImmediate(r));
    const whole = journal(dir);
    // Simulate the kill: the process is gone without a clean stop, half a line in the journal.
    emu.store.flush();
    const { appendFileSync } = await import("node:fs");
    appendFileSync(join(dir, "state.journal"), '{"seq":99,"path":["services","sql","servers",0,"databa');
    const state = StateStore.load(dir)!;
    expect(tde(state, 1)).toBe("Enabled");
    expect(journal(dir)).toBe(whole);
    // A line in the middle that does not parse is not a torn tail: it is refused, naming the file and line.
    appendFileSync(join(dir, "state.journal"), 'garbage\n{"seq":100,"path":["emulator","clockOffsetMs"],"value":5}\n');
    expect(() => StateStore.load(dir)).toThrow(`${join(dir, "state.journal")}:2: the state journal has a line that is not an entry`);
    await emu.close().catch(() => undefined);
  });

  it("the journal is compacted into a new snapshot once it outgrows it; entries the snapshot holds are not applied twice", async () => {
    const dir = tempDir();
    const state: PersistedState = { version: 1, emulator: { tokenKey: "", clockOffsetMs: 0 }, services: { counter: { n: 0 } } };
    const store = new StateStore(state, dir, { minCompactBytes: 200, compactRatio: 1 });
    store.changed();
    store.flush();
    expect(store.snapshots).toBe(1);
    for (let i = 1; i <= 40; i++) {
      (state.services.counter as { n: number }).n = i;
      store.changed(["services", "counter", "n"]);
      store.flush();
    }
    expect(store.snapshots).toBeGreaterThanOrEqual(2);
    expect(store.writes).toBe(40 + store.snapshots); // 40 appends, plus each snapshot (the first and the compactions)
    expect(readState(dir).services.counter).toEqual({ n: 40 });
    // As if killed after a compaction's rename but before its truncate: old entries are still in the journal.
    const { appendFileSync } = await import("node:fs");
    appendFileSync(join(dir, "state.journal"), `${JSON.stringify({ seq: 1, path: ["services", "counter", "n"], value: -1 })}\n`);
    expect(readState(dir).services.counter).toEqual({ n: 40 });
    store.close();
  });

  it("10 000 writes on a 10 000-database state: one line each, a few snapshots, never the whole file per write", async () => {
    const dir = tempDir();
    const databases = Array.from({ length: 10_000 }, (_, i) => ({ name: `db${i}`, transparentDataEncryption: "Disabled" }));
    const state: PersistedState = {
      version: 1,
      emulator: { tokenKey: "", clockOffsetMs: 0 },
      services: { sql: { servers: [{ name: "s1", databases }] } },
    };
    const store = new StateStore(state, dir);
    store.changed();
    store.flush();
    const { statSync } = await import("node:fs");
    const snapshotBytes = statSync(join(dir, "state.json")).size;
    for (let i = 0; i < 10_000; i++) {
      databases[i].transparentDataEncryption = "Enabled";
      store.changed(["services", "sql", "servers", 0, "databases", i]);
      store.flush();
    }
    // 10 000 appends; compactions only when the journal outgrew the snapshot.
    expect(store.writes - store.snapshots).toBe(10_000);
    expect(store.snapshots).toBeLessThanOrEqual(3);
    const journalBytes = statSync(join(dir, "state.journal")).size;
    expect(journalBytes).toBeLessThanOrEqual(Math.max(1024 * 1024, snapshotBytes) + 200);
    const loaded = readState(dir);
    expect(
      (loaded.services.sql as { servers: { databases: { transparentDataEncryption: string }[] }[] }).servers[0].databases.every(
        (d) => d.transparentDataEncryption === "Enabled",
      ),
    ).toBe(true);
    store.close();
  });
});
