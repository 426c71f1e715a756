import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyAnalyzer, urnOf } from "../../helpers/analyzer";
import { runCliProcess } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { stackDir } from "../../interfaces/cli/cli-harness";

/**
 * One file makes a rule: a toy rule module (test/fixtures/rules), loaded into the compiled CLI and
 * the compiled policy pack with `node --require`, appears in `check`'s table and SARIF (rules and
 * results) and in the pack's GetAnalyzerInfo, and judges the pack's resources, with no other change.
 */
const ROOT = join(__dirname, "../../..");
const TOY = join(ROOT, "test/fixtures/rules/toy-database-naming.cjs");
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-toy
      resourceGroup: rg-toy
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
        - { name: CustomerArchive2019, transparentDataEncryption: Enabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-toy, server: sql-toy, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-toy, server: sql-toy, database: CustomerArchive2019, transparentDataEncryption: Enabled }
  stackwarden:policies:
    toy-database-naming: { enforcementLevel: mandatory, maxLength: 30 }
`;

/** The compiled CLI with the toy rule module loaded first. */
async function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const r = await runCliProcess(args, { cwd, env, nodeArgs: ["--require", TOY] });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("a toy rule: one module, registered", () => {
  let t: TestEmulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    dir = stackDir({ "Pulumi.toy.yaml": STACK });
    env = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` };
  });
  afterAll(() => t?.close());

  it("check's table shows its finding, and its level from the stack file sets the exit code", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml"], env, dir);
    expect(r.err).toBe("");
    expect(r.out).toMatch(
      /FAIL\s+toy-database-naming\s+rg-toy\/sql-toy\/CustomerArchive2019\s+Database .* must have a lowercase name of at most 30 characters/,
    );
    expect(r.code).toBe(3);
  });

  it("SARIF lists it under tool.driver.rules, derived from its declaration, with a result", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml", "--output", "sarif"], env, dir);
    const run = JSON.parse(r.out).runs[0];
    const rules = run.tool.driver.rules as { id: string; name: string; shortDescription: { text: string }; help: { text: string } }[];
    const i = rules.findIndex((x) => x.id === "toy-database-naming");
    expect(rules[i]).toMatchObject({
      name: "ToyDatabaseNaming",
      shortDescription: { text: "Database names must be lowercase and short" },
      help: { text: "Rename the database, or raise maxLength under stackwarden:policies." },
      defaultConfiguration: { level: "warning" },
    });
    const result = run.results.find((x: { ruleId: string }) => x.ruleId === "toy-database-naming");
    expect(result).toMatchObject({ ruleIndex: i, level: "error" });
  });

  it("JUnit gives it a suite of its own", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml", "--output", "junit"], env, dir);
    expect(r.out).toMatch(/<testsuite name="stackwarden\.toy-database-naming" tests="2" failures="1"/);
  });

  it("an unknown setting of it is refused like any rule's, with its line", async () => {
    const bad = stackDir({ "Pulumi.bad.yaml": STACK.replace("maxLength: 30", "maxLenght: 30") });
    const r = await cli(["check", "--config", "Pulumi.bad.yaml"], env, bad);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/Pulumi\.bad\.yaml:7:\d+: .*toy-database-naming.*maxLenght/);
  });

  it("the policy pack offers it (GetAnalyzerInfo) with its config schema, and judges resources with it", async () => {
    const pack = await PolicyAnalyzer.start({ nodeArgs: ["--require", TOY] });
    try {
      const info = await pack.info();
      const p = info.policies.find((x) => x.name === "toy-database-naming");
      expect(p).toMatchObject({ description: "Database names must be lowercase and short", enforcementLevel: "advisory", type: "stack" });
      expect(p?.configSchema).toMatchObject({ maxLength: { type: "integer", default: 12 } });
      const props = {
        subscriptionId: SUB,
        resourceGroup: "rg-toy",
        server: "sql-toy",
        transparentDataEncryption: "Enabled",
        status: "Enabled",
      };
      const urn = urnOf("pulumi-nodejs:dynamic/sql:TransparentDataEncryption", "tde-archive");
      const violations = await pack.analyzeStack([
        {
          type: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
          urn,
          name: "tde-archive",
          props: { ...props, database: "CustomerArchive2019" },
        },
        { type: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption", name: "tde-orders", props: { ...props, database: "orders" } },
      ]);
      const toy = violations.filter((v) => v.policyName === "toy-database-naming");
      expect(toy).toHaveLength(1);
      expect(toy[0]).toMatchObject({ urn, enforcementLevel: "advisory" });
      expect(toy[0].message).toContain("at most 12 characters");
    } finally {
      await pack.stop();
    }
  });
});
