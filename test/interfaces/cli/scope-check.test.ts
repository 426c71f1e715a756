import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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

describe("check --planned over the scope", () => {
  it("judges a discovered database as repaired only when apply would repair it (scope.remediate)", async () => {
    const original = readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8");
    expect(original).toMatch(/\n {4}remediate: true\n/);
    // The copy sits in a project of its own (Pulumi.yaml: the project directory its paths are relative
    // to) with the dev stack's files (signatures, artifacts) linked.
    const dir = join(work, "held");
    mkdirSync(join(dir, "stacks"), { recursive: true });
    symlinkSync(join(ROOT, "Pulumi.yaml"), join(dir, "Pulumi.yaml"));
    symlinkSync(join(ROOT, "stacks", "dev"), join(dir, "stacks", "dev"));
    const held = join(dir, "stacks", "Pulumi.held.yaml");
    writeFileSync(held, original.replace(/\n {4}remediate: true\n/, "\n    remediate: false\n"));
    const billing = (out: string) => out.split("\n").find((l) => l.includes("sql-tde-enabled") && l.includes("billing"));

    const without = await cli("check", "--config", held, "--planned");
    expect(without.code, without.err).toBe(3);
    expect(billing(without.out)).toMatch(/^\s+FAIL\s/);

    const withRemediation = await cli("check", "--stack", "dev", "--planned");
    expect(billing(withRemediation.out)).toBeUndefined();
  });
});

describe("discover --stack dev", () => {
  it("lists what is in scope and not in the file; --write adds exactly those, keeping the file; a second run finds nothing", async () => {
    const copy = join(work, "Pulumi.dev.yaml");
    const original = readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8");
    writeFileSync(copy, original);
    const listed = await cli("discover", "--config", copy, "--output", "json");
    expect(listed.code, listed.err).toBe(0);
    const doc = JSON.parse(listed.out) as {
      inScope: number;
      listed: number;
      unlisted: { server: string; database: string }[];
      written: boolean;
    };
    const unlisted = doc.unlisted.map((d) => `${d.server}/${d.database}`);
    expect(unlisted).toEqual([
      "sql-prod-1/reporting",
      "sql-prod-2/billing",
      "sql-prod-3/ledger",
      "sql-shared-1/sessions",
      "sql-shared-1/scratch",
    ]);
    expect([doc.inScope, doc.listed, doc.written]).toEqual([10, 5, false]);
    expect(readFileSync(copy, "utf8")).toBe(original);

    const wrote = await cli("discover", "--config", copy, "--write");
    expect(wrote.code, wrote.err).toBe(0);
    expect(wrote.out).toMatch(/Added 5 database\(s\) to stackwarden:databases/);
    const after = readFileSync(copy, "utf8");
    // Every line of the file is still there, in order (its comments too); what is new is the entries and their comment.
    const old = original.split("\n");
    let i = 0;
    const added: string[] = [];
    for (const line of after.split("\n")) {
      if (i < old.length && line === old[i]) i++;
      else added.push(line);
    }
    expect(i).toBe(old.length);
    expect(added[0]).toMatch(/^ {4}# adopted by `stackwarden discover --write`/);
    expect(added.filter((l) => l.includes("database:")).map((l) => l.trim())).toEqual(unlisted.map((u) => `database: ${u.split("/")[1]}`));
    expect(added).toContain("    - subscriptionId: 11111111-1111-1111-1111-111111111111");

    const again = await cli("discover", "--config", copy, "--output", "json");
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ inScope: 10, listed: 10, unlisted: [] });
  });

  it("--write with --stack and --stacks-dir writes the file it read, in that folder (never the working directory's stacks/)", async () => {
    const dir = join(work, "elsewhere");
    mkdirSync(dir, { recursive: true });
    const ours = readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8");
    writeFileSync(join(dir, "Pulumi.dev.yaml"), ours);
    const r = await cli("discover", "--stack", "dev", "--stacks-dir", dir, "--write");
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(dir, "Pulumi.dev.yaml"), "utf8")).toMatch(/adopted by `stackwarden discover --write`/);
    expect(readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8")).toBe(ours);
  });

  it("--write refuses (SW_FILE_CHANGED, nothing written) when the file changed while discovery ran", async () => {
    // Every answer 250 ms late: the edit lands while the server lists are read.
    const slow = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES), faults: { latencyMs: 250 } });
    try {
      const copy = join(work, "Pulumi.edited.yaml");
      const original = readFileSync(join(ROOT, "stacks/Pulumi.dev.yaml"), "utf8");
      writeFileSync(copy, original);
      const run = runCli(["discover", "--config", copy, "--write"], slow.url, ROOT, env);
      await new Promise((r) => setTimeout(r, 400));
      const edited = `${original}# an edit made while discover ran\n`;
      writeFileSync(copy, edited);
      const r = await run;
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/SW_FILE_CHANGED: .*Pulumi\.edited\.yaml changed while discover ran: nothing was written/);
      expect(readFileSync(copy, "utf8")).toBe(edited);
    } finally {
      await slow.close();
    }
  });

  it("names a stack without a scope as a usage error", async () => {
    const bare = join(work, "bare.yaml");
    writeFileSync(bare, "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n");
    const r = await cli("discover", "--config", bare);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/SW_USAGE: .*bare\.yaml has no stackwarden:scope/);
  });
});
