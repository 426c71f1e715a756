import { setTimeout as delay } from "node:timers/promises";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/platform/http";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, type CliRun } from "./cli-harness";

/**
 * `check` and `drift` in-process against a test emulator: exit codes, the SARIF file, advisory
 * findings that leave the exit code alone, and exemptions active or expired.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const ORDERS = `/subscriptions/${SUB}/resourceGroups/rg-cli/providers/Microsoft.Sql/servers/sql-cli-1/databases/orders`;

const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-cli-1
      resourceGroup: rg-cli
      databases:
        - name: orders
          transparentDataEncryption: Disabled
          serviceObjective: S0
        - name: customers
          transparentDataEncryption: Enabled
          serviceObjective: S2
          serviceTierAdvisors:
            - name: Current
              observationPeriodEnd: now-2d
              overallRecommendationServiceLevelObjective: S3
              confidence: 0.9
batchai:
  subscriptionId: ${SUB}
  usages:
    - location: eastus
      usages:
        - { name: cores, localizedName: Total Regional Cores, currentValue: 10, limit: 100 }
`;

function stackYaml(exemptions = ""): string {
  return [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:databases:",
    "    - resourceGroup: rg-cli", // line 4: customers
    "      server: sql-cli-1",
    "      database: customers",
    "      transparentDataEncryption: Enabled",
    "    - resourceGroup: rg-cli", // line 8: orders
    "      server: sql-cli-1",
    "      database: orders",
    "      transparentDataEncryption: Enabled",
    "  stackwarden:batch:",
    "    locations: [eastus]",
    exemptions,
    "",
  ].join("\n");
}
const ORDERS_LINE = 8;

const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const exemption = (expires: string) =>
  [
    "  stackwarden:exemptions:",
    `    - resourceId: ${ORDERS}`,
    "      rules: [sql-tde-enabled]",
    "      reason: key rotation in progress",
    `      expires: ${expires}`,
  ].join("\n");

let emu: TestEmulator;
let dir: string;
let stackFile: string;

const cli = (...argv: string[]): Promise<CliRun> => runCli(argv, emu.url, dir);

function writeStack(name: string, text: string): string {
  const p = join(dir, "stacks", `Pulumi.${name}.yaml`);
  writeFileSync(p, text);
  return p;
}

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
  dir = mkdtempSync(join(tmpdir(), "sw-compliance-cli-"));
  mkdirSync(join(dir, "stacks"));
  stackFile = writeStack("cli", stackYaml());
});

afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("check and drift against live state", () => {
  it("one unencrypted database: check --format sarif --out exits 3 and locates it in the stack file", async () => {
    const r = await cli("check", "--config", stackFile, "--format", "sarif", "--out", "r.sarif");
    expect(r.code, r.err).toBe(3);
    expect(r.out).toBe("");
    expect(r.err).toContain("wrote sarif report to r.sarif (1 mandatory, 2 advisory)");
    const log = JSON.parse(readFileSync(join(dir, "r.sarif"), "utf8")) as {
      runs: {
        results: {
          ruleId: string;
          level: string;
          message: { text: string };
          locations: {
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
            logicalLocations: { fullyQualifiedName: string }[];
          }[];
        }[];
      }[];
    };
    const tde = log.runs[0].results.filter((x) => x.ruleId === "sql-tde-enabled");
    expect(tde).toHaveLength(1);
    expect(tde[0].level).toBe("error");
    expect(tde[0].message.text).toContain(
      "rg-cli/sql-cli-1/orders must have transparent data encryption Enabled; its live status is Disabled",
    );
    expect(tde[0].locations[0].logicalLocations[0].fullyQualifiedName).toBe(ORDERS);
    expect(tde[0].locations[0].physicalLocation.artifactLocation.uri).toBe("stacks/Pulumi.cli.yaml");
    expect(tde[0].locations[0].physicalLocation.region.startLine).toBe(ORDERS_LINE);
    expect(readFileSync(stackFile, "utf8").split("\n")[ORDERS_LINE - 1]).toBe("    - resourceGroup: rg-cli");
    const drift = log.runs[0].results.filter((x) => x.ruleId === "sql-tier-advisor-drift");
    expect(drift.map((x) => x.level)).toEqual(["warning"]);
  });

  it("an active exemption makes check exit 0 and shows it", async () => {
    const p = writeStack("exempt", stackYaml(exemption(dayOffset(30))));
    const r = await cli("check", "--config", p);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(
      /EXEMPT\s+sql-tde-enabled\s+rg-cli\/sql-cli-1\/orders\s+.*\(exempt: key rotation in progress, until \d{4}-\d{2}-\d{2}\)/,
    );
    expect(r.out).toMatch(/exemption active .*databases\/orders: key rotation in progress .*covers 1 finding/);
    const json = await cli("check", "--config", p, "--format", "json");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out) as {
      summary: { mandatoryViolations: number; exempt: number };
      exemptions: { active: boolean; applied: number }[];
    };
    expect(doc.summary).toMatchObject({ mandatoryViolations: 0, exempt: 1 });
    expect(doc.exemptions).toEqual([expect.objectContaining({ active: true, applied: 1 })]);
  });

  it("an exemption that expired yesterday does not apply: exit 3, shown as EXPIRED", async () => {
    const p = writeStack("expired", stackYaml(exemption(dayOffset(-1))));
    const r = await cli("check", "--config", p);
    expect(r.code, r.out + r.err).toBe(3);
    expect(r.out).toMatch(/FAIL\s+sql-tde-enabled\s+rg-cli\/sql-cli-1\/orders/);
    expect(r.out).not.toMatch(/EXEMPT\s+sql-tde-enabled/);
    expect(r.out).toMatch(/exemption EXPIRED .*databases\/orders/);
  });

  it("drift exits 2 while orders is unencrypted", async () => {
    const r = await cli("drift", "--config", stackFile);
    expect(r.code, r.out + r.err).toBe(2);
    expect(r.out).toMatch(/~ rg-cli\/sql-cli-1\/orders\s+TDE live Disabled, desired Enabled/);
  });

  it("after apply, check exits 0 and the advisor's other tier (0.9) is advisory only", async () => {
    const a = await cli("apply", "--config", stackFile, "--yes", "--poll-interval", "50");
    expect(a.code, a.out + a.err).toBe(0);
    const r = await cli("check", "--config", stackFile);
    expect(r.code, r.out + r.err).toBe(0);
    // The advisor's tier, and the server's service-managed TDE protector (sql-tde-customer-managed-key).
    expect(r.out).toMatch(/0 mandatory violation\(s\), 2 advisory/);
    expect(r.out).toMatch(
      /ADVISORY\s+sql-tier-advisor-drift\s+rg-cli\/sql-cli-1\/customers\s+.*recommends S3 but the current service objective is S2 \(confidence 0\.9\)/,
    );
    expect(r.out).not.toMatch(/FAIL\s/);
  });

  it("an out-of-band PUT Disabled makes drift exit 2; apply restores it and drift exits 0, still printing the advisory finding", async () => {
    const sql = new SqlClient({ endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: silentLogger });
    const ref = { subscriptionId: SUB, resourceGroup: "rg-cli", server: "sql-cli-1", database: "orders" };
    await sql.putTransparentDataEncryption(ref, "Disabled");
    const d = await cli("drift", "--config", stackFile);
    expect(d.code, d.out + d.err).toBe(2);
    expect(d.out).toMatch(/orders\s+TDE live Disabled, desired Enabled/);
    expect((await cli("check", "--config", stackFile)).code).toBe(3);

    // The emulator, like Azure, refuses a PUT while the decryption scan runs (409): let it finish.
    for (let i = 0; i < 100 && (await sql.listTransparentDataEncryptionActivities(ref)).length > 0; i++) await delay(20);

    const a = await cli("apply", "--config", stackFile, "--yes", "--poll-interval", "50");
    expect(a.code, a.out + a.err).toBe(0);
    const after = await cli("drift", "--config", stackFile);
    expect(after.code, after.out + after.err).toBe(0);
    expect(after.out).toContain("live TDE matches the stack");
    expect(after.out).toMatch(/ADVISORY rg-cli\/sql-cli-1\/customers: .*recommends S3 but the current service objective is S2/);
    const json = await cli("drift", "--config", stackFile, "--output", "json");
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out) as {
      transparentDataEncryption: unknown[];
      tierAdvisor: { level: string; verdict: string; line: number }[];
    };
    expect(doc.transparentDataEncryption).toEqual([]);
    expect(doc.tierAdvisor).toEqual([expect.objectContaining({ level: "advisory", verdict: "fail", line: 4 })]);
  });

  it("a stack that makes the drift rule mandatory turns the advisor finding into drift (exit 2) and a check failure (exit 3)", async () => {
    const p = writeStack("strict", stackYaml("  stackwarden:policies:\n    sql-tier-advisor-drift: { enforcementLevel: mandatory }"));
    expect((await cli("drift", "--config", p)).code).toBe(2);
    const c = await cli("check", "--config", p, "--format", "junit");
    expect(c.code).toBe(3);
    expect(c.out).toContain('<failure message="Database rg-cli/sql-cli-1/customers should run at the advisor&apos;s tier');
  });
});
