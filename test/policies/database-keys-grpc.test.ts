import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { loadStackFile } from "../../src/usecases/stack-file";
import { TYPES } from "../helpers/carrier-types";
import { dataSourceResources } from "../helpers/data-source-resources";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput } from "../helpers/analyzer";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCli, stackDir } from "../interfaces/cli/cli-harness";
import { estate } from "../services/keyvault/key-custody-kit";

/**
 * Database-level TDE protectors and vaults in other subscriptions as the Pulumi engine sees them
 * (issue 33, items 5, 6 and 9): the compiled pack over gRPC, fed the data sources the program
 * registers for test/fixtures/estates/Pulumi.database-keys.yaml: a `sql:Database` per database
 * (its own protector, if any), the protectors, and the vaults and keys both name (searched in
 * `stackwarden:keyVaultSubscriptions` too). Parity with `check`: the same failures, the database's
 * own on its `sql:Database` resource.
 */
const ESTATE = join(__dirname, "../fixtures/estates/database-keys.estate.yaml");
const STACK = join(__dirname, "../fixtures/estates/Pulumi.database-keys.yaml");
// tde-key-access too: the estate grants no identity access to its keys, so it fails wherever a key is read.
const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity", "tde-key-access"];
const SOURCES = [
  "sql:EncryptionProtector",
  "sql:Database",
  "sql:ServerIdentity",
  "keyvault:Vault",
  "keyvault:Key",
  "authorization:VaultRoleAssignments",
];

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: ClientSet;
let dir: string;
let resources: AnalyzerResourceInput[];

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  analyzer = await PolicyAnalyzer.start();
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.database-keys.yaml"));
  resources = await dataSourceResources(loadStackFile(STACK, {}, process.cwd()), clients, SOURCES);
});

afterAll(async () => {
  await analyzer?.stop();
  await clients?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The resource a finding is reported on: a database's own protector on its `sql:Database`, a server's on its protector. */
function urnOfLabel(label: string): string {
  const [rg, server, database] = label.split("/");
  return database ? urnOf(TYPES.database, `database-${rg}-${server}-${database}`) : urnOf(TYPES.protector, `tde-protector-${rg}-${server}`);
}

describe("AnalyzeStack over databases with their own TDE protectors", () => {
  it("the program's sources name both databases' keys and find the second subscription's vault", () => {
    const vaults = resources.filter((r) => r.type === TYPES.keyVault);
    expect(vaults.map((v) => [v.props.vault, v.props.searchSubscriptions])).toEqual([
      ["kv-dk-home", "11111111-1111-1111-1111-111111111111"],
      ["kv-dk-missing", "11111111-1111-1111-1111-111111111111"],
      ["kv-dk-remote", "11111111-1111-1111-1111-111111111111"],
    ]);
    const remote = vaults.find((v) => v.props.vault === "kv-dk-remote")!;
    expect(remote.props.readError).toBeUndefined();
    expect((remote.props.vaultResource as { id: string }).id).toMatch(/^\/subscriptions\/11111111-1111-1111-1111-111111111111\//);
    expect(resources.filter((r) => r.type === TYPES.vaultKey).map((k) => k.props.key)).toEqual([
      "tde-server",
      "tde-gone",
      "tde-ledger",
      "tde-billing",
    ]);
  });

  it("parity with check: the same failures, at the same levels, with the same messages", async () => {
    const r = await runCli(["check", "--config", "Pulumi.database-keys.yaml", "--output", "json"], emu.url, dir);
    expect(r.code, r.err).toBe(3);
    const fromCheck = (
      JSON.parse(r.out) as { findings: { ruleId: string; verdict: string; level: string; label: string; message: string }[] }
    ).findings
      .filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail")
      .map((f) => ({ policy: f.ruleId, level: f.level, urn: urnOfLabel(f.label), message: f.message.replace(/"readAt":"[^"]*"/, "") }));
    const violations = await analyzer.analyzeStack(resources);
    const fromPack = violations.map((v) => ({ policy: v.policyName, level: v.enforcementLevel, urn: v.urn, message: v.detail }));
    const order = (xs: typeof fromPack) => [...xs].sort((a, b) => `${a.urn} ${a.policy}`.localeCompare(`${b.urn} ${b.policy}`));
    expect(fromCheck.map((f) => f.urn)).toContain(urnOf(TYPES.database, "database-rg-dk-data-sql-dk-shared-ledger"));
    expect(order(fromPack)).toEqual(order(fromCheck));
  });

  it("during a preview (databases not read yet) a database is not judged on its own", async () => {
    const preview = resources
      .filter((r) => r.type === TYPES.database)
      .map((r) => ({ ...r, props: { ...r.props, databaseResource: UNKNOWN_VALUE } }));
    expect(await analyzer.analyzeStack(preview)).toEqual([]);
  });
});
