import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emulatorClientSet, type ClientSet } from "../../src/clients/client-set";
import { allRules } from "../../src/domain/compliance/registry";
import { databasesInScope, scopeExemptionsOf } from "../../src/domain/facts/databases-in-scope";
import { sqlTdeEnabled } from "../../src/domain/compliance/rules/sql-tde-enabled";
import { resolveSettings } from "../../src/domain/compliance/rule";
import { checkResources } from "../../src/usecases/check";
import { loadStackFile } from "../../src/usecases/stack-file";
import { TYPES } from "../helpers/carrier-types";
import { dataSourceResources } from "../helpers/data-source-resources";
import { resourcesRegisteredAtOnce } from "../helpers/program-resources";
import { PolicyAnalyzer, UNKNOWN_VALUE, urnOf, type AnalyzerResourceInput } from "../helpers/analyzer";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { emulatorEnv, runCliWith } from "../interfaces/cli/cli-harness";

/**
 * Issue 42 item 6: `sql:DatabasesInScope` carries the databases of a stack's scope it does not list
 * to the policy pack (the compiled pack over gRPC, as the engine drives it), so the pack reports the
 * same discovered violation as `check`: rule, level, message and the database's id; the scope's
 * exemptions hold in both. The pack is given the data source's outputs (its read, as the provider
 * returns it), or its inputs only, which is what the Pulumi engine hands a resource policy such as
 * sql-tde-enabled: then the pack reads the scope itself (test/e2e/databases-in-scope-pulumi.test.ts
 * runs it through the CLI).
 */
const A = "0a0a0a0a-0000-0000-0000-000000000000";
const B = "0b0b0b0b-0000-0000-0000-000000000000";
const SEED = `sql:
  subscriptionId: ${A}
  servers:
    - name: sql-s1
      resourceGroup: rg-s
      databases:
        - { name: orders, transparentDataEncryption: Enabled }      # listed
        - { name: billing, transparentDataEncryption: Disabled }    # unlisted, TDE off: the discovered failure
        - { name: scratch, transparentDataEncryption: Disabled, tags: { lifecycle: sandbox } }  # exempted by the scope
    - name: sql-s2
      resourceGroup: rg-t
      subscriptionId: ${B}
      databases:
        - { name: sessions, transparentDataEncryption: Enabled }    # unlisted, in the second subscription, passes
`;
const STACK = `config:
  stackwarden:subscriptionId: ${A}
  stackwarden:databases:
    - { resourceGroup: rg-s, server: sql-s1, database: orders, transparentDataEncryption: Enabled }
  stackwarden:scope:
    subscriptions: [${A}, ${B}]
    exemptions:
      - { tag: lifecycle=sandbox, reason: "sandbox data only", expires: "2099-12-31" }
`;
const billingId = `/subscriptions/${A}/resourceGroups/rg-s/providers/Microsoft.Sql/servers/sql-s1/databases/billing`;

let emu: TestEmulator;
let analyzer: PolicyAnalyzer;
let clients: ClientSet;
let dir: string;
let stackFile: string;
let inScope: AnalyzerResourceInput;

beforeAll(async () => {
  emu = await startTestEmulator({ seed: seedFromYaml(SEED) });
  // The analyzer reaches the emulator as the engine's environment lets it (it reads the scope when given inputs only).
  analyzer = await PolicyAnalyzer.start({ env: { STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: emu.imdsEndpoint } });
  clients = emulatorClientSet({ PATH: process.env.PATH }, emu.url);
  dir = mkdtempSync(join(tmpdir(), "sw-in-scope-"));
  mkdirSync(join(dir, "stacks"));
  stackFile = join(dir, "stacks", "Pulumi.scoped.yaml");
  writeFileSync(stackFile, STACK);
  [inScope] = await dataSourceResources(loadStackFile(stackFile, {}, dir), clients, [databasesInScope.token]);
  inScope = { ...inScope, urn: urnOf(databasesInScope.type, "databases-in-scope") };
});

