import { copyFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { estate } from "../../services/keyvault/key-custody-kit";
import { runCli, stackDir } from "./cli-harness";

/**
 * The key-custody rules when the TDE protector is a key in a Managed HSM: `check --output json`
 * through the CLI against the Managed HSM test estate (test/fixtures/estates/managed-hsm.estate.yaml,
 * one server per case). An HSM key is read and judged like a vault key; an HSM or key that cannot be
 * read is a finding with its status, never a pass and never not applicable.
 */
const ESTATE = join(__dirname, "../../fixtures/estates/managed-hsm.estate.yaml");
const STACK = join(__dirname, "../../fixtures/estates/Pulumi.managed-hsm.yaml");
const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity"];

interface JsonFinding {
  ruleId: string;
  verdict: string;
  level: string;
  label: string;
  message: string;
  properties?: Record<string, unknown>;
}

let emu: TestEmulator;
let dir: string;
let findings: JsonFinding[];
let code: number;
let controls: { framework: string; id: string; pass: number; fail: number; onlyWhere?: Record<string, string> }[];

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.managed-hsm.yaml"));
  const r = await runCli(["check", "--config", "Pulumi.managed-hsm.yaml", "--output", "json"], emu.url, dir);
  expect(r.err).toBe("");
  code = r.code;
  const doc = JSON.parse(r.out) as { findings: JsonFinding[]; controls?: typeof controls };
  findings = doc.findings;
  controls = doc.controls ?? [];
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const of = (server: string) =>
  Object.fromEntries(findings.filter((f) => f.label === `rg-hsm-data/${server}` && KEY_RULES.includes(f.ruleId)).map((f) => [f.ruleId, f]));

describe("check over the Managed HSM estate", () => {
  it("exits 3: HSM keys are judged, and the mandatory key rules are violated", () => {
    expect(code).toBe(3);
  });

  it("a healthy HSM key passes all three key rules (the key customer-managed, the HSM recoverable, the key valid)", () => {
    const f = of("sql-hsm-healthy");
    expect(KEY_RULES.map((r) => f[r].verdict)).toEqual(["pass", "pass", "pass"]);
    expect(f["tde-key-vault-recoverable"].message).toBe(
      "Managed HSM rg-hsm-keys/hsm-kc-healthy has soft delete (30 days' retention) and purge protection",
    );
    expect(f["tde-key-vault-recoverable"].properties).toMatchObject({ container: "managedHsm", provisioningState: "Succeeded" });
    expect(f["tde-key-validity"].message).toMatch(
      /^the key hsm-kc-healthy\/tde-hsm\/0a1b2c3d4e5f60718293a4b5c6d7e8f9 is RSA-HSM 3072 bits, enabled, active since/,
    );
  });

  it.each([
    [
      "sql-hsm-no-purge",
      "tde-key-vault-recoverable",
      /^Managed HSM rg-hsm-keys\/hsm-kc-nopurge, which holds the TDE protector of SQL server rg-hsm-data\/sql-hsm-no-purge, must have soft delete and purge protection enabled; purge protection is off$/,
    ],
    [
      "sql-hsm-disabled",
      "tde-key-validity",
      /^The TDE protector key hsm-kc-healthy\/tde-disabled\/2{32} of SQL server .*; it is disabled$/,
    ],
    [
      "sql-hsm-unlisted",
      "tde-key-vault-recoverable",
      /^The Managed HSM hsm-kc-locked holding .* must be readable to show it is recoverable; ManagedHsmNotListed: Resource Manager lists no managed HSM named 'hsm-kc-locked'/,
    ],
    [
      "sql-hsm-key-denied",
      "tde-key-validity",
      /must be readable to be judged; HTTP 403 AuthorizationFailed: .*Microsoft\.KeyVault\/managedHSMs\/keys\/read/,
    ],
    ["sql-hsm-key-missing", "tde-key-validity", /must be readable to be judged; HTTP 404 ResourceNotFound: /],
  ])("%s: exactly one mandatory finding, %s", (server, rule, message) => {
    const failing = Object.values(of(server)).filter((f) => f.verdict === "fail");
    expect(failing.map((f) => f.ruleId)).toEqual([rule]);
    expect(failing[0].level).toBe("mandatory");
    expect(failing[0].message).toMatch(message);
  });

  it("what cannot be read carries its status: 0 and the code for an HSM not listed, 403 and 404 for the keys", () => {
    expect(of("sql-hsm-unlisted")["tde-key-vault-recoverable"].properties).toMatchObject({
      readStatus: 0,
      readCode: "ManagedHsmNotListed",
    });
    // Its key could not be read either: one problem is one finding, the other rule says why it is not judged.
    expect(of("sql-hsm-unlisted")["tde-key-validity"]).toMatchObject({ verdict: "not-applicable" });
    expect(of("sql-hsm-unlisted")["tde-key-validity"].message).toMatch(/its Managed HSM hsm-kc-locked could not be read/);
    expect(of("sql-hsm-key-denied")["tde-key-validity"].properties).toMatchObject({ readStatus: 403, readCode: "AuthorizationFailed" });
    expect(of("sql-hsm-key-missing")["tde-key-validity"].properties).toMatchObject({ readStatus: 404, readCode: "ResourceNotFound" });
  });

  it("sql-tde-customer-managed-key passes every HSM-protected server: an HSM key is customer-managed", () => {
    for (const server of [
      "sql-hsm-healthy",
      "sql-hsm-no-purge",
      "sql-hsm-disabled",
      "sql-hsm-unlisted",
      "sql-hsm-key-denied",
      "sql-hsm-key-missing",
    ])
      expect(of(server)["sql-tde-customer-managed-key"].verdict, server).toBe("pass");
  });

  it("the report files the HSM findings under the Managed HSM policies only, never under the Key Vault ones", () => {
    const tally = (id: string) => {
      const c = controls.find((x) => x.id === id);
      expect(c, id).toBeDefined();
      return [c!.pass, c!.fail];
    };
    // tde-key-vault-recoverable: 4 HSMs pass (healthy, and those of the disabled, refused and missing keys), 2 fail.
    expect(tally("c39ba22d-4428-4149-b981-70acb31fc383")).toEqual([4, 2]);
    expect(tally("0b60c0b2-2dc2-4e1c-b5c9-abbed971de53")).toEqual([0, 0]);
    expect(tally("8.5")).toEqual([0, 0]);
    // tde-key-validity: 2 keys pass, 3 fail (disabled, refused, missing); the unlisted HSM's key is not applicable.
    expect(tally("1d478a74-21ba-4b9f-9d8f-8e6fced0eec5")).toEqual([2, 3]);
    expect(tally("86810a98-8e91-4a44-8386-ec66d0de5d57")).toEqual([2, 3]);
    expect(tally("152b15f7-8e1f-4c1f-ab71-8c010ba5dbc0")).toEqual([0, 0]);
    expect(tally("8.1")).toEqual([0, 0]);
    expect(controls.find((x) => x.id === "c39ba22d-4428-4149-b981-70acb31fc383")).toMatchObject({ onlyWhere: { container: "managedHsm" } });
  });
});

describe("evidence over the Managed HSM estate", () => {
  it("the bundle's facts carry the HSMs (kind managedHsm) and their keys, each with the receipt of its read", async () => {
    const out = join(dir, "bundle");
    const r = await runCli(
      ["evidence", "--config", "Pulumi.managed-hsm.yaml", "--out", out, "--audit-dir", join(dir, "audit")],
      emu.url,
      dir,
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(3);
    const facts = (kind: string) =>
      (JSON.parse(readFileSync(join(out, "facts", `${kind}.json`), "utf8")) as { facts: Record<string, unknown>[] }).facts;
    const hsms = facts("keyVaults");
    expect(hsms.map((h) => [h.name, h.kind, h.enablePurgeProtection]).sort()).toEqual([
      ["hsm-kc-healthy", "managedHsm", true],
      ["hsm-kc-locked", "managedHsm", false],
      ["hsm-kc-nopurge", "managedHsm", false],
    ]);
    expect(hsms.find((h) => h.name === "hsm-kc-healthy")).toMatchObject({
      resourceGroup: "rg-hsm-keys",
      provisioningState: "Succeeded",
      reads: [expect.objectContaining({ operation: "ManagedHsms_Get" })],
    });
    expect(hsms.find((h) => h.name === "hsm-kc-locked")).toMatchObject({ readFailure: { code: "ManagedHsmNotListed" } });
    const keys = facts("protectorKeys");
    expect(keys.find((k) => k.keyName === "tde-hsm")).toMatchObject({
      container: "managedHsm",
      kty: "RSA-HSM",
      keySize: 3072,
      enabled: true,
      reads: [expect.objectContaining({ operation: "ManagedHsmKeys_GetVersion" })],
    });
  });
});
