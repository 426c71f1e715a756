import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, runCliProcess, requireCompiledCli } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { azuriteEnv, startTestAzurite } from "../../helpers/azurite";
import { stackDir } from "./cli-harness";

/**
 * An apply whose lock is broken while its scans run (`lock break --yes` from elsewhere): it ends
 * with SW_LOCK_LOST, not a crash; it names the change it had sent and where that stands; its audit
 * entry agrees; and every coded line reads `stackwarden[ COMMAND]: SW_…: …`. On both stores: the
 * file lock (noticed at its next refresh) and the blob lease (noticed at its next renewal).
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: slow, transparentDataEncryption: Disabled, scan: { durationMs: 25000 } }
        - { name: slow2, transparentDataEncryption: Disabled, scan: { durationMs: 25000 } }
`;
const stack = (db: string) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: ${db}, transparentDataEncryption: Enabled }\n`;

let emu: TestEmulator;
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
beforeAll(async () => {
  requireCompiledCli();
  [emu, azurite] = await Promise.all([startTestEmulator({ seed: seedFromYaml(SEED) }), startTestAzurite()]);
});
afterAll(async () => {
  await azurite?.stop();
  await emu?.close();
});

const puts = () =>
  Object.entries(emu.emu.stats.byRoute)
    .filter(([k]) => k.startsWith("PUT "))
    .reduce((n, [, v]) => n + v, 0);

async function breakMidApply(db: string, env: NodeJS.ProcessEnv) {
  const dir = stackDir({ "Pulumi.shared.yaml": stack(db) });
  const apply = startCli(["apply", "--config", "Pulumi.shared.yaml", "--yes", "--poll-interval", "200"], { cwd: dir, env });
  try {
    await apply.line(new RegExp(`rg/s1/${db}: encrypting`), 60_000);
    const sentBefore = puts();
    const broke = await runCliProcess(["lock", "break", "--stack", "shared", "--yes"], { cwd: dir, env });
    expect(broke.code, broke.stderr).toBe(0);
    const code = await apply.exited;
    const verify = await runCliProcess(["audit", "verify", "--stack", "shared", "--output", "json"], { cwd: dir, env });
    return { dir, code, out: apply.out(), err: apply.err(), putsAfterBreak: puts() - sentBefore, verify };
  } finally {
    apply.child.kill("SIGKILL");
  }
}

function expectLockLostReport(r: Awaited<ReturnType<typeof breakMidApply>>, db: string) {
  expect(r.code, r.err).toBe(1);
  expect(r.putsAfterBreak).toBe(0);
  const all = `${r.out}\n${r.err}`;
  expect(all).not.toMatch(/SW_INTERNAL|operation was aborted|ENOENT/);
  // Every coded line has the one form.
  for (const line of all.split("\n").filter((l) => /\bSW_[A-Z_]+\b/.test(l)))
    expect(line).toMatch(/^stackwarden( [a-z -]+)?: SW_[A-Z_]+: /);
  const last = r.err.trim().split("\n").pop()!;
  expect(last).toMatch(/^stackwarden: SW_LOCK_LOST: the lock of stack shared was lost while held: /);
  expect(last).toContain(`1 change(s) had been sent (rg/s1/${db} sent (its scan not awaited; TDE now `);
  expect(last).toMatch(/audit entry 2 records them/);
  expect(r.out).toMatch(new RegExp(`! rg/s1/${db}: stopped: its PUT was sent and accepted; its scan was not awaited`));
  expect(r.verify.code, r.verify.stderr).toBe(0);
  expect(JSON.parse(r.verify.stdout)).toMatchObject({ intact: true, entries: 2 });
}

describe("an apply whose lock is broken mid-apply", () => {
  it("on file locks: SW_LOCK_LOST naming the removed lock directory and the change sent; the entry agrees", async () => {
    const r = await breakMidApply("slow", { PATH: process.env.PATH, STACKWARDEN_EMULATOR: emu.url });
    expectLockLostReport(r, "slow");
    expect(r.err).toMatch(/lock directory \S+shared\.lock was removed \(broken with `stackwarden lock break`, or deleted\)/);
    const entries = readFileSync(join(r.dir, ".stackwarden", "audit", "shared.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.command)).toEqual(["lock break", "apply"]);
    expect(entries[1]).toMatchObject({
      exitCode: 1,
      note: expect.stringMatching(/^lock lost: the lock of stack shared was lost while held/),
      what: [{ outcome: "interrupted", put: "sent", before: "Disabled" }],
    });
  }, 90_000);

  it("on Blob Storage leases: the same report once a renewal finds the lease broken", async () => {
    const env = {
      PATH: process.env.PATH,
      STACKWARDEN_EMULATOR: emu.url,
      ...azuriteEnv(azurite.freshStateUrl("lost")),
      STACKWARDEN_LEASE_SECONDS: "15",
    };
    const r = await breakMidApply("slow2", env);
    expectLockLostReport(r, "slow2");
    expect(r.err).toMatch(/its lease was broken or taken over/);
  }, 90_000);
});
