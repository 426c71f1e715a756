import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

/**
 * `check --planned` (the pull-request gate judges the state the stack asks for) and
 * `check --report FORMAT=FILE` (more formats from one evaluation), in-process against the emulator.
 */
const SUB = "00000000-0000-0000-0000-0000000000c7";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-pl
      resourceGroup: rg-pl
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
        - { name: invoices, transparentDataEncryption: Disabled }
`;
const stackText = (orders: string, invoices: string, extra = "") =>
  [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    extra,
    "  stackwarden:databases:",
    `    - { resourceGroup: rg-pl, server: sql-pl, database: orders, transparentDataEncryption: ${orders} }`,
    `    - { resourceGroup: rg-pl, server: sql-pl, database: invoices, transparentDataEncryption: ${invoices} }`,
    "",
  ]
    .filter((l) => l !== "")
    .join("\n");

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
});
afterAll(async () => {
  await emu.close();
});

describe("check --planned", () => {
  it("a stack that would disable TDE on a database fails the planned check on it; the live check does not flag it yet", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stackText("Disabled", "Disabled") });
    const live = await runCli(["check", "--config", "Pulumi.s.yaml"], emu.url, dir);
    const planned = await runCli(["check", "--config", "Pulumi.s.yaml", "--planned"], emu.url, dir);
    // Live: invoices is unencrypted (violation); orders is still Enabled.
    expect(live.code).toBe(3);
    expect(live.out).toMatch(/FAIL\s+sql-tde-enabled\s+rg-pl\/sql-pl\/invoices\s+.*its live status is Disabled/);
    expect(live.out).not.toMatch(/FAIL\s+sql-tde-enabled\s+rg-pl\/sql-pl\/orders/);
    // Planned: orders is what the stack makes it.
    expect(planned.code).toBe(3);
    expect(planned.out).toMatch(/FAIL\s+sql-tde-enabled\s+rg-pl\/sql-pl\/orders\s+.*; the stack sets it to Disabled/);
    expect(planned.out).toMatch(/FAIL\s+sql-tde-enabled\s+rg-pl\/sql-pl\/invoices\s+.*its live status is Disabled/);
  });

  it("a stack that will encrypt an unencrypted database passes the planned check; the reports agree", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stackText("Enabled", "Enabled") });
    const r = await runCli(
      [
        "check",
        "--config",
        "Pulumi.s.yaml",
        "--planned",
        "--output",
        "sarif",
        "--out",
        "c.sarif",
        "--report",
        "markdown=c.md",
        "--report",
        "json=c.json",
      ],
      emu.url,
      dir,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.err.split("\n")).toEqual([
      "stackwarden check: wrote markdown report to c.md",
      "stackwarden check: wrote json report to c.json",
      // The server's TDE protector is service-managed: sql-tde-customer-managed-key's advisory.
      "stackwarden check: wrote sarif report to c.sarif (0 mandatory, 1 advisory)",
    ]);
    const json = JSON.parse(readFileSync(join(dir, "c.json"), "utf8")) as { summary: { mandatoryViolations: number; passed: number } };
    expect(json.summary.mandatoryViolations).toBe(0);
    expect(readFileSync(join(dir, "c.md"), "utf8")).toMatch(/^### :warning: stackwarden check: `s`/);
    expect(JSON.parse(readFileSync(join(dir, "c.sarif"), "utf8")).version).toBe("2.1.0");
    // Without --planned the unencrypted database is still a violation today.
    expect((await runCli(["check", "--config", "Pulumi.s.yaml"], emu.url, dir)).code).toBe(3);
  });

  it("a bad --report is one line naming what is expected", async () => {
    const dir = stackDir({ "Pulumi.s.yaml": stackText("Enabled", "Enabled") });
    const r = await runCli(["check", "--config", "Pulumi.s.yaml", "--report", "summary.md"], emu.url, dir);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `stackwarden check: SW_USAGE: option '--report <format=file>' argument 'summary.md' is invalid. expected FORMAT=FILE (e.g. markdown=summary.md), got "summary.md" (see stackwarden check --help)`,
    );
  });
});

describe("stackwarden:engine", () => {
  it("accepts native and pulumi; anything else is located", async () => {
    const ok = stackDir({ "Pulumi.s.yaml": stackText("Enabled", "Enabled", "  stackwarden:engine: pulumi") });
    expect((await runCli(["plan", "--config", "Pulumi.s.yaml"], emu.url, ok)).code).toBe(2);
    const bad = stackDir({ "Pulumi.s.yaml": stackText("Enabled", "Enabled", "  stackwarden:engine: terraform") });
    const r = await runCli(["plan", "--config", "Pulumi.s.yaml"], emu.url, bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^stackwarden: SW_CONFIG_INVALID: Pulumi\.s\.yaml:3:\d+: config\.stackwarden:engine: .*native.*pulumi/);
  });
});
