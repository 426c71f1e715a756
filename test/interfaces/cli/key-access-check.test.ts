import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { estate } from "../../services/keyvault/key-custody-kit";
import { runCli, stackDir } from "./cli-harness";

/**
 * `tde-key-access` against the key-access test estate (test/fixtures/estates/key-access.estate.yaml,
 * one SQL server per case): `check --output json` through the CLI, the emulator seeded with that
 * estate. Each server gets the verdict Microsoft's page on customer-managed TDE gives (the table at
 * the estate's top).
 */
const ESTATE = join(__dirname, "../../fixtures/estates/key-access.estate.yaml");
const STACK = join(__dirname, "../../fixtures/estates/Pulumi.key-access.yaml");

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

beforeAll(async () => {
  emu = await startTestEmulator({ seed: estate(ESTATE) });
  dir = stackDir({});
  copyFileSync(STACK, join(dir, "Pulumi.key-access.yaml"));
  const r = await runCli(["check", "--config", "Pulumi.key-access.yaml", "--output", "json"], emu.url, dir);
  expect(r.err).toBe("");
  code = r.code;
  findings = (JSON.parse(r.out) as { findings: JsonFinding[] }).findings;
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const access = (server: string) => {
  const f = findings.filter((x) => x.ruleId === "tde-key-access" && x.label === `rg-ka-data/${server}`);
  expect(f).toHaveLength(1);
  return f[0];
};

describe("tde-key-access over the key-access estate", () => {
  it("exits 3: the rule is mandatory", () => {
    expect(code).toBe(3);
    expect(access("sql-ka-policy-no-unwrap").level).toBe("mandatory");
  });

  it.each([
    [
      "sql-ka-policy-ok",
      /^the system-assigned identity of SQL server rg-ka-data\/sql-ka-policy-ok has get, wrapKey and unwrapKey on kv-ka-policy\/tde-ok \(an access policy of rg-ka-keys\/kv-ka-policy\)$/,
    ],
    ["sql-ka-user-assigned", /^the user-assigned identity id-tde of SQL server .* \(an access policy of rg-ka-keys\/kv-ka-policy\)$/],
    ["sql-ka-rbac-vault", /\(role Key Vault Crypto Service Encryption User at \/subscriptions\/.*\/vaults\/kv-ka-rbac\)$/],
    ["sql-ka-rbac-sub", /\(role Key Vault Crypto Service Encryption User at \/subscriptions\/00000000-0000-0000-0000-000000000000\)$/],
    ["sql-ka-rbac-wildcard", /\(role TDE key user \(custom\) at \/subscriptions\/.*\/vaults\/kv-ka-rbac\/keys\/tde-c\)$/],
    ["sql-ka-fw-bypass", /; its firewall lets trusted Microsoft services through$/],
  ])("%s passes", (server, message) => {
    const f = access(server);
    expect(f.verdict).toBe("pass");
    expect(f.message).toMatch(message);
  });

  it.each([
    [
      "sql-ka-policy-no-unwrap",
      /; the access policy of rg-ka-keys\/kv-ka-policy for its system-assigned identity lacks unwrapKey on keys$/,
    ],
    [
      "sql-ka-no-identity",
      /; it has no managed identity \(identity type None\); Azure reaches a customer-managed key only through the server's managed identity$/,
    ],
    [
      "sql-ka-rbac-missing",
      /; no role assignment on the RBAC vault rg-ka-keys\/kv-ka-rbac .* grants its identity \(11111111-0000-4000-8000-000000000008\) the data actions/,
    ],
    [
      "sql-ka-fw-closed",
      /; the firewall of rg-ka-keys\/kv-ka-fw-closed denies by default \(defaultAction Deny\) without letting trusted Microsoft services through \(bypass None, not AzureServices\)$/,
    ],
    [
      "sql-ka-rbac-unlisted",
      /; the role assignments of rg-ka-locked\/kv-ka-rbac-locked could not be listed: HTTP 403 AuthorizationFailed: /,
    ],
  ])("%s fails", (server, message) => {
    const f = access(server);
    expect(f.verdict).toBe("fail");
    expect(f.message).toMatch(/^SQL server rg-ka-data\/sql-ka-[a-z-]+ must be able to use its TDE protector key kv-ka-/);
    expect(f.message).toMatch(message);
  });

  it("an unreadable list carries its status; a service-managed protector is not applicable", () => {
    expect(access("sql-ka-rbac-unlisted").properties).toMatchObject({ readStatus: 403, readCode: "AuthorizationFailed" });
    expect(access("sql-ka-service-managed").verdict).toBe("not-applicable");
  });
});
