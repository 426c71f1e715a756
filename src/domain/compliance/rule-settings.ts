import { allRules } from "./registry";
import { resolveSettings, ruleSettingsSchema, type ResolvedSettings, type RuleDefinition } from "./rule";

/** Every rule's resolved settings, by rule id. */
export type RuleSettings = Record<string, ResolvedSettings>;

/** What `stackwarden:policies` holds: per rule id, any of its settings. */
export type ConfiguredRuleSettings = Record<string, Record<string, unknown> | undefined>;

/** The JSON Schema of `stackwarden:policies`: one entry per registered rule. */
export function policiesSchema(): { type: "object"; additionalProperties: false; description: string; properties: Record<string, object> } {
  return {
    type: "object",
    additionalProperties: false,
    description: "optional: per-rule enforcement level and thresholds",
    properties: Object.fromEntries(allRules().map((r) => [r.id, ruleSettingsSchema(r)])),
  };
}

/** Merges configured settings over each rule's defaults. */
export function resolveRuleSettings(configured: ConfiguredRuleSettings | undefined): RuleSettings {
  return Object.fromEntries(allRules().map((r) => [r.id, resolveSettings(r, configured?.[r.id])]));
}

/** One rule's resolved settings, typed as the rule declares them (its defaults when the rule was not resolved). */
export function settingsOf<S>(rule: RuleDefinition<S>, all: RuleSettings): ResolvedSettings<S> {
  // resolveSettings filled in every setting the rule declares, so the values have the rule's types.
  return (all[rule.id] ?? resolveSettings(rule as RuleDefinition<unknown>, undefined)) as ResolvedSettings<S>;
}
