import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { PulumiProject, e2eCli, explain } from "../helpers/pulumi-cli";

// Key custody with the real Pulumi CLI against the emulator: the program registers one
// EncryptionProtector per server and, once they are read, one KeyVault per distinct vault and one
// KeyVaultKey per distinct key version; the pack judges them at the end of `up` with the same
// verdicts as `stackwarden check`. The steps run in order and share one stack.

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const STACK = "custody";
const V = "0123456789abcdef0123456789abcdef";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-kc-a
      resourceGroup: rg-kc
      identity: { type: SystemAssigned, principalId: 5ec0de00-0000-4000-8000-0000000e2e0a }
      encryptionProtector: { keyUri: https://kv-e2e.vault.azure.net/keys/tde/${V} }
      databases: [{ name: orders, transparentDataEncryption: Enabled }]
    - name: sql-kc-b
      resourceGroup: rg-kc
      identity: { type: SystemAssigned, principalId: 5ec0de00-0000-4000-8000-0000000e2e0b }
      encryptionProtector: { keyUri: https://kv-e2e.vault.azure.net/keys/tde/${V} }
      databases: [{ name: billing, transparentDataEncryption: Enabled }]
    - name: sql-kc-sm
      resourceGroup: rg-kc
      databases: [{ name: logs, transparentDataEncryption: Enabled }]
keyvault:
  subscriptionId: ${SUB}
  vaults:
    - name: kv-e2e
      resourceGroup: rg-keys
      # the servers' identities may use the key, so tde-key-access passes and the steps judge the vault's settings
      accessPolicies:
        - { objectId: 5ec0de00-0000-4000-8000-0000000e2e0a, permissions: { keys: [get, wrapKey, unwrapKey] } }
        - { objectId: 5ec0de00-0000-4000-8000-0000000e2e0b, permissions: { keys: [get, wrapKey, unwrapKey] } }
      keys: [{ name: tde, version: "${V}", keySize: 3072, expirationDate: now+400d }]
`;
const config = {
  "stackwarden:subscriptionId": SUB,
  "stackwarden:databases": [
    { resourceGroup: "rg-kc", server: "sql-kc-a", database: "orders", transparentDataEncryption: "Enabled" },
    { resourceGroup: "rg-kc", server: "sql-kc-b", database: "billing", transparentDataEncryption: "Enabled" },
    { resourceGroup: "rg-kc", server: "sql-kc-sm", database: "logs", transparentDataEncryption: "Enabled" },
  ],
};

describe.skipIf(!cli)("Pulumi CLI end to end: key custody", () => {
  let t: TestEmulator;
  let project: PulumiProject;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    project.writeStackConfig(STACK, config);
    expect((await project.pulumi(["login", project.backendUrl])).code).toBe(0);
    expect((await project.pulumi(["stack", "init", STACK])).code).toBe(0);
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("up: a protector per server, one vault and one key for the two servers that share them; the vault without purge protection fails the update on each server", async () => {
    const r = await project.pulumi(["up", "--yes", "--policy-pack", "policies"]);
    // The stack policies run once everything is read: the mandatory violations fail the update.
    expect(r.code, explain(r)).not.toBe(0);
    for (const server of ["sql-kc-a", "sql-kc-b"])
      expect(r.stdout).toMatch(
        new RegExp(
          `\\[mandatory\\]\\s+tde-key-vault-recoverable\\s+\\(pulumi-nodejs:dynamic/sql:EncryptionProtector: tde-protector-rg-kc-${server}\\)`,
        ),
      );
    expect(r.stdout).toMatch(
      /\[advisory\]\s+sql-tde-customer-managed-key\s+\(pulumi-nodejs:dynamic\/sql:EncryptionProtector: tde-protector-rg-kc-sql-kc-sm\)/,
    );
    expect(r.stdout).toContain(
      "Key Vault rg-keys/kv-e2e, which holds the TDE protector of SQL server rg-kc/sql-kc-a, must have soft delete and purge protection enabled; purge protection is off",
    );
    expect(r.stdout).not.toMatch(/tde-key-validity/);

    const state = await project.pulumi(["stack", "export"]);
    expect(state.code, explain(state)).toBe(0);
    const resources = (
      JSON.parse(state.stdout) as { deployment: { resources: { type: string; urn: string; outputs?: Record<string, unknown> }[] } }
    ).deployment.resources;
    const of = (type: string) => resources.filter((x) => x.type === `pulumi-nodejs:dynamic/${type}`);
    expect(of("sql:EncryptionProtector")).toHaveLength(3);
    expect(of("keyvault:Vault").map((x) => x.outputs?.resourceGroup)).toEqual(["rg-keys"]);
    expect(of("keyvault:Key").map((x) => [x.outputs?.key, x.outputs?.version])).toEqual([["tde", V]]);
    // Only the TDE configurations write; every key-custody resource only read.
    const puts = Object.entries(t.emu.stats.byRoute).filter(([k]) => k.startsWith("PUT ") || k.startsWith("DELETE "));
    expect(puts).toEqual([]);

    // check on the same stack file: the same verdicts.
    const check = await project.stackwarden(["check", "--stack", STACK, "--output", "json"]);
    expect(check.code, explain(check)).toBe(3);
    const fails = (JSON.parse(check.stdout) as { findings: { ruleId: string; verdict: string; label: string }[] }).findings
      .filter((f) => f.verdict === "fail")
      .map((f) => `${f.ruleId} ${f.label}`)
      .sort();
    expect(fails).toEqual([
      "sql-tde-customer-managed-key rg-kc/sql-kc-sm",
      "tde-key-vault-recoverable rg-kc/sql-kc-a",
      "tde-key-vault-recoverable rg-kc/sql-kc-b",
    ]);
  });

  it("purge protection turned on: up passes, with the advisory only; a refresh finds nothing changed", async () => {
    const kv = t.emu.store.state.services.keyvault as { vaults: { name: string; enablePurgeProtection: boolean }[] };
    kv.vaults[0].enablePurgeProtection = true;
    t.emu.store.changed();
    const r = await project.pulumi(["up", "--yes", "--refresh", "--policy-pack", "policies"]);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).not.toMatch(/\[mandatory\]/);
    expect(r.stdout).toMatch(/\[advisory\]\s+sql-tde-customer-managed-key/);
    const again = await project.pulumi(["preview", "--refresh", "--expect-no-changes", "--policy-pack", "policies"]);
    expect(again.code, explain(again)).toBe(0);
  });

  it("destroy leaves the protectors, vaults and keys as they are", async () => {
    const before = Object.values(t.emu.stats.byRoute).reduce((a, b) => a + b, 0);
    const d = await project.pulumi(["destroy", "--yes"]);
    expect(d.code, explain(d)).toBe(0);
    const writes = Object.entries(t.emu.stats.byRoute).filter(([k]) => !k.startsWith("GET ") && !k.includes("/metadata/"));
    expect(writes).toEqual([]);
    expect(Object.values(t.emu.stats.byRoute).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(before);
  });
});
