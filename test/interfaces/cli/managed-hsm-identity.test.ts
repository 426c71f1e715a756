import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

/**
 * A server whose TDE protector is a healthy key in a Managed HSM, and which has no managed identity:
 * Azure cannot reach the key, so `check` exits 3 with a tde-key-access failure (issue 40, item 11);
 * the same server with an identity is not applicable, saying what was verified and what was not.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const KEY = "https://hsm-kc.managedhsm.azure.net/keys/tde-hsm/0a1b2c3d4e5f60718293a4b5c6d7e8f9";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-no-identity
      resourceGroup: rg-data
      location: West Europe
      encryptionProtector: { keyUri: ${KEY} }
      databases: [{ name: app, transparentDataEncryption: Enabled }]
    - name: sql-identity
      resourceGroup: rg-data
      location: West Europe
      identity: { type: SystemAssigned }
      encryptionProtector: { keyUri: ${KEY} }
      databases: [{ name: app, transparentDataEncryption: Enabled }]
keyvault:
  subscriptionId: ${SUB}
  managedHsms:
    - name: hsm-kc
      resourceGroup: rg-keys
      location: westeurope
      softDeleteRetentionInDays: 30
      enablePurgeProtection: true
      keys:
        - { name: tde-hsm, kty: RSA-HSM, keySize: 3072, version: 0a1b2c3d4e5f60718293a4b5c6d7e8f9, expirationDate: now+730d }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-no-identity, database: app, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-data, server: sql-identity, database: app, transparentDataEncryption: Enabled }
`;

interface JsonFinding {
  ruleId: string;
  verdict: string;
  level: string;
  label: string;
  message: string;
}

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(() => emu?.close());

describe("tde-key-access over a Managed HSM protector", () => {
  it("a server without identity fails (exit 3); one with an identity is not applicable, saying what was and was not verified", async () => {
    const r = await runCli(["check", "--config", "Pulumi.hsm.yaml", "--output", "json"], emu.url, stackDir({ "Pulumi.hsm.yaml": STACK }));
    expect(r.err).toBe("");
    expect(r.code).toBe(3);
    const findings = (JSON.parse(r.out) as { findings: JsonFinding[] }).findings;
    const failing = findings.filter((f) => f.verdict === "fail" && f.level === "mandatory");
    expect(failing.map((f) => [f.ruleId, f.label])).toEqual([["tde-key-access", "rg-data/sql-no-identity"]]);
    expect(failing[0].message).toMatch(/in the Managed HSM hsm-kc\/tde-hsm; .*managed identity/);
    const withIdentity = findings.find((f) => f.ruleId === "tde-key-access" && f.label === "rg-data/sql-identity")!;
    expect(withIdentity.verdict).toBe("not-applicable");
    expect(withIdentity.message).toMatch(/^verified: .*system-assigned identity.*; not verified: whether the Managed HSM hsm-kc grants it/);
  });
});
