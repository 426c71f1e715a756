import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { estate } from "../../services/keyvault/key-custody-kit";
import { runCli, stackDir } from "./cli-harness";

/**
 * The key-custody rules against the key-custody test estate (test/fixtures/estates/key-custody.estate.yaml,
 * one SQL server per case): `check --output json` through the CLI, the emulator seeded with that
 * estate. Each case yields exactly its expected finding (the table at the estate's top); the healthy
 * server none.
 */
const STACK = join(__dirname, "../../fixtures/estates/Pulumi.key-custody.yaml");

interface JsonFinding {
  ruleId: string;
  verdict: string;
  level: string;
  label: string;
  message: string;
  line?: number;
  properties?: Record<string, unknown>;
}

let emu: TestEmulator;
let dir: string;
let findings: JsonFinding[];
let code: number;
let doc: { controls?: unknown[]; summary: Record<string, number> };

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate() });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.key-custody.yaml"));
  const r = await runCli(["check", "--config", "Pulumi.key-custody.yaml", "--output", "json"], emu.url, dir);
  expect(r.err).toBe("");
  code = r.code;
  doc = JSON.parse(r.out) as typeof doc & { findings: JsonFinding[] };
  findings = (doc as unknown as { findings: JsonFinding[] }).findings;
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const KEY_RULES = ["sql-tde-customer-managed-key", "tde-key-vault-recoverable", "tde-key-validity"];
const failing = (server: string) =>
  findings.filter((f) => f.label === `rg-kc-data/${server}` && KEY_RULES.includes(f.ruleId) && f.verdict === "fail");

