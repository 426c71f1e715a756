import type { Control } from "./control";
import type { DriftSection } from "./drift-section";
import { ENFORCEMENT_LEVELS, type EnforcementLevel } from "./enforcement-level";
import type { ComplianceFacts, FactOrigin } from "../facts/model/compliance-facts";
import type { Finding } from "./finding";

export type { EnforcementLevel };

/** The JSON Schema of one rule setting (a threshold); `default` is required, so defaults live in one place. */
export interface SettingSchema {
  type: "number" | "integer" | "string" | "boolean";
  default: number | string | boolean;
  description: string;
  [keyword: string]: unknown;
}

/** A rule's settings once resolved: its level plus every threshold, defaults filled in. */
export type ResolvedSettings<S = Record<string, unknown>> = S & { enforcementLevel: EnforcementLevel };

/**
 * One compliance rule, declared in one module: everything else (the stack schema's
 * `stackwarden:policies` section, SARIF's rule list, JUnit suites, the CrossGuard policies and their
 * config schemas) is derived from this declaration.
 */
export interface RuleDefinition<S = Record<string, unknown>> {
  /** Stable: it is the SARIF `ruleId`, the policy name and the key under `stackwarden:policies`. Kebab-case. */
  id: string;
  /** One line, phrased as the requirement ("SQL databases must …"): SARIF's short description, the policy's description. */
  title: string;
  /** What exactly is flagged and what is not: SARIF's full description. */
  description: string;
  /** What to do about a finding: SARIF's help. */
  help: string;
  defaultLevel: EnforcementLevel;
  /**
   * The fact kinds the rule judges (keys of the fact-kind registry: `databases`, `placements` …):
   * `check`, watch ticks and the pack gather only the kinds an enabled rule names.
   */
  facts: readonly string[];
  /** The rule's own settings (thresholds), each with its default. */
  settings: { [K in keyof S]: SettingSchema };
  /**
   * How the policy pack runs it: `resource` judges each resource as the engine registers it (so a
   * mandatory violation stops that resource before it changes); `stack` judges all resources at the end.
   */
  packScope: "resource" | "stack";
  /**
   * Optional: the rule judges live state that can drift under a stack (outside what the stack
   * applies), so `drift` runs it and reports its failures and exempt findings in this section (its
   * JSON key and Markdown heading, declared with `defineDriftSection`; a new section needs no other
   * change), each at its level (a mandatory failure makes drift exit 2). Absent: `drift` does not
   * run it.
   */
  drift?: DriftSection;
  /**
   * Optional: the controls of published frameworks (CIS benchmarks, Azure Policy definitions) the
   * rule gives evidence for, each cited in the rule's module. Reports file findings under them.
   */
  controls?: readonly Control[];
  /**
   * Pure: the findings over the facts, one per judged subject. `now` is passed in. A finding's
   * `level` is the rule's configured level (`settings.enforcementLevel`) or, for a finding that must
   * count less than the rule's others (an advisory one beside mandatory ones), a lower level of its
   * own: `check`, `drift`, watch and the pack count each finding at its level, never above the
   * configured one (`evaluateRule` caps it).
   */
  evaluate(facts: ComplianceFacts, settings: ResolvedSettings<S>, now: number): Finding[];
}

/** Declares a rule; the identity function, there for the type checking. */
export function defineRule<S>(rule: RuleDefinition<S>): RuleDefinition<S> {
  return rule;
}

/** `sql-tde-enabled` → `SqlTdeEnabled`: the SARIF rule name. */
export function ruleName(id: string): string {
  return id
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
}

/** The JSON Schema of a rule's entry under `stackwarden:policies` (and, without the level, its pack config). */
export function ruleSettingsSchema(rule: RuleDefinition<unknown>): {
  type: "object";
  additionalProperties: false;
  properties: Record<string, object>;
} {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      enforcementLevel: {
        type: "string",
        enum: ENFORCEMENT_LEVELS,
        description: "advisory (report only), mandatory (fails check and pulumi up) or disabled",
      },
      ...(rule.settings as Record<string, SettingSchema>),
    },
  };
}

/** A rule's settings: the configured values over the schema's defaults, the level over the rule's default. */
export function resolveSettings(rule: RuleDefinition<unknown>, configured: Record<string, unknown> | undefined): ResolvedSettings {
  const defaults: Record<string, unknown> = {};
  for (const [k, schema] of Object.entries(rule.settings as Record<string, SettingSchema>)) defaults[k] = schema.default;
  return { ...defaults, enforcementLevel: rule.defaultLevel, ...configured } as ResolvedSettings;
}

/** The part of a finding every rule fills the same way from the fact it judges. */
export function findingBase(
  rule: { id: string },
  fact: FactOrigin,
  resourceId: string,
  label: string,
  level: EnforcementLevel,
): Pick<Finding, "ruleId" | "resourceId" | "label" | "level" | "source" | "origin"> {
  return { ruleId: rule.id, resourceId, label, level, source: fact.source, origin: fact.origin };
}
