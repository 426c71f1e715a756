import type { Finding } from "./finding";

/**
 * A section of `drift`'s reports, declared by the rules whose findings go there
 * (`RuleDefinition.drift`). `drift`, its reports and its command render every section a registered
 * rule declares, in the order of the first rule (in registry order) that declares it; no list of
 * sections is kept anywhere else. Rules that share a section share one declaration of it.
 */
export interface DriftSection {
  /** Its key in drift's JSON (camelCase, stable: pipelines read it), e.g. `keyCustody`. */
  key: string;
  /** Its heading in Markdown (followed by a colon), e.g. `Key custody`. */
  heading: string;
  /**
   * Optional, default true: each entry names its rule (`ruleId` in JSON, the id in Markdown). A
   * section that one rule fills may leave it out, as `tierAdvisor` always has.
   */
  namesRule?: boolean;
}

/** A declared section with what `drift` found for it: the failures and exempt findings of its enabled rules. */
export interface DriftSectionFindings {
  section: DriftSection;
  findings: Finding[];
}

/** The keys drift's JSON uses for its own fields: no section may take one. */
export const DRIFT_REPORT_KEYS: readonly string[] = ["stack", "file", "transparentDataEncryption", "errors"];

/** Declares a section; the identity function, there for the type checking. */
export function defineDriftSection(section: DriftSection): DriftSection {
  return section;
}

/**
 * The sections some of the rules declare, each once, in the order of the first rule that declares
 * it. Throws when a key is not camelCase, is one of drift's own fields, or is declared twice with
 * another heading or `namesRule`: two rules reporting under one key must agree on how it reads.
 */
export function driftSectionsOf(rules: readonly { id: string; drift?: DriftSection }[]): DriftSection[] {
  const byKey = new Map<string, { section: DriftSection; rule: string }>();
  for (const rule of rules) {
    const s = rule.drift;
    if (!s) continue;
    // Before sections were declared, a rule named one of two by a string: say what it takes now.
    if (typeof s !== "object")
      throw new Error(
        `rule "${rule.id}": drift must be a section declared with defineDriftSection({ key, heading }) (the key-custody rules share KEY_CUSTODY_DRIFT), not ${JSON.stringify(s)}`,
      );
    if (!/^[a-z][a-zA-Z0-9]*$/.test(s.key))
      throw new Error(`rule "${rule.id}": drift section key "${s.key}" must be camelCase (it is a JSON key of drift's report)`);
    if (DRIFT_REPORT_KEYS.includes(s.key))
      throw new Error(
        `rule "${rule.id}": drift section key "${s.key}" is one of drift's own JSON fields (${DRIFT_REPORT_KEYS.join(", ")})`,
      );
    if (!s.heading.trim()) throw new Error(`rule "${rule.id}": drift section "${s.key}" must have a heading`);
    const seen = byKey.get(s.key);
    if (!seen) byKey.set(s.key, { section: s, rule: rule.id });
    else if (seen.section.heading !== s.heading || (seen.section.namesRule ?? true) !== (s.namesRule ?? true))
      throw new Error(
        `rule "${rule.id}" declares drift section "${s.key}" unlike rule "${seen.rule}" does: share one declaration (defineDriftSection)`,
      );
  }
  return [...byKey.values()].map((v) => v.section);
}
