import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyAnalyzer, urnOf } from "../../helpers/analyzer";
import { runCliProcess, startCli } from "../../helpers/cli-process";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { stackDir } from "../../interfaces/cli/cli-harness";

/**
 * One module makes a fact kind: a toy kind (each database's region, read live through the client
 * set or from the pack's TDE resources) and a toy rule over it, registered by a fixture loaded with
 * `node --require` into the compiled CLI and policy pack, reach check's table and SARIF, a watch
 * tick's findings and the analyzer over gRPC, with no other file changed.
 */
const ROOT = join(__dirname, "../../..");
const TOY = join(ROOT, "test/fixtures/rules/toy-fact-kind.cjs");
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-us
      resourceGroup: rg-toy
      location: East US
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
    - name: sql-eu
      resourceGroup: rg-toy
      location: West Europe
      databases:
        - { name: archive, transparentDataEncryption: Enabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-toy, server: sql-us, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-toy, server: sql-eu, database: archive, transparentDataEncryption: Enabled }
  stackwarden:policies:
    toy-database-region: { enforcementLevel: mandatory }
    sql-tde-customer-managed-key: { enforcementLevel: disabled }   # the servers are service-managed: not this test's finding
`;

/** The compiled CLI with the toy fact kind and rule loaded first. */
async function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const r = await runCliProcess(args, { cwd, env, nodeArgs: ["--require", TOY] });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("a toy fact kind and a rule over it: one module, registered", () => {
  let t: TestEmulator;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    dir = stackDir({ "Pulumi.toy.yaml": STACK });
    env = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` };
  });
  afterAll(() => t?.close());

  it("check gathers the kind live and shows the rule's finding in its table, with the exit code of its level", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml"], env, dir);
    expect(r.err).toBe("");
    expect(r.out).toMatch(/1 mandatory violation\(s\), 0 advisory, 0 exempt, 3 passed/);
    expect(r.out).toMatch(/FAIL\s+toy-database-region\s+rg-toy\/sql-eu\/archive\s+Database .* must be in East US; it is in West Europe/);
    expect(r.code).toBe(3);
  });

  it("SARIF lists the rule and its result at the database's line", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml", "--output", "sarif"], env, dir);
    const run = JSON.parse(r.out).runs[0];
    expect(run.tool.driver.rules.map((x: { id: string }) => x.id)).toContain("toy-database-region");
    const result = run.results.find((x: { ruleId: string }) => x.ruleId === "toy-database-region");
    expect(result).toMatchObject({ level: "error" });
    expect(result.locations[0].physicalLocation.region.startLine).toBe(5);
  });

  it("a watch tick judges it too: /metrics counts its finding", async () => {
    const w = startCli(["watch", "--config", "Pulumi.toy.yaml", "--interval", "1h", "--listen", "127.0.0.1:0"], {
      cwd: dir,
      env,
      nodeArgs: ["--require", TOY],
    });
    try {
      expect(await w.line(/tick 1: /)).toMatch(/tick 1: 0 drifted, 1 mandatory and 0 advisory finding\(s\)/);
      const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/stackwarden_findings\{stack="toy",rule="toy-database-region",level="mandatory"\} 1/);
    } finally {
      w.child.kill("SIGTERM");
      await w.exited;
    }
  });

  it("the policy pack builds the kind from TDE resources and judges it over gRPC", async () => {
    const pack = await PolicyAnalyzer.start({ nodeArgs: ["--require", TOY] });
    try {
      const info = await pack.info();
      expect(info.policies.find((x) => x.name === "toy-database-region")).toMatchObject({ type: "stack" });
      const props = { subscriptionId: SUB, resourceGroup: "rg-toy", transparentDataEncryption: "Enabled", status: "Enabled" };
      const urn = urnOf("pulumi-nodejs:dynamic/sql:TransparentDataEncryption", "tde-archive");
      const violations = await pack.analyzeStack([
        {
          type: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
          urn,
          name: "tde-archive",
          props: { ...props, server: "sql-eu", database: "archive", location: "West Europe" },
        },
        {
          type: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
          name: "tde-orders",
          props: { ...props, server: "sql-us", database: "orders", location: "East US" },
        },
      ]);
      const toy = violations.filter((v) => v.policyName === "toy-database-region");
      expect(toy).toHaveLength(1);
      expect(toy[0]).toMatchObject({ urn });
      expect(toy[0].message).toContain("must be in East US; it is in West Europe");
    } finally {
      await pack.stop();
    }
  });
});
