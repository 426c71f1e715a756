import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/domain/audit/audit-entry";
import { callerOf } from "../../src/emulator/changes/caller";
import { SqlClient } from "../../src/services/sql/client";
import type { DatabaseRef } from "../../src/services/sql/types";
import { startCli, type CliProcess } from "../helpers/cli-process";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, e2eRequired, explain } from "../helpers/pulumi-cli";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// A developer's plain `pulumi up` while `watch --auto-remediate` runs on the same stack: one writer
// at a time, counted at the emulator. The up changes ledger's TDE (its scan lasts seconds, under the
// stack's lock); meanwhile a person decrypts orders, the watcher hears of it from the Activity Log
// and would repair it at once: it waits for the up's lock, and writes only after the up has let it
// go. The up leaves an audit entry with the Pulumi engine as its actor, and the chain verifies.

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "locked";
const LEDGER_SCAN_MS = 6000;
const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 200
  servers:
    - name: sql-lock
      resourceGroup: rg-lock
      location: East US
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
        - { name: ledger, transparentDataEncryption: Disabled, scan: { durationMs: ${LEDGER_SCAN_MS} } }
`;
const db = (database: string) => ({ resourceGroup: "rg-lock", server: "sql-lock", database });
const config = (ledger: "Enabled" | "Disabled") => ({
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": [
    { ...db("orders"), transparentDataEncryption: "Enabled" },
    { ...db("ledger"), transparentDataEncryption: ledger },
  ],
});
const ref = (database: string): DatabaseRef => ({ subscriptionId: SUB, ...db(database) });

/** A write the emulator accepted: when, by whom, to what. */
interface Write {
  at: number;
  caller: string;
  database: string;
}

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail(
      "STACKWARDEN_E2E=required but no Pulumi CLI was found on PATH or in the pulumi:install cache: run `npm run pulumi:install`",
    );
  });
}

/** A user's Resource Manager token from the emulator: writes made with it are recorded with their UPN as the caller. */
async function userToken(t: TestEmulator, upn: string): Promise<{ token: string; expiresOn: number }> {
  const res = await fetch(`${t.url}/_emulator/user-token`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ upn }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { access_token: string; expires_on: string };
  return { token: body.access_token, expiresOn: Number(body.expires_on) * 1000 };
}

describe.skipIf(!cli)("a plain pulumi up while watch --auto-remediate runs on the same stack", () => {
  let t: TestEmulator;
  let project: PulumiProject;
  let watcher: CliProcess | undefined;
  const writes: Write[] = [];
  let developer: string;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    // Every write the emulator accepts, with its caller and time: what "one writer at a time" is counted on.
    t.emu.changes.recorder.onWriteSucceeded((w, _reply, at) => {
      if (/\/transparentDataEncryption\//i.test(w.write.resourceId))
        writes.push({ at, caller: callerOf(w.claims), database: /\/databases\/([^/]+)\//i.exec(w.write.resourceId)![1] });
    });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    project.writeStackConfig(STACK, config("Disabled"));
    // The developer signs in as themselves: their writes (and the audit entry) carry their identity.
    const dev = await userToken(t, "dev@contoso.com");
    developer = dev.token;
  });

  afterAll(async () => {
    watcher?.child.kill("SIGKILL");
    project?.cleanup();
    await t?.close();
  });

  const asDeveloper = () => ({ ...project.env, AZURE_ACCESS_TOKEN: developer });
  const trail = () =>
    readFileSync(join(project.dir, ".stackwarden", "audit", `${STACK}.jsonl`), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditEntry);

  it("the stack is up (nothing to change) and the watcher leads, its first sweep clean", async () => {
    for (const args of [
      ["login", project.backendUrl],
      ["stack", "init", STACK],
    ]) {
      const r = await project.pulumi(args);
      expect(r.code, explain(r)).toBe(0);
    }
    const up = await project.pulumiWith(["up", "--yes"], asDeveloper());
    expect(up.code, explain(up)).toBe(0);
    expect(writes).toEqual([]);
    // Even a create that changes nothing is on record under the lock (steps that overlap share an entry).
    const first = trail();
    expect(first.length).toBeGreaterThanOrEqual(1);
    for (const e of first) expect(e).toMatchObject({ command: "pulumi up", who: { engine: "pulumi" }, what: [], exitCode: 0 });

    watcher = startCli(
      [
        "watch",
        "--stack",
        STACK,
        "--auto-remediate",
        "--interval",
        "1h",
        "--changes-interval",
        "1s",
        "--lock-timeout",
        "2m",
        "--poll-interval",
        "100",
      ],
      { cwd: project.dir, env: project.env },
    );
    await watcher.line(/tick 1: 0 drifted/, 60_000);
  });

  it("pulumi up changes ledger under the lock; the watcher's repair of orders waits for it; one writer at a time", async () => {
    const sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    const alice = await userToken(t, "alice@contoso.com");
    const person = new SqlClient({
      endpoint: t.url,
      credential: { getToken: async () => ({ token: alice.token, expiresOnTimestamp: alice.expiresOn }) },
      retry: FAST_RETRY,
    });
    // The person decrypts orders as soon as the up has started ledger's scan: while the up holds the lock.
    const upWrote = new Promise<void>((resolve) =>
      t.emu.changes.recorder.onWriteSucceeded((w) => {
        if (/\/databases\/ledger\//i.test(w.write.resourceId)) resolve();
      }),
    );
    const personWrote = upWrote.then(() => person.putTransparentDataEncryption(ref("orders"), "Disabled"));

    project.writeStackConfig(STACK, config("Enabled"));
    const up = await project.pulumiWith(["up", "--yes"], asDeveloper());
    expect(up.code, explain(up)).toBe(0);
    expect(up.stdout).toMatch(/~\s+pulumi-nodejs:dynamic\/sql:TransparentDataEncryption tde-rg-lock-sql-lock-ledger updated/);
    await personWrote;

    // The watcher heard of the person's change, found the lock held by the up, and waited for it.
    await watcher!.line(/stack locked is locked by pid \d+ on host \S+ since \S+ \(pulumi up, .*\); waiting up to 2m/, 30_000);
    await watcher!.line(/remediation: 1 of 1 converged/, 60_000);
    expect((await sql.getTransparentDataEncryption(ref("orders"))).properties?.status).toBe("Enabled");
    expect((await sql.getTransparentDataEncryption(ref("ledger"))).properties?.status).toBe("Enabled");

    // Counted at the emulator: one write each (the up's, the person's, the watcher's), none refused.
    const puts = Object.entries(t.emu.stats.byRoute).filter(([k]) => k.startsWith("PUT "));
    expect(puts.reduce((n, [, v]) => n + v, 0)).toBe(3);
    expect(Object.entries(t.emu.stats.refusedByRoute).filter(([k]) => k.startsWith("PUT "))).toEqual([]);
    const [byUp, byPerson, byWatcher] = writes;
    expect(writes).toHaveLength(3);
    expect(byUp).toMatchObject({ caller: "dev@contoso.com", database: "ledger" });
    expect(byPerson).toMatchObject({ caller: "alice@contoso.com", database: "orders" });
    expect(byWatcher.database).toBe("orders");
    expect(byWatcher.caller).not.toMatch(/@/); // the watcher's managed identity (its client id)

    // The trail: the up's entry (the developer's identity, the Pulumi engine as what acted) before the repair.
    const entries = trail();
    const upEntry = entries.find((e) => e.command === "pulumi up" && e.what.length > 0)!;
    const repair = entries.find((e) => e.command === "remediate")!;
    expect(upEntry).toMatchObject({
      who: { engine: "pulumi", claims: "decoded" },
      what: [{ resource: expect.stringMatching(/\/databases\/ledger$/), before: "Disabled", after: "Enabled", outcome: "converged" }],
      exitCode: 0,
    });
    expect(repair).toMatchObject({
      what: [{ resource: expect.stringMatching(/\/databases\/orders$/), before: "Disabled", after: "Enabled", outcome: "converged" }],
    });
    expect(repair.seq).toBeGreaterThan(upEntry.seq);
    expect(repair.who.engine).toBeUndefined();
    // One writer at a time: the up's scan had ended and its entry was written (its lock let go) before the watcher's PUT.
    expect(byUp.at + LEDGER_SCAN_MS).toBeLessThanOrEqual(Date.parse(upEntry.at) + 500);
    expect(byWatcher.at).toBeGreaterThanOrEqual(Date.parse(upEntry.at));
  });

  it("the chain verifies, and the watcher stops cleanly", async () => {
    const verify = await project.stackwarden(["audit", "verify", "--stack", STACK]);
    expect(verify.code, explain(verify)).toBe(0);
    expect(verify.stdout).toMatch(/intact/);
    watcher!.child.kill("SIGTERM");
    expect(await watcher!.exited).toBe(0);
  });
});
