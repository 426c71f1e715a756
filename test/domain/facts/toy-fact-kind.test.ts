import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PolicyAnalyzer, urnOf } from "../../helpers/analyzer";
import { runCliProcess, startCli, startEmulatorProcess, type EmulatorProcess } from "../../helpers/cli-process";
import { DynamicResourceDriver, PROJECT_ROOT, ProviderPlugin } from "../../helpers/provider-plugin";
import { stackDir } from "../../interfaces/cli/cli-harness";

/**
 * A fact kind with a read of its own and a rule over it, each one module, registered at load time
 * by fixtures loaded with `node --require`, changing no other file: the emulator serves the read
 * (SQL's Servers_Get at 2021-11-01, its seed's `minimalTlsVersion`), the kind reads each server's minimal
 * TLS version through the client set's generic Resource Manager read, and the rule ("SQL servers
 * must require TLS 1.2") reaches check's table and SARIF, a watch tick's findings, and the pack over
 * gRPC, fed by the kind's own carrier (`sql:Server`) as the one data-source provider creates it.
 */
const FIXTURES = join(__dirname, "../../fixtures/facts/toy-server-tls");
const KIND = join(FIXTURES, "kind.cjs");
const RULE = join(FIXTURES, "rule.cjs");
const WITH_KIND_AND_RULE = ["--require", KIND, "--require", RULE];
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-tls12
      resourceGroup: rg-toy
      minimalTlsVersion: "1.2"
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
    - name: sql-tls10
      resourceGroup: rg-toy
      minimalTlsVersion: "1.0"
      databases:
        - { name: archive, transparentDataEncryption: Enabled }
`;
const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg-toy, server: sql-tls12, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg-toy, server: sql-tls10, database: archive, transparentDataEncryption: Enabled }
  stackwarden:policies:
    toy-sql-server-tls: { enforcementLevel: mandatory }
    sql-tde-customer-managed-key: { enforcementLevel: disabled }   # the servers are service-managed: not this test's finding
`;
const SERVER_TYPE = "pulumi-nodejs:dynamic/sql:Server";

