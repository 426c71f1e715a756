import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { loadStackFile } from "../../src/usecases/stack-file";
import { TYPES } from "../helpers/carrier-types";
import { dataSourceResources } from "../helpers/data-source-resources";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput, type Violation } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli, stackDir } from "../interfaces/cli/cli-harness";
import { estate } from "../services/keyvault/key-custody-kit";

/**
 * The key-custody policies as the Pulumi engine runs them: the compiled pack in a child process,
 * driven over gRPC, fed the data sources the program registers (one EncryptionProtector per server,
 * one KeyVault per distinct vault, one KeyVaultKey per distinct key version) with the outputs their
 * providers return against the key-custody estate. Parity: the same violations, levels and messages
 * as `check` on the same estate, each reported on its server's protector.
 */
const STACK = join(__dirname, "../fixtures/estates/Pulumi.key-custody.yaml");
const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity"];

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: ClientSet;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate() });
  analyzer = await PolicyAnalyzer.start();
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.key-custody.yaml"));
});

afterAll(async () => {
  await analyzer?.stop();
  await clients?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const protectorName = (server: string) => `tde-protector-rg-kc-data-${server}`;

/** The stack's key-custody data sources as the program registers them, each with the outputs its provider returned. */
function programResources(): Promise<AnalyzerResourceInput[]> {
  return dataSourceResources(loadStackFile(STACK, {}, process.cwd()), clients, [
    "sql:EncryptionProtector",
    "keyvault:Vault",
    "keyvault:Key",
  ]);
}

describe("AnalyzeStack: the key-custody policies", () => {
  let violations: Violation[];
  beforeAll(async () => {
    violations = await analyzer.analyzeStack(await programResources());
  });

  it("the pack offers the three policies as stack policies, at their default levels", async () => {
    const info = await analyzer.info();
    const levels = Object.fromEntries(
      info.policies.filter((p) => KEY_RULES.includes(p.name)).map((p) => [p.name, [p.type, p.enforcementLevel]]),
    );
    expect(levels).toEqual({
      "sql-tde-customer-managed-key": ["stack", "advisory"],
      "tde-key-vault-recoverable": ["stack", "mandatory"],
      "tde-key-validity": ["stack", "mandatory"],
    });
    expect(info.policies.find((p) => p.name === "tde-key-validity")!.configSchema).toMatchObject({
      minDaysToExpiry: { type: "integer", default: 30 },
      requireExpiry: { type: "boolean", default: true },
      requireAutoRotation: { type: "boolean", default: false },
      maxKeyAgeDays: { type: "integer", minimum: 0, default: 0 },
    });
  });

  it("parity with check: the same failures, at the same levels, with the same messages, each on its server's protector", async () => {
    const r = await runCli(["check", "--config", "Pulumi.key-custody.yaml", "--output", "json"], emu.url, dir);
    expect(r.code, r.err).toBe(3);
    const fromCheck = (
      JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; label: string; message: string }[] }
    ).findings
      .filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail")
      .map((f) => ({
        policy: f.ruleId,
        level: f.level,
        urn: urnOf(TYPES.protector, protectorName(f.label.split("/")[1])),
        message: f.message,
      }));
    const fromPack = violations.map((v) => ({ policy: v.policyName, level: v.enforcementLevel, urn: v.urn, message: v.detail }));
    const order = (xs: typeof fromPack) => [...xs].sort((a, b) => `${a.urn} ${a.policy}`.localeCompare(`${b.urn} ${b.policy}`));
    expect(fromCheck).toHaveLength(11);
    expect(order(fromPack)).toEqual(order(fromCheck));
  });

  it("minDaysToExpiry from the pack's config: 5 days lets the key that expires in 10 pass", async () => {
    await analyzer.configure({ "tde-key-validity": { enforcementLevel: "mandatory", properties: { minDaysToExpiry: 5 } } });
    try {
      const v = await analyzer.analyzeStack(await programResources());
      expect(v.some((x) => x.urn === urnOf(TYPES.protector, protectorName("sql-kc-expiring")))).toBe(false);
      expect(v.some((x) => x.urn === urnOf(TYPES.protector, protectorName("sql-kc-expired")))).toBe(true);
    } finally {
      await analyzer.configure({});
    }
  });

  it("requireAutoRotation from the pack's config: the protector data source carries autoRotationEnabled (read at 2021-11-01)", async () => {
    await analyzer.configure({ "tde-key-validity": { enforcementLevel: "mandatory", properties: { requireAutoRotation: true } } });
    try {
      const v = (await analyzer.analyzeStack(await programResources())).filter((x) => x.policyName === "tde-key-validity");
      // sql-kc-healthy rotates automatically; sql-kc-no-purge's server does not.
      expect(v.some((x) => x.urn === urnOf(TYPES.protector, protectorName("sql-kc-healthy")))).toBe(false);
      const noPurge = v.find((x) => x.urn === urnOf(TYPES.protector, protectorName("sql-kc-no-purge")));
      expect(noPurge?.detail).toMatch(/; its server does not rotate it automatically \(autoRotationEnabled is false\)$/);
    } finally {
      await analyzer.configure({});
    }
  });

  it("during a preview (protectors not read yet, no vault or key registered) nothing is judged", async () => {
    const preview = (await programResources())
      .filter((r) => r.type === TYPES.protector)
      .map((r) => ({ ...r, props: { ...r.props, protector: UNKNOWN_VALUE } }));
    expect(await analyzer.analyzeStack(preview)).toEqual([]);
    // A protector the engine has not read yet carries no output at all: not judged either.
    const unread = preview.map(({ props: { protector: _p, ...props }, ...r }) => ({ ...r, props }));
    expect(await analyzer.analyzeStack(unread)).toEqual([]);
  });
});
