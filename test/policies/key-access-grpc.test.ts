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
 * tde-key-access as the Pulumi engine runs it: the compiled pack over gRPC, fed the data sources the
 * program registers against the key-access estate (the protectors, then each customer-managed
 * server's `sql:ServerIdentity` for its identity, each vault, and each vault's
 * `authorization:VaultRoleAssignments`). Parity with `check`: the same failures, levels and messages.
 */
const ESTATE = join(__dirname, "../fixtures/estates/key-access.estate.yaml");
const STACK = join(__dirname, "../fixtures/estates/Pulumi.key-access.yaml");
const SOURCES = ["sql:EncryptionProtector", "sql:ServerIdentity", "keyvault:Vault", "authorization:VaultRoleAssignments"];

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: ClientSet;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  analyzer = await PolicyAnalyzer.start();
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.key-access.yaml"));
});

afterAll(async () => {
  await analyzer?.stop();
  await clients?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const programResources = (): Promise<AnalyzerResourceInput[]> =>
  dataSourceResources(loadStackFile(STACK, {}, process.cwd()), clients, SOURCES);

describe("AnalyzeStack: tde-key-access", () => {
  let resources: AnalyzerResourceInput[];
  let violations: Violation[];
  beforeAll(async () => {
    resources = await programResources();
    violations = (await analyzer.analyzeStack(resources)).filter((v) => v.policyName === "tde-key-access");
  });

  it("the program registers a server data source per customer-managed server and a role-assignment source per vault", () => {
    expect(resources.filter((r) => r.type === TYPES.server)).toHaveLength(11);
    expect(resources.filter((r) => r.type === TYPES.roleAssignments)).toHaveLength(5);
  });

  it("parity with check: the same failures, at the same levels, with the same messages, each on its server's protector", async () => {
    const r = await runCli(["check", "--config", "Pulumi.key-access.yaml", "--output", "json"], emu.url, dir);
    expect(r.code, r.err).toBe(3);
    const fromCheck = (
      JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; label: string; message: string }[] }
    ).findings
      .filter((f) => f.ruleId === "tde-key-access" && f.verdict === "fail")
      .map((f) => ({
        level: f.level,
        urn: urnOf(TYPES.protector, `tde-protector-rg-ka-data-${f.label.split("/")[1]}`),
        message: f.message,
      }));
    const fromPack = violations.map((v) => ({ level: v.enforcementLevel, urn: v.urn, message: v.detail }));
    const order = (xs: typeof fromPack) => [...xs].sort((a, b) => a.urn.localeCompare(b.urn));
    expect(fromCheck).toHaveLength(5);
    expect(order(fromPack)).toEqual(order(fromCheck));
  });

  it("a server not read yet (a preview) is not judged, never passed as having access", async () => {
    const preview = resources.map((r) => (r.type === TYPES.server ? { ...r, props: { ...r.props, serverResource: UNKNOWN_VALUE } } : r));
    const v = (await analyzer.analyzeStack(preview)).filter((x) => x.policyName === "tde-key-access");
    expect(v).toEqual([]);
  });
});
