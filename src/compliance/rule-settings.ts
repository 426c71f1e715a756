/** The contract's rule ids; they are SARIF ruleIds, so they never change. */
export const RULE_IDS = ["sql-tde-enabled", "sql-tier-advisor-drift", "batch-quota-headroom"] as const;
export type RuleId = (typeof RULE_IDS)[number];

export type EnforcementLevel = "advisory" | "mandatory" | "disabled";
export const ENFORCEMENT_LEVELS: readonly EnforcementLevel[] = ["advisory", "mandatory", "disabled"];

export interface TdeEnabledSettings {
  enforcementLevel: EnforcementLevel;
}
export interface TierAdvisorDriftSettings {
  enforcementLevel: EnforcementLevel;
  minConfidence: number;
  maxObservationAgeDays: number;
}
export interface QuotaHeadroomSettings {
  enforcementLevel: EnforcementLevel;
  threshold: number;
}

export interface RuleSettings {
  "sql-tde-enabled": TdeEnabledSettings;
  "sql-tier-advisor-drift": TierAdvisorDriftSettings;
  "batch-quota-headroom": QuotaHeadroomSettings;
}

/** Defaults of every rule's settings (the contract's default levels). */
export const DEFAULT_RULE_SETTINGS: RuleSettings = {
  "sql-tde-enabled": { enforcementLevel: "mandatory" },
  "sql-tier-advisor-drift": { enforcementLevel: "advisory", minConfidence: 0.8, maxObservationAgeDays: 30 },
  "batch-quota-headroom": { enforcementLevel: "advisory", threshold: 0.8 },
};

const level = {
  type: "string",
  enum: ENFORCEMENT_LEVELS,
  description: "advisory (report only), mandatory (fails check and pulumi up) or disabled",
};

/** JSON Schemas of each rule's settings; shared by the stack config and the policy pack's config. */
export const RULE_SETTINGS_SCHEMAS: Record<RuleId, object> = {
  "sql-tde-enabled": {
    type: "object",
    additionalProperties: false,
    properties: { enforcementLevel: level },
  },
  "sql-tier-advisor-drift": {
    type: "object",
    additionalProperties: false,
    properties: {
      enforcementLevel: level,
      minConfidence: {
        type: "number",
        minimum: 0,
        maximum: 1,
        description: "optional, default 0.8: the advisor's confidence at or above which a differing recommendation is flagged",
      },
      maxObservationAgeDays: {
        type: "number",
        exclusiveMinimum: 0,
        description: "optional, default 30: ignore advisor output whose observation period ended longer ago",
      },
    },
  },
  "batch-quota-headroom": {
    type: "object",
    additionalProperties: false,
    properties: {
      enforcementLevel: level,
      threshold: {
        type: "number",
        exclusiveMinimum: 0,
        maximum: 1,
        description: "optional, default 0.8: flag a usage at or above this share of its limit",
      },
    },
  },
};

/** Merges configured settings over the defaults. */
export function resolveRuleSettings(configured: Partial<{ [K in RuleId]: Partial<RuleSettings[K]> }> | undefined): RuleSettings {
  return {
    "sql-tde-enabled": { ...DEFAULT_RULE_SETTINGS["sql-tde-enabled"], ...configured?.["sql-tde-enabled"] },
    "sql-tier-advisor-drift": { ...DEFAULT_RULE_SETTINGS["sql-tier-advisor-drift"], ...configured?.["sql-tier-advisor-drift"] },
    "batch-quota-headroom": { ...DEFAULT_RULE_SETTINGS["batch-quota-headroom"], ...configured?.["batch-quota-headroom"] },
  };
}