/** The compiled CLI with the toy kind and rule loaded first. */
async function cli(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const r = await runCliProcess(args, { cwd, env, nodeArgs: WITH_KIND_AND_RULE });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe("a toy fact kind with a read of its own and a rule over it: one module each, registered", () => {
  let emulator: EmulatorProcess;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = stackDir({ "Pulumi.toy.yaml": STACK });
    writeFileSync(join(dir, "seed.yaml"), SEED);
    emulator = await startEmulatorProcess(["--port", "0", "--seed", join(dir, "seed.yaml")], {
      env: { PATH: process.env.PATH },
    });
    env = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: emulator.url, STACKWARDEN_IMDS_ENDPOINT: `${emulator.url}/metadata` };
  });
  afterAll(async () => {
    emulator?.child.kill("SIGTERM");
    await emulator?.exited;
  });

  it("check gathers the kind live through its new read and shows the rule's finding in its table, with the exit code of its level", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml"], env, dir);
    expect(r.err).toBe("");
    // The passes are every enabled rule's (counted in SARIF below for this rule alone).
    expect(r.out).toMatch(/1 mandatory violation\(s\), 0 advisory, 0 exempt, \d+ passed/);
    expect(r.out).toMatch(
      /FAIL\s+toy-sql-server-tls\s+rg-toy\/sql-tls10\s+SQL server rg-toy\/sql-tls10 must require TLS 1\.2; it accepts TLS 1\.0/,
    );
    expect(r.code).toBe(3);
    // The read went to the toy route, once per server.
    const stats = (await (await fetch(`${emulator.url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
    expect(
      stats.byRoute["GET /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Sql/servers/{serverName}"],
    ).toBe(2);
  });

  it("SARIF lists the rule and its result at the line of the server's first database, and its pass of the other server", async () => {
    const r = await cli(["check", "--config", "Pulumi.toy.yaml", "--output", "sarif", "--sarif-passes"], env, dir);
    const run = JSON.parse(r.out).runs[0];
    expect(run.tool.driver.rules.map((x: { id: string }) => x.id)).toContain("toy-sql-server-tls");
    const mine = (run.results as { ruleId: string; level: string; kind?: string }[]).filter((x) => x.ruleId === "toy-sql-server-tls");
    expect(mine.map((x) => x.kind ?? x.level).sort()).toEqual(["error", "pass"]);
    const result = run.results.find((x: { ruleId: string; level: string }) => x.ruleId === "toy-sql-server-tls" && x.level === "error");
    expect(result.message.text).toContain("must require TLS 1.2");
    expect(result.locations[0].physicalLocation.region.startLine).toBe(5);
  });

  it("a watch tick judges it too: /metrics counts its finding", async () => {
    const w = startCli(["watch", "--config", "Pulumi.toy.yaml", "--interval", "1h", "--listen", "127.0.0.1:0"], {
      cwd: dir,
      env,
      nodeArgs: WITH_KIND_AND_RULE,
    });
    try {
      expect(await w.line(/tick 1: /)).toMatch(/tick 1: 0 drifted, 1 mandatory and 0 advisory finding\(s\)/);
      const url = /listening on (http:\/\/\S+)/.exec(await w.line(/listening on http/))![1];
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/stackwarden_findings\{stack="toy",rule="toy-sql-server-tls",level="mandatory"\} 1/);
    } finally {
      w.child.kill("SIGTERM");
      await w.exited;
    }
  });

  it("the kind's carrier, created by the one data-source provider, feeds the pack, which judges it over gRPC", async () => {
    // The provider plugin finds the toy's data source by its token, as it finds the built-in ones.
    const plugin = await ProviderPlugin.start({
      env: {
        STACKWARDEN_ARM_ENDPOINT: emulator.url,
        STACKWARDEN_IMDS_ENDPOINT: `${emulator.url}/metadata`,
        NODE_OPTIONS: `--require ${KIND}`,
      },
    });
    const pack = await PolicyAnalyzer.start({ nodeArgs: WITH_KIND_AND_RULE });
    try {
      await plugin.configure();
      const providerText = (require(join(PROJECT_ROOT, "dist/providers/index.js")) as { providerText(n: string): string }).providerText;
      const created = await Promise.all(
        ["sql-tls12", "sql-tls10"].map(async (server) => {
          const name = `sql-server-rg-toy-${server}`;
          const ds = new DynamicResourceDriver(plugin, providerText("sql:Server"), SERVER_TYPE, name);
          const inputs = { subscriptionId: SUB, resourceGroup: "rg-toy", server };
          expect((await ds.check(inputs)).failures).toEqual([]);
          return { type: SERVER_TYPE, name, props: (await ds.create(inputs)).properties };
        }),
      );
      expect(created[1].props.serverResource).toMatchObject({ type: "Microsoft.Sql/servers", properties: { minimalTlsVersion: "1.0" } });

      const info = await pack.info();
      expect(info.policies.find((x) => x.name === "toy-sql-server-tls")).toMatchObject({ type: "stack", enforcementLevel: "advisory" });
      const toy = (await pack.analyzeStack(created)).filter((v) => v.policyName === "toy-sql-server-tls");
      expect(toy).toHaveLength(1);
      expect(toy[0]).toMatchObject({ urn: urnOf(SERVER_TYPE, "sql-server-rg-toy-sql-tls10") });
      expect(toy[0].detail).toBe("SQL server rg-toy/sql-tls10 must require TLS 1.2; it accepts TLS 1.0");
      expect(plugin.stderr.split("\n").filter((l) => l.trim())).toEqual([]);
    } finally {
      await pack.stop();
      await plugin.close();
    }
  });
});
