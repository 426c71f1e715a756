import { controlKey, type Control } from "../compliance/control";
import type { RuleDefinition } from "../compliance/rule";

/** A SARIF taxonomy (a toolComponent of `run.taxonomies`): one framework at one version, with its controls as taxa. */
interface Taxonomy {
  name: string;
  version: string;
  informationUri?: string;
  taxa: { id: string; name: string; shortDescription: { text: string }; helpUri?: string }[];
}

/** What the SARIF log needs to file rules under controls, the SARIF way (SARIF 2.1.0 §3.19.3, §3.49.15, §3.53). */
export interface SarifControls {
  /** `run.taxonomies`: one per framework and version, each control once. */
  taxonomies: Taxonomy[];
  /** `tool.driver.supportedTaxonomies`: a reference to each. */
  supportedTaxonomies: { name: string; index: number }[];
  /** A rule's `relationships` to the taxa of its controls. */
  relationshipsOf(rule: RuleDefinition<unknown>): object[];
  /** Tags naming a rule's controls, for code-scanning UIs (`cis-azure-2.0.0/4.1.3`, `azure-policy/0a370ff3-…`). */
  tagsOf(rule: RuleDefinition<unknown>): string[];
}

/** The taxonomies of the rules' controls, and each rule's relationships and tags to them. */
export function sarifControls(rules: readonly RuleDefinition<unknown>[]): SarifControls {
  const taxonomies: Taxonomy[] = [];
  const where = new Map<string, { taxonomy: number; taxon: number }>();
  for (const rule of rules) {
    for (const c of rule.controls ?? []) {
      if (where.has(controlKey(c))) continue;
      let t = taxonomies.findIndex((x) => x.name === c.framework && x.version === c.version);
      if (t < 0) {
        t = taxonomies.push({ name: c.framework, version: c.version, ...frameworkUri(c), taxa: [] }) - 1;
      }
      const taxa = taxonomies[t].taxa;
      where.set(controlKey(c), { taxonomy: t, taxon: taxa.length });
      taxa.push({ id: c.id, name: c.title, shortDescription: { text: c.title }, ...(c.uri ? { helpUri: c.uri } : {}) });
    }
  }
  return {
    taxonomies,
    supportedTaxonomies: taxonomies.map((t, index) => ({ name: t.name, index })),
    relationshipsOf: (rule) =>
      (rule.controls ?? []).map((c) => {
        const at = where.get(controlKey(c))!;
        return {
          target: { id: c.id, index: at.taxon, toolComponent: { name: c.framework, index: at.taxonomy } },
          kinds: ["relevant"],
          description: { text: `${rule.id} gives evidence for ${c.framework} ${c.version} ${c.id}` },
        };
      }),
    tagsOf: (rule) => (rule.controls ?? []).map(controlTag),
  };
}

/** A control as one tag: `cis-azure-2.0.0/4.1.3`, `azure-policy/0a370ff3-…`. */
export function controlTag(c: Control): string {
  if (c.framework.startsWith("CIS Microsoft Azure Foundations")) return `cis-azure-${c.version}/${c.id}`;
  return `${c.framework.toLowerCase().replace(/\s+/g, "-")}/${c.id}`;
}

/** A CIS benchmark's own page is the framework's; a policy definition's file is the control's, not the framework's. */
function frameworkUri(c: Control): { informationUri?: string } {
  return c.framework === "Azure Policy"
    ? { informationUri: "https://learn.microsoft.com/azure/governance/policy/samples/built-in-policies" }
    : c.uri
      ? { informationUri: c.uri }
      : {};
}
