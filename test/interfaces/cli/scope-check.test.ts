import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli } from "./cli-harness";

/**
 * The dev stack's `stackwarden:scope` over the default estate: `check` discovers the database no
 * stack lists (billing, TDE off), judges it with every rule, exits 3 naming it, and every format
 * gives the same counts: 10 in scope, 5 listed, 5 discovered (reporting, ledger, billing in the
 * stack's subscription; sessions, scratch in the other), loadtest out by its tag, scratch exempt
 * by its tag.
 */
const ROOT = join(__dirname, "../../..");
const COVERAGE = {
  inScope: 10,
  listed: 5,
  discovered: 5,
  nonCompliant: 3,
  discoveredNonCompliant: ["rg-data/sql-prod-2/billing"],
};
const SENTENCE =
  "10 databases in scope: 5 listed, 5 discovered; 3 non-compliant (discovered and non-compliant: rg-data/sql-prod-2/billing)";

let emu: TestEmulator;
let work: string;
let env: Record<string, string>;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  work = mkdtempSync(join(tmpdir(), "stackwarden-scope-"));
  env = {
    STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}/binary-analysis/v1`,
    STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
    STACKWARDEN_PROBE_DIR: join(work, "probes"),
  };
});
afterAll(async () => {
  await emu?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});
const cli = (...argv: string[]) => runCli(argv, emu.url, ROOT, env);

const scopeLine = () =>
  readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8")
    .split("\n")
    .findIndex((l) => l.startsWith("  stackwarden:scope:")) + 2;

describe("check --stack dev over its scope", () => {
  it("exits 3 naming the unlisted database with TDE off, and leads with the coverage", async () => {
    const r = await cli("check", "--stack", "dev");
    expect(r.code, r.err).toBe(3);
    const lines = r.out.split("\n");
    expect(lines[1]).toBe(`  note: ${SENTENCE}`);
    expect(lines.find((l) => l.includes("sql-tde-enabled") && l.includes("billing"))).toMatch(/^\s+FAIL\s/);
    expect(r.out).not.toMatch(/loadtest/);
    expect(lines.find((l) => l.includes("scratch"))).toMatch(/^\s+EXEMPT\s.*sandbox data only/);
  });

  it("JSON, SARIF and markdown give the same counts; a discovered finding is marked and located at the scope", async () => {
    const json = JSON.parse((await cli("check", "--stack", "dev", "--output", "json")).out) as {
      coverage: unknown;
      notes: string[];
      findings: { ruleId: string; label: string; verdict: string; line?: number; properties?: { discovered?: boolean } }[];
    };
    expect(json.coverage).toEqual(COVERAGE);
    expect(json.notes[0]).toBe(SENTENCE);
    const billing = json.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.label.endsWith("/billing"))!;
    expect(billing).toMatchObject({ verdict: "fail", line: scopeLine(), properties: { discovered: true } });
    expect(
      json.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.label.endsWith("/orders"))?.properties?.discovered,
    ).toBeUndefined();

    const sarif = JSON.parse((await cli("check", "--stack", "dev", "--output", "sarif")).out) as {
      runs: {
        properties: { coverage: unknown };
        results: {
          ruleId: string;
          locations: { physicalLocation: { region: { startLine: number } }; logicalLocations: { fullyQualifiedName: string }[] }[];
          properties: { discovered?: boolean };
        }[];
      }[];
    };
    expect(sarif.runs[0].properties.coverage).toEqual(COVERAGE);
    const result = sarif.runs[0].results.find(
      (x) => x.ruleId === "sql-tde-enabled" && x.locations[0].logicalLocations[0].fullyQualifiedName.endsWith("/databases/billing"),
    )!;
    expect(result.properties.discovered).toBe(true);
    expect(result.locations[0].physicalLocation.region.startLine).toBe(scopeLine());

    const md = (await cli("check", "--stack", "dev", "--output", "markdown")).out;
    expect(md).toContain(SENTENCE);
  });
});
