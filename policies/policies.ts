import type { PolicyResource, ReportViolation, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import type { Exemption } from "../src/domain/compliance/declared-exemption";
import { allRules } from "../src/domain/compliance/registry";
import { resolveSettings, ruleSettingsSchema, type RuleDefinition } from "../src/domain/compliance/rule";
import { stackKeysSchema } from "../src/domain/stack/stack-schema";
import { clientSetFromEnv, type ClientSet } from "../src/clients/client-set";
import type { ResourceInput } from "../src/domain/facts/fact-kind";
import { checkResources } from "../src/usecases/check";
import { scopeExemptionsOf } from "../src/domain/facts/databases-in-scope";
import { findFactKind } from "../src/domain/facts/registry";
import { PACK_JUDGING_LEVEL, reportFinding } from "./finding-violation";
import { known } from "./known";

/**
 * Each policy's config: the rule's thresholds with their defaults (the enforcement level is
 * CrossGuard's own) and the exemptions of the stack file's schema.
 */
export function policyConfigSchema(rule: RuleDefinition<unknown>): { properties: Record<string, object> } {
  const { enforcementLevel: _level, ...thresholds } = ruleSettingsSchema(rule).properties;
  return { properties: { ...thresholds, exemptions: stackKeysSchema().properties["stackwarden:exemptions"] } };
}

let clients: ClientSet | undefined;

/**
 * The analyzer's clients, built once: the engine calls every resource policy for every resource,
 * and deriving the shared set's key from the environment each time was half the pack's own time
 * per resource (the pack-1000 bench's profile). The analyzer's environment does not change.
 */
function packClients(): ClientSet {
  return (clients ??= clientSetFromEnv());
}

interface PolicyConfig {
  exemptions?: Exemption[];
  [k: string]: unknown;
}

/**
 * Judges the facts with the rule (its thresholds from the policy config over the rule's defaults),
 * applies the config's exemptions (and the stack scope's, carried by `sql:DatabasesInScope`), and reports each failure on the resource its fact came from, at
 * the policy's level or at the finding's own lower one.
 */
async function judge(
  rule: RuleDefinition<unknown>,
  resources: readonly ResourceInput[],
  config: PolicyConfig,
  reportViolation: ReportViolation,
): Promise<void> {
  const { exemptions, ...thresholds } = config;
  // CrossGuard decides whether and how hard a violation of the policy counts (disabled policies are
  // not run); the rule judges at the strictest level, so a finding it puts lower stands out.
  const settings = { ...resolveSettings(rule, thresholds), enforcementLevel: PACK_JUDGING_LEVEL };
  // Only the kinds this rule judges: a fact kind that fails to build (geocoding refused) fails the
  // policies that read it, not every policy of the pack.
  const context = { known, clients: packClients() };
  const { findings } = await checkResources({
    rules: [rule],
    resources,
    settings: { [rule.id]: settings },
    // The config's, and the stack scope's of the databases in scope (as check applies them).
    exemptions: [...(exemptions ?? []), ...(await scopeExemptionsOf(resources, context))],
    context,
  });
  for (const f of findings) if (f.verdict === "fail") reportFinding(rule, f, reportViolation);
}

/**
 * The resource types a rule's facts are built from, when each of its kinds declares its own
 * (`FactKind.resourceTypes`); undefined when one may read any type. Looked up on the first call,
 * after every kind is registered.
 */
function typesJudgedBy(rule: RuleDefinition<unknown>): ReadonlySet<string> | undefined {
  const types = new Set<string>();
  for (const key of rule.facts) {
    const declared = findFactKind(key)?.resourceTypes;
    if (!declared) return undefined;
    for (const t of declared) types.add(t);
  }
  return types;
}

/**
 * The CrossGuard policy of a rule: name, description, level and config schema from its
 * declaration. Its level is the rule's default: the level of its findings at the rule's level; a
 * finding the rule reports lower is reported at its own (finding-violation.ts).
 */
export function policyOf(rule: RuleDefinition<unknown>): ResourceValidationPolicy | StackValidationPolicy {
  const common = {
    name: rule.id,
    description: rule.title,
    enforcementLevel: rule.defaultLevel,
    configSchema: policyConfigSchema(rule),
  };
  if (rule.packScope === "resource") {
    let judged: ReadonlySet<string> | undefined | null = null;
    const policy: ResourceValidationPolicy = {
      ...common,
      validateResource: (args, reportViolation) => {
        // The engine asks every resource policy about every resource: a type none of the rule's
        // kinds reads adds no fact, so it passes before its properties are read (as it would after).
        if (judged === null) judged = typesJudgedBy(rule);
        if (judged && !judged.has(args.type)) return;
        // Reported on the resource being validated: its facts carry no origin.
        return judge(rule, [{ type: args.type, props: args.props }], args.getConfig<PolicyConfig>(), reportViolation);
      },
    };
    return policy;
  }
  const policy: StackValidationPolicy = {
    ...common,
    validateStack: (args, reportViolation) =>
      judge(rule, args.resources.map(resourceInputOf), args.getConfig<PolicyConfig>(), reportViolation),
  };
  return policy;
}

/** A stack policy's resource as the fact kinds take it: with the URNs each property's value flows from (a user's program is followed through them). */
function resourceInputOf(r: PolicyResource): ResourceInput {
  const dependsOn = Object.fromEntries(Object.entries(r.propertyDependencies ?? {}).map(([k, rs]) => [k, rs.map((d) => d.urn)]));
  return { type: r.type, props: r.props, urn: r.urn, dependsOn };
}

/** Every registered rule's policy, in registry order (read when the pack is built). */
export function policies(): (ResourceValidationPolicy | StackValidationPolicy)[] {
  return allRules().map(policyOf);
}
