import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { allRules, ruleIds } from "../../../src/domain/compliance/registry";
import { renderSarif } from "../../../src/domain/reports/sarif-report";
import { databaseLine, reportInput, STACK_FILE, stackText, SUB } from "./report-fixture";

/** SARIF as GitHub code scanning needs it: schema-valid, stable ruleIds and fingerprints, file locations. */
const schema = JSON.parse(readFileSync(join(__dirname, "..", "..", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as Record<
  string,
  unknown
>;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: {
    physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } };
    logicalLocations: { fullyQualifiedName: string }[];
  }[];
  partialFingerprints: Record<string, string>;
  suppressions?: { kind: string; status?: string; justification?: string }[];
}
interface SarifLog {
  version: string;
  runs: { tool: { driver: { name: string; rules: { id: string; defaultConfiguration: { level: string } }[] } }; results: SarifResult[] }[];
}

const dbId = (d: string) => `/subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases/${d}`;
const parse = (text: string) => JSON.parse(text) as SarifLog;
const resultFor = (log: SarifLog, ruleId: string, database: string) =>
  log.runs[0].results.find((r) => r.ruleId === ruleId && r.locations[0].logicalLocations[0].fullyQualifiedName === dbId(database));

describe("SARIF 2.1.0 report", () => {
  const text = renderSarif(reportInput());
  const log = parse(text);

  it("validates against the official 2.1.0 schema (draft-04)", () => {
    expect(validate(log), ajv.errorsText(validate.errors)).toBe(true);
    expect(log.version).toBe("2.1.0");
  });

  it("the schema check is real: a broken log is refused", () => {
    const broken = parse(text);
    (broken.runs[0].results[0] as unknown as Record<string, unknown>).level = "fatal";
    expect(validate(broken)).toBe(false);
    expect(validate({ version: "2.1.0" })).toBe(false);
  });

  it("declares every registered rule, in registry order, with its default level; the contract's rule ids among them", () => {
    const rules = log.runs[0].tool.driver.rules;
    const level = { mandatory: "error", advisory: "warning", disabled: "none" } as const;
    expect(rules.map((r) => [r.id, r.defaultConfiguration.level])).toEqual(allRules().map((r) => [r.id, level[r.defaultLevel]]));
    // The contract's ids (stable: they are SARIF ruleIds) and default levels.
    const contract: Record<string, string> = {
      "sql-tde-enabled": "error",
      "sql-tier-advisor-drift": "warning",
      "batch-quota-headroom": "warning",
      "artifact-signature-clean": "error",
      "artifact-packed": "warning",
      "post-deploy-probes": "warning",
      "data-residency": "error",
      "sql-tde-customer-managed-key": "warning",
      "tde-key-vault-recoverable": "error",
      "tde-key-validity": "error",
    };
    for (const [id, l] of Object.entries(contract)) expect(rules.find((r) => r.id === id)?.defaultConfiguration.level, id).toBe(l);
    expect(log.runs[0].tool.driver.name).toBe("stackwarden");
    for (const r of log.runs[0].results) {
      expect(ruleIds()).toContain(r.ruleId);
      expect(rules[r.ruleIndex].id).toBe(r.ruleId);
    }
  });

  it("reports failures and exemptions only, mandatory as error and advisory as warning", () => {
    const results = log.runs[0].results;
    expect(results.map((r) => `${r.ruleId}:${r.level}:${r.suppressions ? "suppressed" : "open"}`).sort()).toEqual([
      "batch-quota-headroom:warning:open",
      "sql-tde-enabled:error:open",
      "sql-tde-enabled:error:suppressed",
      "sql-tier-advisor-drift:warning:open",
    ]);
  });

  it("locates a database finding at the stack file and the database's line", () => {
    const r = resultFor(log, "sql-tde-enabled", "orders")!;
    expect(r.message.text).toContain("must have transparent data encryption Enabled");
    const loc = r.locations[0].physicalLocation;
    expect(loc.artifactLocation.uri).toBe(STACK_FILE);
    expect(loc.region.startLine).toBe(databaseLine(0));
    expect(readLine(databaseLine(0))).toContain("- resourceGroup: rg-data");
    expect(resultFor(log, "sql-tde-enabled", "legacy")!.locations[0].physicalLocation.region.startLine).toBe(databaseLine(2));
  });

  it("an exempt finding is a suppressed result with the exemption's reason", () => {
    const r = resultFor(log, "sql-tde-enabled", "legacy")!;
    expect(r.suppressions).toEqual([{ kind: "external", status: "accepted", justification: "decommission <Q3> & 'archive' \"soon\"" }]);
    expect(resultFor(log, "sql-tde-enabled", "orders")!.suppressions).toBeUndefined();
  });

  it("partialFingerprints are stable across runs and line moves, and distinct per rule and resource", () => {
    const again = parse(renderSarif(reportInput()));
    const moved = parse(renderSarif(reportInput(7)));
    const prints = (l: SarifLog) =>
      l.runs[0].results
        .map((r) => `${r.ruleId} ${r.locations[0].logicalLocations[0].fullyQualifiedName} ${JSON.stringify(r.partialFingerprints)}`)
        .sort();
    expect(prints(again)).toEqual(prints(log));
    expect(prints(moved)).toEqual(prints(log));
    expect(resultFor(moved, "sql-tde-enabled", "orders")!.locations[0].physicalLocation.region.startLine).toBe(databaseLine(0, 7));
    expect(databaseLine(0, 7)).not.toBe(databaseLine(0));
    const all = log.runs[0].results.map((r) => Object.values(r.partialFingerprints)[0]);
    expect(new Set(all).size).toBe(all.length);
    for (const fp of all) expect(fp).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a renamed stack keeps the fingerprints too (they name rule and resource only)", () => {
    const other = parse(renderSarif(reportInput(0, "prod")));
    expect(other.runs[0].results.map((r) => r.partialFingerprints)).toEqual(log.runs[0].results.map((r) => r.partialFingerprints));
  });
});

function readLine(n: number): string {
  return stackText().split("\n")[n - 1];
}
