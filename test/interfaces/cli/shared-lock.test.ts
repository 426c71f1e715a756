import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, runCliProcess, requireCompiledCli } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { azuriteEnv, startTestAzurite } from "../../helpers/azurite";
import { stackDir } from "./cli-harness";

/**
 * One estate, many machines: three working directories with no disk in common share one state URL
 * on Azurite. An apply running in the first holds the stack's lease; the second sees the holder
 * with `lock status` and is refused with SW_LOCK_HELD; `lock break` from the third records who
 * broke whose lock; `audit verify` from the third checks the one chain entries of all wrote.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: slow, transparentDataEncryption: Disabled, scan: { durationMs: 15000 } }
        - { name: quick, transparentDataEncryption: Disabled }
`;
const stack = (db: string) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s1, database: ${db}, transparentDataEncryption: Enabled }\n`;

let emu: TestEmulator;
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  requireCompiledCli();
  [emu, azurite] = await Promise.all([startTestEmulator({ seed: seedFromYaml(SEED) }), startTestAzurite()]);
  env = {
    PATH: process.env.PATH,
    STACKWARDEN_EMULATOR: emu.url,
    ...azuriteEnv(azurite.freshStateUrl("estate")),
    STACKWARDEN_LEASE_SECONDS: "15",
  };
});
afterAll(async () => {
  await azurite?.stop();
  await emu?.close();
});

describe("a stack's lock and audit trail on Blob Storage, from three directories", () => {
  it("lock status names the holder of a running apply; a second apply is refused (SW_LOCK_HELD); lock break is audited; the chain verifies", async () => {
    const [a, b, c] = [stackDir({ "Pulumi.shared.yaml": stack("slow") }), stackDir({ "Pulumi.shared.yaml": stack("quick") }), stackDir({})];
    const first = startCli(["apply", "--config", "Pulumi.shared.yaml", "--yes", "--poll-interval", "100"], { cwd: a, env });
    try {
      await first.line(/rg\/s1\/slow: encryption requested/, 60_000);

      const status = await runCliProcess(["lock", "status", "--stack", "shared", "--output", "json"], { cwd: b, env });
      expect(status.code, status.stderr).toBe(0);
      const shown = JSON.parse(status.stdout) as { holder: { pid: number; command: string }; where: string };
      expect(shown.holder).toMatchObject({ pid: first.pid, command: "apply" });
      expect(shown.where).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1\/t-[0-9a-f]+\/estate\/locks\/shared\.lock$/);

      const second = await runCliProcess(["apply", "--config", "Pulumi.shared.yaml", "--yes"], { cwd: b, env });
      expect(second.code).toBe(1);
      expect(second.stderr.trim().split("\n")).toHaveLength(1);
      expect(second.stderr).toMatch(
        new RegExp(`SW_LOCK_HELD: stack shared is locked by pid ${first.pid} on host \\S+ since \\S+ \\(apply, `),
      );
      const asJson = await runCliProcess(["apply", "--config", "Pulumi.shared.yaml", "--yes", "--output", "json"], { cwd: b, env });
      expect(asJson.code).toBe(1);
      expect(JSON.parse(asJson.stdout)).toEqual({
        error: { code: "SW_LOCK_HELD", message: expect.stringMatching(new RegExp(`^stack shared is locked by pid ${first.pid} `)) },
      });

      expect(await first.exited).toBe(0);
      const free = await runCliProcess(["lock", "status", "--stack", "shared"], { cwd: c, env });
      expect(free.stdout).toMatch(/^stack shared is not locked \(http:/);

      // A holder that died on another machine: its lease would lapse by itself; lock break does not wait.
      const holder = startCli(["apply", "--config", "Pulumi.shared.yaml", "--yes", "--poll-interval", "100"], { cwd: b, env });
      await holder.line(/rg\/s1\/quick: (encryption requested|done)/, 60_000);
      holder.child.kill("SIGKILL");
      await holder.exited;
      const refused = await runCliProcess(["lock", "break", "--stack", "shared"], { cwd: c, env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/without --yes/);
      const broke = await runCliProcess(["lock", "break", "--stack", "shared", "--yes"], { cwd: c, env });
      expect(broke.code, broke.stderr).toBe(0);
      expect(broke.stdout).toMatch(
        new RegExp(`^broke the lock of stack shared held by pid ${holder.pid} on host \\S+ .*; audit entry 2\n$`),
      );

      const verify = await runCliProcess(["audit", "verify", "--stack", "shared", "--output", "json"], { cwd: c, env });
      expect(verify.code, verify.stderr).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ intact: true, entries: 2, problems: [] });
      const after = await runCliProcess(["lock", "status", "--stack", "shared"], { cwd: a, env });
      expect(after.stdout).toMatch(/not locked/);
    } finally {
      first.child.kill("SIGKILL");
    }
  }, 180_000);
});