afterAll(async () => {
  await analyzer?.stop();
  await clients?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface CheckFinding {
  ruleId: string;
  verdict: string;
  level: string;
  resourceId: string;
  message: string;
  properties?: { discovered?: boolean };
}

describe("sql:DatabasesInScope", () => {
  it("the program registers one per stack with a scope, and it reads the unlisted databases with their TDE status", () => {
    const stack = loadStackFile(stackFile, {}, dir);
    expect(databasesInScope.instances!(stack).map((i) => i.name)).toEqual(["databases-in-scope"]);
    expect(databasesInScope.instances!({ ...stack, scope: undefined })).toEqual([]);
    // The program's count follows the registries: the scope's source is one more resource.
    expect(resourcesRegisteredAtOnce(stack) - resourcesRegisteredAtOnce({ ...stack, scope: undefined })).toBe(1);
    expect(inScope.type).toBe(TYPES.databasesInScope);
    const value = inScope.props.inScope as { discovered: { database: string; status: string }[]; listed: number };
    expect(value.discovered.map((d) => [d.database, d.status])).toEqual([
      ["billing", "Disabled"],
      ["scratch", "Disabled"],
      ["sessions", "Enabled"],
    ]);
    expect(value.listed).toBe(1);
  });

  it("the pack reports the discovered violation check reports: rule, level, message, resource id", async () => {
    const r = await runCliWith(["check", "--config", stackFile, "--output", "json"], { env: emulatorEnv(emu.url), cwd: dir });
    expect(r.code, r.err).toBe(3);
    const fromCheck = (JSON.parse(r.out) as { findings: CheckFinding[] }).findings.filter(
      (f) => f.verdict === "fail" && f.properties?.discovered,
    );
    expect(fromCheck.map((f) => [f.ruleId, f.resourceId])).toEqual([[sqlTdeEnabled.id, billingId]]);

    await analyzer.configure(
      Object.fromEntries(allRules().map((rule) => [rule.id, { enforcementLevel: rule.defaultLevel, properties: {} }])),
    );
    // Analyze of the scope's resource: a resource policy reports on the resource analyzed (no URN of its own).
    const violations = await analyzer.analyze(inScope);
    expect(violations.map((v) => ({ policy: v.policyName, level: v.enforcementLevel, urn: v.urn, message: v.detail }))).toEqual(
      fromCheck.map((f) => ({ policy: f.ruleId, level: f.level, urn: "", message: f.message })),
    );

    // The resource id: the pack's own judging (what its policy runs) over the same resource.
    const { findings } = await checkResources({
      rules: [sqlTdeEnabled],
      resources: [inScope],
      settings: { [sqlTdeEnabled.id]: resolveSettings(sqlTdeEnabled, {}) },
      exemptions: await scopeExemptionsOf([inScope], { known: (read) => read(), clients }),
      context: { known: (read) => read(), clients },
    });
    expect(findings.filter((f) => f.verdict === "fail").map((f) => [f.ruleId, f.level, f.resourceId, f.message])).toEqual(
      fromCheck.map((f) => [f.ruleId, f.level, f.resourceId, f.message]),
    );
    expect(findings.find((f) => f.label.endsWith("/scratch"))?.verdict).toBe("exempt");
  });

  it("given the inputs only (what the engine hands a resource policy, in preview and up), the pack reads the scope itself: the same violation", async () => {
    const { inScope: _given, ...inputs } = inScope.props;
    const fromOutputs = await analyzer.analyze(inScope);
    expect(fromOutputs.map((v) => v.policyName)).toEqual([sqlTdeEnabled.id]);
    expect(await analyzer.analyze({ ...inScope, props: inputs })).toEqual(fromOutputs);
    // An output the engine marks unknown (a preview of a new stack) is read the same way.
    expect(await analyzer.analyze({ ...inScope, props: { ...inScope.props, inScope: UNKNOWN_VALUE } })).toEqual(fromOutputs);
  });

  it("an input still unknown (a program computing the scope): nothing is judged", async () => {
    expect(await analyzer.analyze({ ...inScope, props: { ...inScope.props, inScope: UNKNOWN_VALUE, scope: UNKNOWN_VALUE } })).toEqual([]);
  });
});
