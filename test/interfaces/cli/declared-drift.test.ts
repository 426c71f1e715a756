import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCliProcess } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { stackDir } from "./cli-harness";

/**
 * A rule declares its own section of drift's reports and reports a finding at a level of its own:
 * the toy module (test/fixtures/rules/toy-naming-levels.cjs), loaded into the compiled CLI with
 * `node --require`, is rendered by `drift` under its declared JSON key and Markdown heading and in
 * the table, and its advisory finding beside the mandatory one counts as advisory in drift's exit
 * code, `check`'s summary and SARIF. Nothing of drift, its report or its command names it.
 */
const ROOT = join(__dirname, "../../..");
const TOY = join(ROOT, "test/fixtures/rules/toy-naming-levels.cjs");
const RULE = "toy-naming-levels";
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-toy
      resourceGroup: rg-toy
      databases:
        - { name: Orders, transparentDataEncryption: Enabled }
        - { name: customerarchive2019, transparentDataEncryption: Enabled }
        - { name: ok, transparentDataEncryption: Enabled }
`;
const entry = (database: string) =>
  `    - { resourceGroup: rg-toy, server: sql-toy, database: ${database}, transparentDataEncryption: Enabled }`;
const stack = (databases: string[], policies = "") =>
  [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    "  stackwarden:databases:",
    ...databases.map(entry),
    ...(policies ? ["  stackwarden:policies:", `    ${RULE}: ${policies}`] : []),
    "",
  ].join("\n");

const MANDATORY = "Database rg-toy/sql-toy/Orders must have a lowercase name";
const ADVISORY = "Database rg-toy/sql-toy/customerarchive2019 should have a name of at most 12 characters";

interface DriftEntry {
  ruleId: string;
  label: string;
  level: string;
  verdict: string;
  message: string;
  line?: number;
}

describe("a rule's own drift section and a finding at its own level, through the CLI", () => {
  let t: TestEmulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const cli = async (...args: string[]) => {
    const r = await runCliProcess(args, { cwd: dir, env, nodeArgs: ["--require", TOY] });
    return { code: r.code, out: r.stdout, err: r.stderr };
  };
  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    dir = stackDir({
      "Pulumi.all.yaml": stack(["Orders", "customerarchive2019", "ok"]),
      "Pulumi.long.yaml": stack(["customerarchive2019", "ok"]),
      "Pulumi.advisory.yaml": stack(["Orders", "customerarchive2019"], "{ enforcementLevel: advisory }"),
      "Pulumi.off.yaml": stack(["Orders", "customerarchive2019"], "{ enforcementLevel: disabled }"),
    });
    env = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` };
  });
  afterAll(() => t?.close());

  it("drift's table lists both findings, each at its level, and the mandatory one is drift (exit 2)", async () => {
    const r = await cli("drift", "--config", "Pulumi.all.yaml");
    expect(r.err).toBe("");
    expect(r.out).toContain(`  DRIFT rg-toy/sql-toy/Orders: ${MANDATORY}`);
    expect(r.out).toContain(`  ADVISORY rg-toy/sql-toy/customerarchive2019: ${ADVISORY}`);
    expect(r.out).not.toMatch(/rg-toy\/sql-toy\/ok:/);
    expect(r.code).toBe(2);
  });

  it("drift's JSON has the section under its declared key, before errors, entries naming the rule", async () => {
    const r = await cli("drift", "--config", "Pulumi.all.yaml", "--output", "json");
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.out) as Record<string, unknown>;
    expect(Object.keys(doc).slice(-2)).toEqual(["databaseNaming", "errors"]);
    const section = doc.databaseNaming as DriftEntry[];
    expect(section.map((f) => [f.ruleId, f.label, f.level, f.verdict, f.message, f.line])).toEqual([
      [RULE, "rg-toy/sql-toy/Orders", "mandatory", "fail", MANDATORY, 4],
      [RULE, "rg-toy/sql-toy/customerarchive2019", "advisory", "fail", ADVISORY, 5],
    ]);
  });

  it("drift's Markdown gives the section its declared heading", async () => {
    const r = await cli("drift", "--config", "Pulumi.all.yaml", "--output", "markdown");
    const lines = r.out.split("\n");
    const at = lines.indexOf("Database naming:");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 3)).toEqual([`- mandatory \`${RULE}\`: ${MANDATORY}`, `- advisory \`${RULE}\`: ${ADVISORY}`]);
  });

  it("the advisory finding alone is not drift: printed, exit 0", async () => {
    const r = await cli("drift", "--config", "Pulumi.long.yaml");
    expect(r.out).toContain(`  ADVISORY rg-toy/sql-toy/customerarchive2019: ${ADVISORY}`);
    expect(r.out).not.toContain("  DRIFT ");
    expect(r.code).toBe(0);
  });

  it("the stack's level caps every finding: advisory makes both advisory (exit 0); disabled leaves the section empty", async () => {
    const advisory = await cli("drift", "--config", "Pulumi.advisory.yaml", "--output", "json");
    expect(advisory.code).toBe(0);
    expect((JSON.parse(advisory.out).databaseNaming as DriftEntry[]).map((f) => f.level)).toEqual(["advisory", "advisory"]);
    const off = await cli("drift", "--config", "Pulumi.off.yaml", "--output", "json");
    expect(off.code).toBe(0);
    expect(JSON.parse(off.out).databaseNaming).toEqual([]);
  });

  it("check counts each finding at its level: the mandatory one fails (exit 3), the advisory one is advisory, in the table and SARIF", async () => {
    const table = await cli("check", "--config", "Pulumi.all.yaml");
    expect(table.code).toBe(3);
    expect(table.out).toMatch(new RegExp(`FAIL\\s+${RULE}\\s+rg-toy/sql-toy/Orders\\s`));
    expect(table.out).toMatch(new RegExp(`ADVISORY\\s+${RULE}\\s+rg-toy/sql-toy/customerarchive2019\\s`));
    const sarif = await cli("check", "--config", "Pulumi.all.yaml", "--output", "sarif");
    const results = (JSON.parse(sarif.out).runs[0].results as { ruleId: string; level: string; message: { text: string } }[]).filter(
      (x) => x.ruleId === RULE,
    );
    expect(results.map((x) => [x.level, x.message.text])).toEqual([
      ["error", MANDATORY],
      ["warning", ADVISORY],
    ]);
  });
});
