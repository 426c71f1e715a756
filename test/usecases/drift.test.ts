import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newClientSet, type ClientSet } from "../../src/clients/client-set";
import { KEY_CUSTODY_DRIFT } from "../../src/domain/compliance/key-custody-facts";
import { registerRule } from "../../src/domain/compliance/registry";
import { defineRule, findingBase } from "../../src/domain/compliance/rule";
import { tdeProtectors } from "../../src/domain/facts/tde-protectors";
import { parseStackConfig } from "../../src/domain/stack/stack-config";
import { NO_KEPT_STATE } from "../../src/domain/state/no-kept-state";
import { runDrift } from "../../src/usecases/drift";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * `drift` runs the rules declared as drift (`RuleDefinition.drift`), whatever they are: a rule
 * registered at run time is judged in its section when it says it is drift, at its level, and left
 * out when it does not say so or the stack disables it. No list of rule ids to keep up to date.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
`;
const stackText = (policies: string) => `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }
  stackwarden:policies:
    sql-tde-customer-managed-key: { enforcementLevel: disabled }
${policies}`;

/** A toy rule over the TDE protectors that flags every server, declared as drift or not. */
function serverRule(id: string, drift: boolean) {
  return defineRule({
    id,
    title: "toy",
    description: "toy",
    help: "toy",
    defaultLevel: "mandatory",
    facts: [tdeProtectors.key],
    settings: {},
    packScope: "stack",
    ...(drift ? { drift: KEY_CUSTODY_DRIFT } : {}),
    evaluate: (facts, settings) =>
      facts.tdeProtectors.map((p) => ({
        ...findingBase({ id }, p, p.id, `${p.resourceGroup}/${p.server}`, settings.enforcementLevel),
        verdict: "fail" as const,
        message: `${id} flags ${p.server}`,
      })),
  });
}

let t: TestEmulator;
let clients: ClientSet;
beforeAll(async () => {
  registerRule(serverRule("toy-drifting", true));
  registerRule(serverRule("toy-not-drift", false));
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  clients = newClientSet({ STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
});
afterAll(async () => {
  await clients?.close();
  await t?.close();
});

/** The findings of one declared section, by its key. */
const section = (d: Awaited<ReturnType<typeof runDrift>>, key: string) => d.sections.find((s) => s.section.key === key)!.findings;

const drift = (policies = "") =>
  runDrift({
    stack: parseStackConfig("Pulumi.toy.yaml", stackText(policies), {}),
    stackName: "toy",
    clients,
    cwd: tmpdir(),
    state: NO_KEPT_STATE,
  });

describe("runDrift", () => {
  it("compares TDE, and judges a rule declared as drift in its section at its level; one that is not drift is not run", async () => {
    const d = await drift();
    expect(d.tde).toEqual([expect.objectContaining({ label: "rg/s1/orders", live: "Disabled", desired: "Enabled" })]);
    expect(section(d, "keyCustody").map((f) => [f.ruleId, f.level, f.message])).toEqual([
      ["toy-drifting", "mandatory", "toy-drifting flags s1"],
    ]);
    expect(section(d, "tierAdvisor")).toEqual([]);
    expect(d.blocking).toBe(true);
  });

  it("a drift rule the stack disables is not run; one it makes advisory no longer blocks", async () => {
    expect(section(await drift("    toy-drifting: { enforcementLevel: disabled }\n"), "keyCustody")).toEqual([]);
    const advisory = await drift("    toy-drifting: { enforcementLevel: advisory }\n");
    expect(section(advisory, "keyCustody").map((f) => f.level)).toEqual(["advisory"]);
  });
});
