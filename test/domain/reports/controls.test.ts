import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { allRules } from "../../../src/domain/compliance/registry";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import { keyVaultFactsOf } from "../../../src/domain/facts/key-vaults";
import { protectorKeyFactsOf } from "../../../src/domain/facts/protector-keys";
import { protectorFactsOf } from "../../../src/domain/facts/tde-protectors";
import { stackServers } from "../../../src/domain/facts/key-custody-reads";
import { renderComplianceMarkdown } from "../../../src/domain/reports/compliance-markdown";
import { complianceDocument } from "../../../src/domain/reports/compliance-report";
import { renderSarif } from "../../../src/domain/reports/sarif-report";
import { NOW, reportInput, SUB } from "./report-fixture";
import { emptyFacts } from "../../../src/domain/facts/gather";

/**
 * Controls in the reports: SARIF files each rule under the controls it declares (run.taxonomies with
 * the taxa, the rule's relationships to them, tags), valid against the official schema in specs/sarif;
 * JSON and Markdown add a per-control summary of passes, failures and exemptions.
 */
const schema = JSON.parse(readFileSync(join(__dirname, "../../../specs/sarif/sarif-schema-2.1.0.json"), "utf8")) as Record<string, unknown>;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(schema);

const DAY = 86_400;

/** The report fixture's stack, plus: sql-prod-1 service-managed; sql-prod-2 customer-managed, its vault without purge protection. */
function input() {
  const base = reportInput();
  const servers = stackServers({
    subscriptionId: SUB,
    databases: [
      ...base.stack.databases,
      { resourceGroup: "rg-data", server: "sql-prod-2", database: "billing", transparentDataEncryption: "Enabled" },
    ],
  });
  const uri = "https://kv-tde.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef";
  const facts: ComplianceFacts = {
    ...emptyFacts(SUB),
    databases: [],
    tdeProtectors: [
      protectorFactsOf(servers[0], {
        protector: { id: `${servers[0].id}/encryptionProtector/current`, properties: { serverKeyType: "ServiceManaged" } },
      }),
      protectorFactsOf(servers[1], {
        protector: { id: `${servers[1].id}/encryptionProtector/current`, properties: { serverKeyType: "AzureKeyVault", uri } },
      }),
    ],
    keyVaults: [
      keyVaultFactsOf("kv-tde", SUB, {
        vault: {
          id: `/subscriptions/${SUB}/resourceGroups/rg-sec/providers/Microsoft.KeyVault/vaults/kv-tde`,
          properties: { enableSoftDelete: true },
        },
      }),
    ],
    protectorKeys: [
      protectorKeyFactsOf(
        { vaultName: "kv-tde", keyName: "tde", version: "0123456789abcdef0123456789abcdef" },
        { key: { id: "k", properties: { kty: "RSA", keySize: 2048, attributes: { enabled: true, exp: NOW / 1000 + 400 * DAY } } } },
      ),
    ],
  };
  const result = evaluateCompliance(facts, resolveRuleSettings(undefined), [], NOW);
  return { ...base, result };
}

interface Taxon {
  id: string;
  name: string;
  shortDescription: { text: string };
}
interface SarifRun {
  tool: {
    driver: {
      rules: {
        id: string;
        relationships?: { target: { id: string; index: number; toolComponent: { name: string; index: number } }; kinds: string[] }[];
        properties: { tags: string[] };
      }[];
      supportedTaxonomies: { name: string; index: number }[];
    };
  };
  taxonomies: { name: string; version: string; taxa: Taxon[] }[];
  results: { ruleId: string; level: string }[];
}