describe("check --output json over the key-custody estate", () => {
  it("exits 3: the mandatory key rules are violated", () => {
    expect(code).toBe(3);
  });

  it.each([
    ["sql-kc-service-managed", "sql-tde-customer-managed-key", "advisory", /its TDE protector is service-managed \(ServiceManaged\)$/],
    [
      "sql-kc-no-purge",
      "tde-key-vault-recoverable",
      "mandatory",
      /Key Vault rg-kc-keys\/kv-kc-nopurge, .* must have soft delete and purge protection enabled; purge protection is off$/,
    ],
    [
      "sql-kc-no-soft-delete",
      "tde-key-vault-recoverable",
      "mandatory",
      /kv-kc-nosoftdel, .*; soft delete is off and purge protection is off$/,
    ],
    ["sql-kc-expired", "tde-key-validity", "mandatory", /kv-kc-healthy\/tde-expired\/3{32} .*; it expired on \d{4}-\d\d-\d\d$/],
    ["sql-kc-expiring", "tde-key-validity", "mandatory", /; it expires on \d{4}-\d\d-\d\d, in (9|10) days$/],
    ["sql-kc-disabled", "tde-key-validity", "mandatory", /; it is disabled$/],
    ["sql-kc-not-yet-active", "tde-key-validity", "mandatory", /; it is not active until \d{4}-\d\d-\d\d$/],
    ["sql-kc-ec", "tde-key-validity", "mandatory", /; it is an EC P-256 key, not RSA or RSA-HSM$/],
    ["sql-kc-rsa4096", "tde-key-validity", "mandatory", /; it is RSA of 4096 bits, not 2048 or 3072$/],
    [
      "sql-kc-vault-unreadable",
      "tde-key-vault-recoverable",
      "mandatory",
      /The Key Vault kv-kc-locked .* must be readable to show it is recoverable; VaultNotListed: Resource Manager lists no vault named 'kv-kc-locked'/,
    ],
    [
      "sql-kc-key-unreadable",
      "tde-key-validity",
      "mandatory",
      /must be readable to be judged; HTTP 403 AuthorizationFailed: .*Microsoft\.KeyVault\/vaults\/keys\/read/,
    ],
  ])("%s: exactly one finding, %s (%s)", (server, rule, level, message) => {
    const f = failing(server);
    expect(f.map((x) => x.ruleId)).toEqual([rule]);
    expect(f[0].level).toBe(level);
    expect(f[0].message).toMatch(message);
  });

  it("the healthy server passes all three rules", () => {
    const mine = findings.filter((f) => f.label === "rg-kc-data/sql-kc-healthy" && KEY_RULES.includes(f.ruleId));
    expect(mine.map((f) => [f.ruleId, f.verdict])).toEqual(KEY_RULES.map((r) => [r, "pass"]));
    expect(mine[2].message).toMatch(
      /^the key kv-kc-healthy\/tde-healthy\/0a1b2c3d4e5f60718293a4b5c6d7e8f9 is RSA 2048 bits, enabled, active since/,
    );
  });

  it("no other server fails a key rule, and every key finding points at its database's line", () => {
    const servers = new Set(findings.filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail").map((f) => f.label));
    expect(servers.size).toBe(11);
    for (const f of findings.filter((x) => KEY_RULES.includes(x.ruleId))) expect(f.line).toBeGreaterThan(3);
  });

  it("an identity's principal ids are left out of the 403's message", () => {
    const f = failing("sql-kc-key-unreadable")[0];
    expect(f.message).toContain("client [principal] with object id [principal]");
    expect(f.message).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'/);
  });
});

describe("drift over the key-custody estate", () => {
  it("lists the key-custody findings; the mandatory ones make it exit 2, the advisory alone would not", async () => {
    const r = await runCli(["drift", "--config", "Pulumi.key-custody.yaml", "--output", "json"], emu.url, dir);
    expect(r.err).toBe("");
    expect(r.code).toBe(2);
    const d = JSON.parse(r.out) as {
      transparentDataEncryption: unknown[];
      keyCustody: { ruleId: string; label: string; level: string; verdict: string }[];
    };
    expect(d.transparentDataEncryption).toEqual([]);
    expect(d.keyCustody.map((f) => `${f.label} ${f.ruleId}`).sort()).toEqual(
      findings
        .filter((f) => KEY_RULES.includes(f.ruleId) && f.verdict === "fail")
        .map((f) => `${f.label} ${f.ruleId}`)
        .sort(),
    );

    // Only the service-managed server, whose finding is advisory: listed, exit 0.
    const two = [
      "config:",
      "  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000",
      "  stackwarden:databases:",
      "    - { resourceGroup: rg-kc-data, server: sql-kc-service-managed, database: app, transparentDataEncryption: Enabled }",
      "    - { resourceGroup: rg-kc-data, server: sql-kc-healthy, database: app, transparentDataEncryption: Enabled }",
    ];
    const one = stackDir({
      "Pulumi.one.yaml": [...two, ""].join("\n"),
      // The stack makes customer-managed keys mandatory: the same finding now blocks.
      "Pulumi.strict.yaml": [
        ...two,
        "  stackwarden:policies:",
        "    sql-tde-customer-managed-key: { enforcementLevel: mandatory }",
        "",
      ].join("\n"),
    });
    try {
      const t = await runCli(["drift", "--config", "Pulumi.one.yaml"], emu.url, one);
      expect(t.code).toBe(0);
      expect((await runCli(["drift", "--config", "Pulumi.strict.yaml"], emu.url, one)).code).toBe(2);
      expect(t.out).toMatch(
        /ADVISORY rg-kc-data\/sql-kc-service-managed: SQL server rg-kc-data\/sql-kc-service-managed must protect transparent data encryption with a customer-managed key/,
      );
    } finally {
      rmSync(one, { recursive: true, force: true });
    }
  });
});

describe("inventory over the key-custody estate", () => {
  it("lists each server's protector and keys, and the protectors' vaults and keys; what cannot be read is an error (exit 1)", async () => {
    const r = await runCli(["inventory", "--config", "Pulumi.key-custody.yaml", "--output", "json"], emu.url, dir);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as {
      sql: { encryptionProtectors: { id: string; properties: { serverKeyType: string } }[]; serverKeys: { name: string }[] };
      keyVault: { vaults: { name: string }[]; keys: { id: string; name: string }[] };
      errors: { resource: string; status: number; code: string }[];
    };
    expect(Object.keys(doc)).toEqual(["batch", "sql", "keyVault", "errors", "warnings"]);
    expect(Object.keys(doc.sql).slice(-2)).toEqual(["encryptionProtectors", "serverKeys"]);
    expect(doc.sql.encryptionProtectors).toHaveLength(12);
    expect(doc.sql.encryptionProtectors.filter((p) => p.properties.serverKeyType === "ServiceManaged")).toHaveLength(1);
    // Every server knows the service-managed key, plus its Key Vault keys (sql-kc-healthy an earlier one too).
    expect(doc.sql.serverKeys.filter((k) => k.name === "ServiceManaged")).toHaveLength(12);
    expect(doc.sql.serverKeys).toHaveLength(12 + 11 + 1);
    expect(doc.keyVault.vaults.map((v) => v.name).sort()).toEqual(["kv-kc-healthy", "kv-kc-nopurge", "kv-kc-nosoftdel"]);
    // Eleven key versions named by protectors; tde-hidden (403) and tde-locked (its vault is not listed) are errors.
    expect(doc.keyVault.keys).toHaveLength(9);
    expect(doc.errors.map((e) => `${e.resource} ${e.status} ${e.code}`).sort()).toEqual([
      "key kv-kc-healthy/tde-hidden/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 403 AuthorizationFailed",
      "key vault kv-kc-locked 0 VaultNotListed",
    ]);
    expect(r.err).toMatch(/inventory: error: SW_RESOURCE_NOT_FOUND: key vault kv-kc-locked: VaultNotListed/);
  });
});

describe("where over the key-custody estate", () => {
  it("places the Key Vaults of the TDE protectors that could be read, beside the databases", async () => {
    const r = await runCli(["where", "--config", "Pulumi.key-custody.yaml", "--output", "json"], emu.url, dir, {
      STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
    });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { placements: { kind: string; label: string; region?: string; country?: string }[] };
    const vaults = doc.placements.filter((p) => p.kind === "key-vault");
    expect(vaults.map((v) => [v.label, v.region, v.country]).sort()).toEqual([
      ["rg-kc-keys/kv-kc-healthy", "westeurope", "NL"],
      ["rg-kc-keys/kv-kc-nopurge", "westeurope", "NL"],
      ["rg-kc-keys/kv-kc-nosoftdel", "westeurope", "NL"],
    ]);
    expect(doc.placements.filter((p) => p.kind === "sql-database")).toHaveLength(12);
  }, 60_000);
});
