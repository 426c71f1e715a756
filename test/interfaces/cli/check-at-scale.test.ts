import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ruleIds } from "../../../src/domain/compliance/registry";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli, stackDir } from "./cli-harness";

// Issue 45, item 1: `check` over 300 databases on 10 servers, 5 failing, prints at most 40 lines by
// default with every failure named; `--show not-applicable` lists what was counted; `--verbose` each
// pass with its evidence (the key-custody facts); JSON keeps every finding, whatever is shown.

const SUB = "00000000-0000-0000-0000-000000000000";
const SERVERS = 10;
const DATABASES = 300;
const DISABLED = new Set([3, 64, 125, 186, 247]);
const ADVISED = new Set([11, 42, 73, 104, 135, 166, 197, 228, 259, 290]);

const server = (i: number) => `sql-scale-${String(i % SERVERS).padStart(2, "0")}`;
const database = (i: number) => `db-${String(i).padStart(3, "0")}`;
const label = (i: number) => `rg-scale/${server(i)}/${database(i)}`;

function seed() {
  return {
    sql: {
      subscriptionId: SUB,
      scanDurationMs: 50,
      servers: Array.from({ length: SERVERS }, (_, s) => ({
        name: server(s),
        resourceGroup: "rg-scale",
        databases: Array.from({ length: DATABASES / SERVERS }, (_, k) => k * SERVERS + s).map((i) => ({
          name: database(i),
          transparentDataEncryption: DISABLED.has(i) ? "Disabled" : "Enabled",
          serviceObjective: "S0",
          ...(ADVISED.has(i)
            ? {
                serviceTierAdvisors: [
                  { name: "Current", observationPeriodEnd: "now-2d", overallRecommendationServiceLevelObjective: "S3", confidence: 0.9 },
                ],
              }
            : {}),
        })),
      })),
    },
  };
}

/**
 * The rules this estate is judged by (their facts: TDE, advisors, key custody); the stack disables
 * every other registered rule, so that the 40-line bounds and the counts are these rules' and a new
 * rule (a row more in the per-rule table) changes nothing here.
 */
const JUDGED_BY = [
  "sql-tde-enabled",
  "sql-tier-advisor-drift",
  "sql-tde-customer-managed-key",
  "tde-key-vault-recoverable",
  "tde-key-validity",
  "tde-key-access",
];

function stackFile(): string {
  const dbs = Array.from(
    { length: DATABASES },
    (_, i) => `    - { resourceGroup: rg-scale, server: ${server(i)}, database: ${database(i)}, transparentDataEncryption: Enabled }`,
  );
  const others = ruleIds()
    .filter((id) => !JUDGED_BY.includes(id))
    .map((id) => `    ${id}: { enforcementLevel: disabled }`);
  return [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:databases:",
    ...dbs,
    ...(others.length ? ["  stackwarden:policies:", ...others] : []),
    "",
  ].join("\n");
}

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(JSON.stringify(seed())) });
  dir = stackDir({ "Pulumi.scale.yaml": stackFile() });
});
afterAll(async () => emu?.close());

const check = (...flags: string[]) => runCli(["check", "--config", "Pulumi.scale.yaml", ...flags], emu.url, dir);