describe("controls in the reports", () => {
  const sarif = JSON.parse(renderSarif(input())) as { runs: SarifRun[] };
  const run = sarif.runs[0];

  it("SARIF stays valid against specs/sarif with taxonomies, relationships and tags", () => {
    expect(validate(sarif), ajv.errorsText(validate.errors)).toBe(true);
  });

  it("each framework at its version is one taxonomy, each control one taxon", () => {
    const cis = run.taxonomies.find((t) => t.name === "CIS Microsoft Azure Foundations Benchmark")!;
    expect(cis.version).toBe("2.0.0");
    // Every CIS control a registered rule declares, once, in the rules' order (a new rule's control needs no word here).
    const declared = [
      ...new Set(
        allRules().flatMap((r) => (r.controls ?? []).filter((c) => c.framework === cis.name && c.version === cis.version).map((c) => c.id)),
      ),
    ];
    expect(cis.taxa.map((t) => t.id)).toEqual(declared);
    expect(declared).toEqual(expect.arrayContaining(["4.1.5", "4.1.3", "8.5", "8.1", "8.2"]));
    expect(cis.taxa.find((t) => t.id === "4.1.3")!.shortDescription.text).toBe(
      "Ensure SQL server's Transparent Data Encryption (TDE) protector is encrypted with Customer-managed key",
    );
    const policyIds = run.taxonomies.filter((t) => t.name === "Azure Policy").flatMap((t) => t.taxa.map((x) => x.id));
    expect(policyIds).toEqual(
      expect.arrayContaining([
        "17k78e20-9358-41c9-923c-fb736d382a12",
        "0a370ff3-6cab-4e85-8995-295fd854c5b8",
        "0b60c0b2-2dc2-4e1c-b5c9-abbed971de53",
        "152b15f7-8e1f-4c1f-ab71-8c010ba5dbc0",
        "d8cf8476-a2ec-4916-896e-992351803c44",
      ]),
    );
    expect(new Set(policyIds).size).toBe(policyIds.length);
    expect(run.tool.driver.supportedTaxonomies).toEqual(run.taxonomies.map((t, index) => ({ name: t.name, index })));
  });

  it("every rule's relationships point at the taxa of the controls it declares; tags name them", () => {
    for (const rule of allRules()) {
      const declared = rule.controls ?? [];
      const r = run.tool.driver.rules.find((x) => x.id === rule.id)!;
      expect(r.relationships ?? []).toHaveLength(declared.length);
      for (const rel of r.relationships ?? []) {
        const taxonomy = run.taxonomies[rel.target.toolComponent.index];
        expect(taxonomy.name).toBe(rel.target.toolComponent.name);
        expect(taxonomy.taxa[rel.target.index].id).toBe(rel.target.id);
      }
    }
    const cmk = run.tool.driver.rules.find((x) => x.id === "sql-tde-customer-managed-key")!;
    expect(cmk.properties.tags).toEqual([
      "security",
      "compliance",
      "cis-azure-2.0.0/4.1.3",
      "azure-policy/0a370ff3-6cab-4e85-8995-295fd854c5b8",
    ]);
    expect(run.tool.driver.rules.find((x) => x.id === "sql-tde-enabled")!.properties.tags).toContain("cis-azure-2.0.0/4.1.5");
  });

  it("SARIF results of the key rules: the service-managed server as a warning, the vault without purge protection as an error", () => {
    expect(
      run.results
        .filter((r) => r.ruleId !== "batch-quota-headroom" && r.ruleId !== "sql-tier-advisor-drift")
        .map((r) => `${r.ruleId}:${r.level}`),
    ).toEqual(["sql-tde-customer-managed-key:warning", "tde-key-vault-recoverable:error"]);
  });

  it("JSON: one summary per control, counting its rules' passes, failures and exemptions", () => {
    const doc = complianceDocument(input());
    const c413 = doc.controls.find((c) => c.framework.startsWith("CIS") && c.id === "4.1.3")!;
    expect(c413).toMatchObject({
      version: "2.0.0",
      // Azure Policy judges 4.1.3 on the protector's key type alone: the vault and key rules are not its evidence.
      rules: ["sql-tde-customer-managed-key"],
      // sql-prod-1: service-managed, fail; sql-prod-2: customer-managed, pass.
      pass: 1,
      fail: 1,
      exempt: 0,
    });
    const cis = (id: string) => doc.controls.find((c) => c.framework.startsWith("CIS") && c.id === id)!;
    // sql-prod-2's vault has no purge protection; its key expires and is valid (sql-prod-1's are not applicable).
    expect(cis("8.5")).toMatchObject({ rules: ["tde-key-vault-recoverable"], pass: 0, fail: 1 });
    expect(cis("8.1")).toMatchObject({
      title: "Ensure that the Expiration Date is set for all Keys in RBAC Key Vaults",
      rules: ["tde-key-validity"],
      pass: 1,
      fail: 0,
    });
    expect(cis("8.2")).toMatchObject({ rules: ["tde-key-validity"], pass: 1, fail: 0 });
    const purge = doc.controls.find((c) => c.id === "0b60c0b2-2dc2-4e1c-b5c9-abbed971de53")!;
    expect(purge).toMatchObject({ framework: "Azure Policy", version: "2.1.0", pass: 0, fail: 1, exempt: 0 });
    const tde = doc.controls.find((c) => c.id === "4.1.5")!;
    expect(tde).toMatchObject({ rules: ["sql-tde-enabled"], pass: 0, fail: 0, exempt: 0 });
    // The report fixture's own evaluation: orders fails, legacy is exempt, customers passes.
    const fixture = complianceDocument(reportInput()).controls.find((c) => c.id === "4.1.5")!;
    expect(fixture).toMatchObject({ pass: 1, fail: 1, exempt: 1 });
  });

  it("Markdown: a Controls table with the same counts", () => {
    const md = renderComplianceMarkdown(reportInput());
    expect(md).toContain("<details><summary>Controls</summary>");
    expect(md).toContain("| framework | control | title | pass | fail | exempt |");
    expect(md).toMatch(
      /\| CIS Microsoft Azure Foundations Benchmark 2\.0\.0 \| \[4\.1\.5\]\(https:\/\/www\.cisecurity\.org\/benchmark\/azure\) \| Ensure that 'Data encryption' is set to 'On' on a SQL Database \| 1 \| 1 \| 1 \|/,
    );
  });
});
