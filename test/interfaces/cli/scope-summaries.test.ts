import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCli } from "./cli-harness";

/**
 * Issue 42 item 3, "coverage everywhere a person looks": `plan` and `drift` over the dev stack's
 * scope give check's sentence and counts (text, JSON `coverage`, markdown), so whichever command a
 * person runs says how many databases are in scope and names the discovered one that fails (billing).
 */
const ROOT = join(__dirname, "../../..");

let emu: TestEmulator;
let work: string;
let env: Record<string, string>;
beforeAll(async () => {
  emu = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
  work = mkdtempSync(join(tmpdir(), "stackwarden-scope-summaries-"));
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

/** What check says: the sentence that leads its notes and its JSON counts. */
async function fromCheck(): Promise<{ sentence: string; coverage: unknown }> {
  const json = JSON.parse((await cli("check", "--stack", "dev", "--output", "json")).out) as { coverage: unknown; notes: string[] };
  return { sentence: json.notes[0], coverage: json.coverage };
}

describe.each(["plan", "drift"])("%s --stack dev over its scope", (command) => {
  it("says what check says: the sentence under the heading, the counts in JSON and markdown", async () => {
    const check = await fromCheck();
    expect(check.sentence).toMatch(
      /^\d+ databases in scope: \d+ listed, \d+ discovered; \d+ non-compliant \(discovered and non-compliant: rg-data\/sql-prod-2\/billing\)$/,
    );

    const table = await cli(command, "--stack", "dev");
    expect(table.code, table.err).toBe(2);
    expect(table.out.split("\n")[1]).toBe(`  ${check.sentence}`);

    const json = JSON.parse((await cli(command, "--stack", "dev", "--output", "json")).out) as { coverage: unknown };
    expect(json.coverage).toEqual(check.coverage);
    expect((await cli(command, "--stack", "dev", "--output", "markdown")).out.split("\n")).toContain(check.sentence);
  });
});

describe("a stack without a scope", () => {
  it("plan and drift say nothing of one", async () => {
    const file = join(work, "Pulumi.unscoped.yaml");
    writeFileSync(
      file,
      `config:
  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000
  stackwarden:databases:
    - { resourceGroup: rg-data, server: sql-prod-2, database: inventory, transparentDataEncryption: Enabled }
`,
    );
    for (const command of ["plan", "drift"]) {
      const json = await cli(command, "--config", file, "--output", "json");
      expect(json.code, json.err).toBe(0);
      expect(JSON.parse(json.out)).not.toHaveProperty("coverage");
      expect((await cli(command, "--config", file)).out).not.toMatch(/in scope/);
    }
  });
});
