import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TYPES } from "../helpers/carrier-types";
import { PolicyAnalyzer, urnOf, type AnalyzerResourceInput, type Violation } from "../helpers/analyzer";

/**
 * The pack honours each finding's level over gRPC, as the engine sees it: a rule that reports an
 * advisory finding beside mandatory ones (test/fixtures/rules/toy-naming-levels.cjs, loaded into
 * the compiled pack with `node --require`) is registered at its default level, its mandatory
 * findings follow the policy's configured level, and its advisory one stays advisory. Both
 * AnalyzeStack (a stack policy) and Analyze (its per-resource twin) carry the level per diagnostic.
 */
const TOY = join(__dirname, "../fixtures/rules/toy-naming-levels.cjs");
const STACK_RULE = "toy-naming-levels";
const RESOURCE_RULE = "toy-naming-levels-on-create";
const SUB = "00000000-0000-0000-0000-000000000000";

const tde = (database: string): AnalyzerResourceInput => ({
  type: TYPES.tde,
  name: `tde-${database}`,
  urn: urnOf(TYPES.tde, `tde-${database}`),
  props: {
    subscriptionId: SUB,
    resourceGroup: "rg-toy",
    server: "sql-toy",
    database,
    transparentDataEncryption: "Enabled",
    status: "Enabled",
  },
});
const RESOURCES = [tde("Orders"), tde("customerarchive2019"), tde("ok")];
const MANDATORY = "Database rg-toy/sql-toy/Orders must have a lowercase name";
const ADVISORY = "Database rg-toy/sql-toy/customerarchive2019 should have a name of at most 12 characters";

/** A rule's violations as [level, urn's resource name, the finding's message], in order. */
const of = (vs: Violation[], rule: string) =>
  vs.filter((v) => v.policyName === rule).map((v) => [v.enforcementLevel, v.urn.split("::").at(-1), v.detail]);

describe("the pack reports each finding at its own level", () => {
  let pack: PolicyAnalyzer;
  beforeAll(async () => {
    pack = await PolicyAnalyzer.start({ nodeArgs: ["--require", TOY] });
  });
  afterAll(() => pack?.stop());

  it("the policy is registered at the rule's default level", async () => {
    const info = await pack.info();
    expect(info.policies.find((p) => p.name === STACK_RULE)).toMatchObject({ enforcementLevel: "mandatory", type: "stack" });
    expect(info.policies.find((p) => p.name === RESOURCE_RULE)).toMatchObject({ enforcementLevel: "mandatory", type: "resource" });
  });

  it("AnalyzeStack: the mandatory finding at the policy's level, the advisory one advisory, with CrossGuard's description", async () => {
    await pack.configure({});
    const vs = await pack.analyzeStack(RESOURCES);
    expect(of(vs, STACK_RULE)).toEqual([
      ["mandatory", "tde-Orders", MANDATORY],
      ["advisory", "tde-customerarchive2019", ADVISORY],
    ]);
    // Both forms read alike: "<description>\n<message>".
    for (const v of vs.filter((x) => x.policyName === STACK_RULE)) {
      expect(v.description).toBe("Database names must be lowercase");
      expect(v.message).toBe(`${v.description}\n${v.detail}`);
    }
  });

  it("Analyze (per resource): the same levels, each on the resource analyzed", async () => {
    await pack.configure({});
    const byResource = await Promise.all(RESOURCES.map(async (r) => [r.name, of(await pack.analyze(r), RESOURCE_RULE)] as const));
    // The engine files a resource policy's diagnostic under the resource analyzed: its urn stays empty.
    expect(byResource).toEqual([
      ["tde-Orders", [["mandatory", "", MANDATORY]]],
      ["tde-customerarchive2019", [["advisory", "", ADVISORY]]],
      ["tde-ok", []],
    ]);
  });

  it("the configured level lowers the policy's findings, never raises the advisory one; disabled reports none", async () => {
    await pack.configure({ [STACK_RULE]: { enforcementLevel: "advisory" } });
    expect(of(await pack.analyzeStack(RESOURCES), STACK_RULE)).toEqual([
      ["advisory", "tde-Orders", MANDATORY],
      ["advisory", "tde-customerarchive2019", ADVISORY],
    ]);
    await pack.configure({ [STACK_RULE]: { enforcementLevel: "disabled" } });
    expect(of(await pack.analyzeStack(RESOURCES), STACK_RULE)).toEqual([]);
    await pack.configure({ [STACK_RULE]: { enforcementLevel: "mandatory", properties: { maxLength: 30 } } });
    expect(of(await pack.analyzeStack(RESOURCES), STACK_RULE)).toEqual([["mandatory", "tde-Orders", MANDATORY]]);
  });
});
