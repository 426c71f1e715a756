import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { loadStackFile } from "../../src/usecases/stack-file";
import { TYPES } from "../helpers/carrier-types";
import { dataSourceResources } from "../helpers/data-source-resources";
import { PolicyAnalyzer, urnOf } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli, stackDir } from "../interfaces/cli/cli-harness";
import { estate } from "../services/keyvault/key-custody-kit";

/**
 * The key-custody policies over protectors whose keys are in Managed HSMs, as the Pulumi engine runs
 * them (the compiled pack over gRPC), fed the data sources the program registers for the Managed HSM
 * estate: the HSMs (keyvault:Vault, kind managedHsm) and their keys (keyvault:Key, kind managedHsm)
 * read by their providers. Parity with `check` on the same estate.
 */
const ESTATE = join(__dirname, "../fixtures/estates/managed-hsm.estate.yaml");
const STACK = join(__dirname, "../fixtures/estates/Pulumi.managed-hsm.yaml");
const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity"];

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: ClientSet;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  analyzer = await PolicyAnalyzer.start();
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.managed-hsm.yaml"));
});

afterAll(async () => {
  await analyzer?.stop();
  await clients?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("AnalyzeStack: the key-custody policies over Managed HSM keys", () => {
  it("the program registers each HSM and HSM key with kind managedHsm; the pack finds what check finds, on each server's protector", async () => {
    const resources = await dataSourceResources(loadStackFile(STACK, {}, process.cwd()), clients, [
      "sql:EncryptionProtector",
      "keyvault:Vault",
      "keyvault:Key",
    ]);
    const hsms = resources.filter((r) => r.type === TYPES.keyVault);
    expect(hsms.map((r) => [r.name, r.props.kind, r.props.resourceGroup ?? null]).sort()).toEqual([
      ["managedhsm-hsm-kc-healthy", "managedHsm", "rg-hsm-keys"],
      ["managedhsm-hsm-kc-locked", "managedHsm", null],
      ["managedhsm-hsm-kc-nopurge", "managedHsm", "rg-hsm-keys"],
    ]);
    expect(hsms.find((r) => r.name === "managedhsm-hsm-kc-locked")!.props.readError).toMatchObject({ code: "ManagedHsmNotListed" });

    const violations = await analyzer.analyzeStack(resources);
    const r = await runCli(["check", "--config", "Pulumi.managed-hsm.yaml", "--output", "json"], emu.url, dir);
    expect(r.code, r.err).toBe(3);
    const fromCheck = (
      JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; label: string; message: string }[] }
    ).findings
      .filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail")
      .map((f) => ({
        policy: f.ruleId,
        level: f.level,
        urn: urnOf(TYPES.protector, `tde-protector-rg-hsm-data-${f.label.split("/")[1]}`),
        message: f.message,
      }));
    const fromPack = violations.map((v) => ({ policy: v.policyName, level: v.enforcementLevel, urn: v.urn, message: v.detail }));
    const order = (xs: typeof fromPack) => [...xs].sort((a, b) => `${a.urn} ${a.policy}`.localeCompare(`${b.urn} ${b.policy}`));
    expect(fromCheck).toHaveLength(5);
    expect(order(fromPack)).toEqual(order(fromCheck));
  });
});
