import { describe, expect, it } from "vitest";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import type { Exemption } from "../../../src/domain/stack/stack-config";
import { decideAction, type TdePlanItem } from "../../../src/domain/reconcile/tde-plan";
import { sqlDatabaseId } from "../../../src/platform/arm/resource-id";
import { decideRepairs } from "../../../src/domain/reconcile/repair-policy";
import { keyVaultFactsOf } from "../../../src/domain/facts/key-vaults";
import { protectorFactsOf } from "../../../src/domain/facts/tde-protectors";
import { stackServers } from "../../../src/domain/facts/key-custody-reads";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { defineFactKind } from "../../../src/domain/facts/fact-kind";
import { registerFactKind } from "../../../src/domain/facts/registry";
import { placementFactsOf } from "../../../src/domain/facts/placements";
import { registerRule } from "../../../src/domain/compliance/registry";
import { defineRule, findingBase } from "../../../src/domain/compliance/rule";
import type { FactOrigin } from "../../../src/domain/facts/model/compliance-facts";

const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2026-06-01T00:00:00Z");

function drifted(
  database: string,
  live: "Enabled" | "Disabled",
  desired: "Enabled" | "Disabled",
): { item: TdePlanItem; facts: ComplianceFacts } {
  const ref = { subscriptionId: SUB, resourceGroup: "rg", server: "s1", database };
  const id = sqlDatabaseId(ref);
  return {
    item: {
      desired: { resourceGroup: "rg", server: "s1", database, transparentDataEncryption: desired },
      ref,
      id,
      live,
      action: decideAction(live, desired),
    },
    facts: {
      ...emptyFacts(SUB),
      databases: [{ id, resourceGroup: "rg", server: "s1", database, liveTdeStatus: live }],
      tierAdvisors: [{ id, resourceGroup: "rg", server: "s1", database, advisor: undefined }],
    },
  };
}

const stack = (policies?: Parameters<typeof resolveRuleSettings>[0], exemptions: Exemption[] = []) => ({
  policies: resolveRuleSettings(policies),
  exemptions,
});

describe("which drift --auto-remediate repairs", () => {
  it("Disabled -> Enabled where the stack wants Enabled: repaired", () => {
    const { item, facts } = drifted("orders", "Disabled", "Enabled");
    expect(decideRepairs([item], facts, stack(), NOW)).toEqual([{ item, repair: true }]);
  });

  it("decrypting because the stack says Disabled: a mandatory rule would flag it, so it is only reported", () => {
    const { item, facts } = drifted("legacy", "Enabled", "Disabled");
    const [d] = decideRepairs([item], facts, stack(), NOW);
    expect(d).toMatchObject({ repair: false, ruleId: "sql-tde-enabled" });
    expect(d.reason).toMatch(
      /^sql-tde-enabled \(mandatory\) would flag it: Database rg\/s1\/legacy must have transparent data encryption Enabled; the stack sets it to Disabled$/,
    );
  });

  it("with the rule advisory, decrypting still moves away from compliance: refused, naming the advisory rule", () => {
    const { item, facts } = drifted("legacy", "Enabled", "Disabled");
    const [d] = decideRepairs([item], facts, stack({ "sql-tde-enabled": { enforcementLevel: "advisory" } }), NOW);
    expect(d).toMatchObject({ repair: false, reason: expect.stringMatching(/^sql-tde-enabled \(advisory\) would flag it/) });
  });

  it("the server's key custody (a vault without purge protection: mandatory) is not the repair's: encrypting is still repaired", () => {
    const { item, facts } = drifted("orders", "Disabled", "Enabled");
    const [server] = stackServers({ subscriptionId: SUB, databases: [item.desired] });
    const uri = "https://kv-weak.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef";
    const withKeys: ComplianceFacts = {
      ...facts,
      tdeProtectors: [protectorFactsOf(server, { protector: { id: "p", properties: { serverKeyType: "AzureKeyVault", uri } } })],
      keyVaults: [
        keyVaultFactsOf("kv-weak", SUB, {
          vault: {
            id: `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.KeyVault/vaults/kv-weak`,
            properties: { enableSoftDelete: true },
          },
        }),
      ],
    };
    expect(decideRepairs([item], withKeys, stack(), NOW)).toEqual([{ item, repair: true }]);
  });

  it("a site outside the allowed countries (data-residency, mandatory) is not the repair's either: encrypting is still repaired", () => {
    const { item, facts } = drifted("orders", "Disabled", "Enabled");
    const site = placementFactsOf(
      { kind: "site", id: "site:backup", label: "backup", address: "Main St 1", status: "placed", country: "US", reason: "geocoded" },
      ["DE"],
    );
    const withSite: ComplianceFacts = { ...facts, placements: [site] };
    expect(decideRepairs([item], withSite, stack(), NOW)).toEqual([{ item, repair: true }]);
  });

  it("kinds are told apart by their declared scope, not by name: a new server-scoped kind's mandatory failure does not block, a database-scoped one's does", () => {
    interface Toy extends FactOrigin {
      id: string;
      bad: boolean;
    }
    const toy = (scope: "server" | "database", key: string) => {
      registerFactKind(defineFactKind<Toy>({ key, title: key, scope, gather: async () => [], fromResources: () => [] }));
      const rule = defineRule({
        id: `toy-${scope}-rule`,
        title: "toy",
        description: "toy",
        help: "toy",
        defaultLevel: "mandatory",
        facts: [key],
        settings: {},
        packScope: "stack",
        evaluate: (f, settings) =>
          ((f as unknown as Record<string, Toy[]>)[key] ?? []).map((t) => ({
            ...findingBase({ id: `toy-${scope}-rule` }, t, t.id, t.id, settings.enforcementLevel),
            verdict: t.bad ? ("fail" as const) : ("pass" as const),
            message: `${t.id} must not be bad`,
          })),
      });
      registerRule(rule);
    };
    toy("server", "toyServerThings");
    toy("database", "toyDatabaseThings");
    const { item, facts } = drifted("orders", "Disabled", "Enabled");
    const serverId = item.id.replace(/\/databases\/.*$/, "");
    const serverBad = { ...facts, toyServerThings: [{ id: serverId, bad: true }], toyDatabaseThings: [] } as unknown as ComplianceFacts;
    expect(decideRepairs([item], serverBad, stack(), NOW)).toEqual([{ item, repair: true }]);
    const databaseBad = { ...facts, toyServerThings: [], toyDatabaseThings: [{ id: item.id, bad: true }] } as unknown as ComplianceFacts;
    expect(decideRepairs([item], databaseBad, stack(), NOW)[0]).toMatchObject({ repair: false, ruleId: "toy-database-rule" });
    // Another database's failure is not this one's.
    const otherBad = {
      ...facts,
      toyServerThings: [],
      toyDatabaseThings: [{ id: `${serverId}/databases/other`, bad: true }],
    } as unknown as ComplianceFacts;
    expect(decideRepairs([item], otherBad, stack(), NOW)).toEqual([{ item, repair: true }]);
  });

  it("with the rule disabled, or the database exempted, no rule objects: the stack's state is restored", () => {
    const { item, facts } = drifted("legacy", "Enabled", "Disabled");
    expect(decideRepairs([item], facts, stack({ "sql-tde-enabled": { enforcementLevel: "disabled" } }), NOW)[0].repair).toBe(true);
    const exempt: Exemption = { resourceId: item.id, rules: ["sql-tde-enabled"], reason: "vendor appliance" };
    expect(decideRepairs([item], facts, stack(undefined, [exempt]), NOW)[0].repair).toBe(true);
  });
});