describe("check at 300 databases on 10 servers, 5 failing", () => {
  it("prints at most 40 lines, counts first, every failure named, what was counted but not listed last", async () => {
    const r = await check();
    expect(r.code, r.err).toBe(3);
    const lines = r.out.split("\n");
    expect(lines.length).toBeLessThanOrEqual(40);
    expect(lines[0]).toMatch(
      /^Compliance of stack scale \(Pulumi\.scale\.yaml\): 5 mandatory violation\(s\), 20 advisory, 0 exempt, \d+ passed, \d+ not applicable$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}sql-tde-enabled +5 +0 +295 +0$/));
    for (const i of DISABLED)
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}FAIL +sql-tde-enabled +${label(i)} +Database `)));
    for (const i of ADVISED)
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ {2}ADVISORY +sql-tier-advisor-drift +${label(i)} `)));
    expect(lines.filter((l) => /^ {2}N\/A /.test(l))).toEqual([]);
    expect(lines.at(-1)).toMatch(
      /^ {2}not listed: \d+ passed, \d+ not applicable \(--show passed,not-applicable lists them; --verbose each pass with its evidence\)$/,
    );
  });

  it("--show not-applicable lists them, one line per rule where they only say something is absent; with --verbose every row", async () => {
    const shown = await check("--show", "not-applicable");
    const na = shown.out.split("\n").filter((l) => /^ {2}N\/A /.test(l));
    expect(na).toContainEqual(expect.stringMatching(/^ {2}N\/A +sql-tier-advisor-drift +290 finding\(s\) +no service tier advisor output/));
    expect(shown.out.split("\n").length).toBeLessThanOrEqual(40);
    const every = await check("--show", "not-applicable", "--verbose");
    const total = Number(/, (\d+) not applicable/.exec(every.out)![1]);
    expect(every.out.split("\n").filter((l) => /^ {2}N\/A /.test(l))).toHaveLength(total);
    expect(every.out).toMatch(new RegExp(`N/A +sql-tier-advisor-drift +${label(0)} +no service tier advisor output for this database`));
  });

  it("JSON and SARIF are the same whatever --show and --verbose say", async () => {
    const plain = await check("--output", "json");
    const shown = await check("--output", "json", "--show", "passed,not-applicable", "--verbose");
    const strip = (text: string) => ({ ...(JSON.parse(text) as object), generatedAt: null });
    expect(strip(shown.out)).toEqual(strip(plain.out));
    const findings = (JSON.parse(plain.out) as { findings: unknown[] }).findings;
    expect(findings.length).toBeGreaterThan(600);
    const sarif = (text: string) => JSON.stringify((JSON.parse(text) as { runs: { results: unknown[] }[] }).runs[0].results);
    expect(sarif((await check("--output", "sarif", "--show", "not-applicable")).out)).toBe(sarif((await check("--output", "sarif")).out));
  });

  it("--show names what it may list, and refuses anything else", async () => {
    const r = await check("--show", "passed,bogus");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SW_USAGE.*--show.*expected a comma-separated list of passed, not-applicable, got "bogus"/);
  });
});

describe("check --verbose on the example estate", () => {
  let dev: TestEmulator;
  beforeAll(async () => {
    dev = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  });
  afterAll(async () => dev?.close());

  it("shows each pass with its evidence: the key's type, size, state and expiry, the vault's soft delete and purge protection", async () => {
    const plain = await runCli(["check", "--stack", "dev"], dev.url, PROJECT_ROOT, {
      STACKWARDEN_EMULATOR: dev.url,
      STACKWARDEN_PROBE_DIR: stackDir({}),
    });
    expect(plain.out).not.toMatch(/^ {2}pass /m);
    const r = await runCli(["check", "--stack", "dev", "--verbose"], dev.url, PROJECT_ROOT, {
      STACKWARDEN_EMULATOR: dev.url,
      STACKWARDEN_PROBE_DIR: stackDir({}),
    });
    expect(r.out).toMatch(
      /^ {2}pass +tde-key-validity +rg-data\/sql-prod-1 +the key kv-prod-tde\/sql-prod-1-tde\/\w+ is RSA-HSM 3072 bits, enabled, active since \d{4}-\d\d-\d\d, expires on \d{4}-\d\d-\d\d \(in \d+ days\)$/m,
    );
    expect(r.out).toMatch(
      /^ {2}pass +tde-key-vault-recoverable +rg-data\/sql-prod-1 +Key Vault rg-security\/kv-prod-tde has soft delete \(90 days' retention\) and purge protection$/m,
    );
    expect(r.out).toMatch(
      /^ {2}pass +tde-key-access +rg-data\/sql-prod-1 +the system-assigned identity of SQL server rg-data\/sql-prod-1 has get, wrapKey and unwrapKey/m,
    );
    // Failures still lead.
    expect(r.out.indexOf("  FAIL ")).toBeLessThan(r.out.indexOf("  pass "));
    expect(r.out.split("\n").at(-1)).toMatch(/^ {2}not listed: \d+ not applicable \(--show not-applicable lists them\)$/);
  });
});
