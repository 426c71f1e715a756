import { describe, expect, it } from "vitest";
import type { ChangeAttribution } from "../../../src/domain/changes/change-record";
import { planReread } from "../../../src/domain/rereads/reread-plan";
import { allRules } from "../../../src/domain/compliance/registry";
import { allFactKinds } from "../../../src/domain/facts/registry";
import type { SubjectScope } from "../../../src/domain/facts/subject-scope";
import { emptyFacts } from "../../../src/domain/facts/gather";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import type { StackConfig } from "../../../src/domain/stack/stack-config";

const SUB = "00000000-0000-0000-0000-000000000000";
const stack = {
  file: "Pulumi.t.yaml",
  subscriptionId: SUB,
  databases: [
    { resourceGroup: "rg", server: "s1", database: "a", transparentDataEncryption: "Enabled" },
    { resourceGroup: "rg", server: "s1", database: "b", transparentDataEncryption: "Enabled" },
    { resourceGroup: "rg", server: "s2", database: "c", transparentDataEncryption: "Enabled" },
  ],
  elasticPools: [],
  batch: { locations: [], workspaces: [] },
  policies: {},
  exemptions: [],
} as StackConfig;
const sql = `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers`;
const vault = `/subscriptions/${SUB}/resourceGroups/kv-rg/providers/Microsoft.KeyVault/vaults/kv1`;
const by = (caller: string): ChangeAttribution => ({
  caller,
  at: "2026-01-01T00:00:00.000Z",
  operation: "x/write",
  source: "activity-log",
  correlationId: "c",
});
const changes = (...ids: [string, string][]) => new Map(ids.map(([id, caller]) => [id.toLowerCase(), by(caller)]));
const names = (s: StackConfig) => s.databases.map((d) => d.database);
const ruleIds = (p: ReturnType<typeof planReread>) => p!.rules.map((r) => r.id).sort();
/**
 * The registered rules over a fact kind of one of these scopes, from the registries: a rule or kind
 * registered later is expected without a word here. Never empty and never every rule, or the
 * expectation could not tell a plan that reaches too little or too much.
 */
const rulesOver = (...scopes: SubjectScope[]) => {
  const kinds = new Set(
    allFactKinds()
      .filter((k) => scopes.includes(k.scope))
      .map((k) => k.key),
  );
  const ids = allRules()
    .filter((r) => r.facts.some((k) => kinds.has(k)))
    .map((r) => r.id)
    .sort();
  expect(ids.length).toBeGreaterThan(0);
  expect(ids.length).toBeLessThan(allRules().length);
  return ids;
};

describe("planReread: what a change reaches, over fact-kind scopes", () => {
  it("a database's TDE setting reaches that database only, and the rules over database facts", () => {
    const p = planReread(
      stack,
      changes([`${sql}/s1/databases/b/transparentDataEncryption/current`, "alice@contoso.com"]),
      allRules(),
      undefined,
    )!;
    expect(names(p.stack)).toEqual(["b"]);
    expect(ruleIds(p)).toEqual(rulesOver("database"));
    expect(ruleIds(p)).toContain("sql-tde-enabled");
    expect([...p.causes]).toEqual([[`${sql}/s1/databases/b`.toLowerCase(), by("alice@contoso.com")]]);
  });

  it("a server's protector reaches the databases on that server and the key-custody rules", () => {
    const p = planReread(stack, changes([`${sql}/s1/encryptionProtector/current`, "bob"]), allRules(), undefined)!;
    expect(names(p.stack)).toEqual(["a", "b"]);
    // Every rule over a server, vault or key kind; a rule registered later is included without a word here.
    expect(ruleIds(p)).toEqual(rulesOver("server", "vault", "key"));
    expect(ruleIds(p)).toContain("sql-tde-customer-managed-key");
    expect(ruleIds(p)).not.toContain("sql-tde-enabled");
  });

  it("a vault reaches the stack's servers only when the last facts judged it", () => {
    const judged = { ...emptyFacts(SUB), keyVaults: [{ id: vault, name: "kv1" }] } as unknown as ComplianceFacts;
    const p = planReread(stack, changes([vault, "carol"]), allRules(), judged)!;
    expect(names(p.stack)).toEqual(["a", "c"]); // one database per server: the protectors lead to the vaults
    expect(ruleIds(p)).toEqual(rulesOver("vault", "key"));
    expect(ruleIds(p)).toContain("tde-key-vault-recoverable");
    expect(ruleIds(p)).not.toContain("sql-tde-customer-managed-key"); // a rule over servers only
    expect(p.causes.size).toBe(0);
    expect(planReread(stack, changes([vault.replace("kv1", "other"), "carol"]), allRules(), judged)).toBeUndefined();
  });

  it("changes to nothing the stack names plan nothing", () => {
    expect(
      planReread(
        stack,
        changes([`${sql}/s9/databases/x`, "d"], [`/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Web/sites/w`, "d"]),
        allRules(),
        undefined,
      ),
    ).toBeUndefined();
  });

  it("with a scope, an unlisted database of its subscriptions and groups is named for a read (never master, nor another group)", () => {
    const scoped = {
      ...stack,
      scope: {
        subscriptions: [SUB],
        resourceGroups: ["rg"],
        includeTags: {},
        excludeTags: {},
        transparentDataEncryption: "Enabled",
        remediate: false,
        exemptions: [],
      },
    } as StackConfig;
    const p = planReread(
      scoped,
      changes(
        [`${sql}/s9/databases/fresh`, "dave"],
        [`${sql}/s9/databases/master`, "dave"],
        [`/subscriptions/${SUB}/resourceGroups/other/providers/Microsoft.Sql/servers/s3/databases/y`, "dave"],
      ),
      allRules(),
      undefined,
    )!;
    expect(p.unlisted).toEqual([`${sql}/s9/databases/fresh`.toLowerCase()]);
    expect(names(p.stack)).toEqual([]);
    expect(ruleIds(p)).toEqual(rulesOver("database"));
    expect(p.causes.get(`${sql}/s9/databases/fresh`.toLowerCase())).toEqual(by("dave"));
    // Without a scope the same change reaches nothing.
    expect(planReread(stack, changes([`${sql}/s9/databases/fresh`, "dave"]), allRules(), undefined)).toBeUndefined();
  });
});
