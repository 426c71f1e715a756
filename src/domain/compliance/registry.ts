import { driftSectionsOf } from "./drift-section";
import type { RuleDefinition } from "./rule";
import { artifactPacked } from "./rules/artifact-packed";
import { artifactSignatureClean } from "./rules/artifact-signature-clean";
import { batchQuotaHeadroom } from "./rules/batch-quota-headroom";
import { dataResidency } from "./rules/data-residency";
import { postDeployProbes } from "./rules/post-deploy-probes";
import { sqlTdeEnabled } from "./rules/sql-tde-enabled";
import { sqlTdeCustomerManagedKey } from "./rules/sql-tde-customer-managed-key";
import { sqlTierAdvisorDrift } from "./rules/sql-tier-advisor-drift";
import { tdeKeyAccess } from "./rules/tde-key-access";
import { tdeKeyValidity } from "./rules/tde-key-validity";
import { tdeKeyVaultRecoverable } from "./rules/tde-key-vault-recoverable";

/**
 * Every rule, in report order. Adding a rule is one module under `rules/` plus one line here; the
 * stack schema, reports and the policy pack read this list.
 */
const RULES: RuleDefinition<unknown>[] = [
  sqlTdeEnabled as RuleDefinition<unknown>,
  sqlTierAdvisorDrift as RuleDefinition<unknown>,
  batchQuotaHeadroom as RuleDefinition<unknown>,
  artifactSignatureClean as RuleDefinition<unknown>,
  artifactPacked as RuleDefinition<unknown>,
  postDeployProbes as RuleDefinition<unknown>,
  dataResidency as RuleDefinition<unknown>,
  sqlTdeCustomerManagedKey as RuleDefinition<unknown>,
  tdeKeyVaultRecoverable as RuleDefinition<unknown>,
  tdeKeyValidity as RuleDefinition<unknown>,
  tdeKeyAccess as RuleDefinition<unknown>,
];

let version = 0;

/** The registered rules, in report order. */
export function allRules(): readonly RuleDefinition<unknown>[] {
  return RULES;
}

/** The registered rule ids, in report order. */
export function ruleIds(): string[] {
  return RULES.map((r) => r.id);
}

/** A rule by id, if registered. */
export function findRule(id: string): RuleDefinition<unknown> | undefined {
  return RULES.find((r) => r.id === id);
}

/**
 * Adds a rule at run time (an organisation's own rule, or a test's): it then appears wherever the
 * built-in ones do. Load it before the stack file is read or the policy pack is built.
 */
export function registerRule<S>(rule: RuleDefinition<S>): void {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(rule.id)) throw new Error(`rule id "${rule.id}" must be kebab-case (it is a SARIF ruleId)`);
  if (!Array.isArray(rule.facts) || rule.facts.length === 0)
    throw new Error(`rule "${rule.id}" must name the fact kinds it judges (facts: ["databases", …])`);
  if (findRule(rule.id)) throw new Error(`a rule with the id "${rule.id}" is already registered`);
  // Its drift section, if it declares one, must be a valid key and agree with the same key's other rules.
  driftSectionsOf([...RULES, rule as RuleDefinition<unknown>]);
  RULES.push(rule as RuleDefinition<unknown>);
  version += 1;
}

/** Changes whenever a rule is registered, so schemas derived from the registry know to rebuild. */
export function registryVersion(): number {
  return version;
}

/** The rule a TDE write answers to: a scope exemption from it holds a discovered database's write (usecases/scope.ts). */
export function tdeWriteRuleId(): string {
  return sqlTdeEnabled.id;
}
