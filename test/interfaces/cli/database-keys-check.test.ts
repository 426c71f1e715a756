import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { estate } from "../../services/keyvault/key-custody-kit";
import { runCli, stackDir } from "./cli-harness";

/**
 * Database-level TDE protectors and vaults in other subscriptions (issue 33, items 5 and 6), against
 * test/fixtures/estates/database-keys.estate.yaml: `check --output json` through the CLI. A database
 * with its own protector is judged on its own key (named by the database); the server's protector
 * judges its other databases; a vault in a subscription of `stackwarden:keyVaultSubscriptions` is
 * found and judged; a vault no searched subscription lists is VaultNotListed, naming them all.
 */
const ESTATE = join(__dirname, "../../fixtures/estates/database-keys.estate.yaml");
const STACK = join(__dirname, "../../fixtures/estates/Pulumi.database-keys.yaml");
const HOME = "00000000-0000-0000-0000-000000000000";
const REMOTE = "11111111-1111-1111-1111-111111111111";

interface JsonFinding {
  ruleId: string;
  verdict: string;
  level: string;
  resourceId: string;
  label: string;
  message: string;
  line?: number;
}

let emu: TestEmulator;
let dir: string;
let findings: JsonFinding[];
let code: number;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.database-keys.yaml"));
  const r = await runCli(["check", "--config", "Pulumi.database-keys.yaml", "--output", "json"], emu.url, dir);
  expect(r.err).toBe("");
  code = r.code;
  findings = (JSON.parse(r.out) as { findings: JsonFinding[] }).findings;
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity"];
const of = (label: string) => findings.filter((f) => f.label === label && KEY_RULES.includes(f.ruleId));

describe("check over databases with their own TDE protectors", () => {
  it("exits 3: a mandatory key rule fails", () => {
    expect(code).toBe(3);
  });

  it("the database on its own disabled key fails tde-key-validity, named by the database, at its stack line", () => {
    const mine = of("rg-dk-data/sql-dk-shared/ledger");
    expect(mine.map((f) => [f.ruleId, f.verdict])).toEqual([
      ["sql-tde-customer-managed-key", "pass"],
      ["tde-key-vault-recoverable", "pass"],
      ["tde-key-validity", "fail"],
    ]);
    const fail = mine[2];
    expect(fail.resourceId).toBe(
      `/subscriptions/${HOME}/resourceGroups/rg-dk-data/providers/Microsoft.Sql/servers/sql-dk-shared/databases/ledger`,
    );
    expect(fail.message).toMatch(
      /^The TDE protector key kv-dk-home\/tde-ledger\/1{32} of database rg-dk-data\/sql-dk-shared\/ledger must be enabled, .*; it is disabled$/,
    );
    expect(fail.line).toBe(9);
  });

  it("the server's healthy protector still passes for its other database", () => {
    const server = of("rg-dk-data/sql-dk-shared");
    expect(server.map((f) => [f.ruleId, f.verdict])).toEqual(KEY_RULES.map((r) => [r, "pass"]));
    expect(server[2].message).toMatch(/^the key kv-dk-home\/tde-server\/0123456789abcdef0123456789abcdef is RSA 2048 bits, enabled/);
    expect(server[0].line).toBe(8);
  });

  it("the database whose key is in a vault of the second subscription is judged there: all three rules pass", () => {
    const billing = of("rg-dk-data/sql-dk-shared/billing");
    expect(billing.map((f) => [f.ruleId, f.verdict])).toEqual(KEY_RULES.map((r) => [r, "pass"]));
    expect(billing[1].message).toMatch(/kv-dk-remote/);
    expect(findings.map((f) => f.message).join("\n")).not.toMatch(/VaultNotListed: Resource Manager lists no vault named 'kv-dk-remote'/);
  });

  it("a vault no searched subscription lists is VaultNotListed, naming both subscriptions", () => {
    const nowhere = of("rg-dk-data/sql-dk-nowhere").filter((f) => f.verdict === "fail");
    expect(nowhere.map((f) => f.ruleId)).toEqual(["tde-key-vault-recoverable"]);
    expect(nowhere[0].message).toContain(
      `VaultNotListed: Resource Manager lists no vault named 'kv-dk-missing' in subscriptions '${HOME}', '${REMOTE}' (searched)`,
    );
  });

  it("no other key finding fails", () => {
    const failing = findings.filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail").map((f) => `${f.label} ${f.ruleId}`);
    expect(failing.sort()).toEqual([
      "rg-dk-data/sql-dk-nowhere tde-key-vault-recoverable",
      "rg-dk-data/sql-dk-shared/ledger tde-key-validity",
    ]);
  });
});

describe("check without stackwarden:keyVaultSubscriptions", () => {
  it("the vault in the second subscription is not found: VaultNotListed names the one subscription searched", async () => {
    const only = stackDir({
      "Pulumi.only.yaml": [
        "config:",
        `  stackwarden:subscriptionId: ${HOME}`,
        "  stackwarden:databases:",
        "    - { resourceGroup: rg-dk-data, server: sql-dk-shared, database: billing, transparentDataEncryption: Enabled }",
        "",
      ].join("\n"),
    });
    try {
      const r = await runCli(["check", "--config", "Pulumi.only.yaml", "--output", "json"], emu.url, only);
      const f = (JSON.parse(r.out) as { findings: JsonFinding[] }).findings.filter(
        (x) => x.label === "rg-dk-data/sql-dk-shared/billing" && x.ruleId === "tde-key-vault-recoverable",
      );
      expect(f.map((x) => x.verdict)).toEqual(["fail"]);
      expect(f[0].message).toContain(`Resource Manager lists no vault named 'kv-dk-remote' in subscription '${HOME}' (searched)`);
      expect(f[0].message).toContain("stackwarden:keyVaultSubscriptions");
    } finally {
      rmSync(only, { recursive: true, force: true });
    }
  });

  it("a malformed stackwarden:keyVaultSubscriptions is refused with its file, line and field", async () => {
    const bad = stackDir({
      "Pulumi.bad.yaml": ["config:", `  stackwarden:subscriptionId: ${HOME}`, "  stackwarden:keyVaultSubscriptions: [not-a-guid]", ""].join(
        "\n",
      ),
    });
    try {
      const r = await runCli(["check", "--config", "Pulumi.bad.yaml"], emu.url, bad);
      expect(r.code).not.toBe(0);
      expect(r.err).toMatch(/Pulumi\.bad\.yaml:3:\d+.*stackwarden:keyVaultSubscriptions/);
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });
});
