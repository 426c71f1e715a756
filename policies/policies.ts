import type { PolicyResource, ReportViolation, ResourceValidationPolicy, StackValidationPolicy } from "@pulumi/policy";
import { UnknownValueError } from "@pulumi/policy";
import { applyExemptions } from "../src/compliance/exemptions";
import { UNKNOWN, type DatabaseFacts, type Maybe, type UsageFacts } from "../src/compliance/facts";
import type { Finding } from "../src/compliance/finding";
import { DEFAULT_RULE_SETTINGS, RULE_SETTINGS_SCHEMAS, type RuleId } from "../src/compliance/rule-settings";
import { batchQuotaHeadroom } from "../src/compliance/rules/batch-quota-headroom";
import { sqlTdeEnabled } from "../src/compliance/rules/sql-tde-enabled";
import { sqlTierAdvisorDrift } from "../src/compliance/rules/sql-tier-advisor-drift";
import { pickAdvisor } from "../src/compliance/gather-facts";
import type { Exemption } from "../src/config/stack-config";
import { STACKWARDEN_KEYS_SCHEMA } from "../src/config/stack-schema";
import { databaseResourceId } from "../src/reconcile/tde-api";

/** Type tokens of the resources the policies look at. */
export const TYPES = {
  tde: "pulumi-nodejs:dynamic/sql:TransparentDataEncryption",
  advisors: "pulumi-nodejs:dynamic/sql:ServiceTierAdvisors",
  usages: "pulumi-nodejs:dynamic/batchai:Usages",
} as const;

/**
 * Each policy's config: the rule's thresholds (enforcement level is CrossGuard's own) and the
 * exemptions of the stack file's schema.
 */
function configSchema(id: RuleId) {
  const rule = RULE_SETTINGS_SCHEMAS[id] as { properties: Record<string, object> };
  const { enforcementLevel: _level, ...thresholds } = rule.properties;
  const defaults = DEFAULT_RULE_SETTINGS[id] as unknown as Record<string, unknown>;
  const properties: Record<string, object> = {};
  for (const [k, v] of Object.entries(thresholds)) properties[k] = { ...v, default: defaults[k] };
  properties.exemptions = STACKWARDEN_KEYS_SCHEMA.properties["stackwarden:exemptions"];
  return { properties };
}

interface PolicyConfig {
  exemptions?: Exemption[];
  [k: string]: unknown;
}

/** Reads a value that may be unknown during a preview. */
function known<T>(read: () => T): Maybe<T> {
  try {
    return read();
  } catch (e) {
    if (e instanceof UnknownValueError) return UNKNOWN;
    throw e;
  }
}

function report(
  findings: Finding[],
  exemptions: Exemption[] | undefined,
  reportViolation: ReportViolation,
  urnOf: (f: Finding) => string | undefined,
): void {
  const { findings: judged } = applyExemptions(findings, exemptions ?? [], Date.now());
  for (const f of judged) if (f.verdict === "fail") reportViolation(f.message, urnOf(f));
}

/** A database's facts from a TDE resource: the status it will have (desired during a preview, live after). */
export function tdeFacts(props: Record<string, unknown>): DatabaseFacts {
  const ref = {
    subscriptionId: String(props.subscriptionId),
    resourceGroup: String(props.resourceGroup),
    server: String(props.server),
    database: String(props.database),
  };
  const live = known(() => props.status as string | undefined);
  if (live !== UNKNOWN && live !== undefined) return { id: databaseResourceId(ref), ...ref, liveTdeStatus: live, advisor: undefined };
  // Before the resource is created or updated (a preview, or Analyze on inputs), judge the status it will have.
  const desired = known(() => props.transparentDataEncryption as string | undefined);
  return { id: databaseResourceId(ref), ...ref, liveTdeStatus: desired, tdeStatusSource: "desired", advisor: undefined };
}

/** A database's facts from a ServiceTierAdvisors data source. */
export function advisorFacts(props: Record<string, unknown>): DatabaseFacts {
  const ref = {
    subscriptionId: String(props.subscriptionId),
    resourceGroup: String(props.resourceGroup),
    server: String(props.server),
    database: String(props.database),
  };
  const advisor = known(() => {
    const list = props.advisors as Parameters<typeof pickAdvisor>[0] | undefined;
    return list ? pickAdvisor(list) : undefined;
  });
  const intended = known(() => props.serviceObjective as string | undefined);
  // An intended tier not known yet (a preview) cannot be compared: judging the current one instead
  // would flag a database the stack is about to move to the recommended tier.
  return {
    id: databaseResourceId(ref),
    ...ref,
    liveTdeStatus: undefined,
    intendedServiceObjective: intended === UNKNOWN ? undefined : intended,
    advisor: intended === UNKNOWN ? UNKNOWN : advisor,
  };
}

/** The usages of one Batch AI Usages data source. */
export function usageFacts(props: Record<string, unknown>): UsageFacts[] | typeof UNKNOWN {
  const list = known(
    () =>
      props.usages as
        { name?: { value?: string; localizedValue?: string }; currentValue?: number; limit?: number; unit?: string }[] | undefined,
  );
  if (list === UNKNOWN) return UNKNOWN;
  const location = String(props.location);
  return (list ?? []).map((u) => ({
    location,
    name: u.name?.value ?? "unknown",
    displayName: u.name?.localizedValue,
    currentValue: u.currentValue,
    limit: u.limit,
    unit: u.unit,
  }));
}

export const sqlTdeEnabledPolicy: ResourceValidationPolicy = {
  name: "sql-tde-enabled",
  description: "SQL databases must have transparent data encryption Enabled (master is never flagged).",
  enforcementLevel: DEFAULT_RULE_SETTINGS["sql-tde-enabled"].enforcementLevel,
  configSchema: configSchema("sql-tde-enabled"),
  validateResource: (args, reportViolation) => {
    if (args.type !== TYPES.tde) return;
    const f = sqlTdeEnabled(tdeFacts(args.props), { enforcementLevel: "mandatory" });
    report([f], args.getConfig<PolicyConfig>().exemptions, reportViolation, () => undefined);
  },
};

export const sqlTierAdvisorDriftPolicy: StackValidationPolicy = {
  name: "sql-tier-advisor-drift",
  description: "SQL databases should run at the service objective their tier advisor recommends with high confidence.",
  enforcementLevel: DEFAULT_RULE_SETTINGS["sql-tier-advisor-drift"].enforcementLevel,
  configSchema: configSchema("sql-tier-advisor-drift"),
  validateStack: (args, reportViolation) => {
    const cfg = args.getConfig<PolicyConfig & { minConfidence: number; maxObservationAgeDays: number }>();
    const settings = {
      enforcementLevel: "advisory" as const,
      minConfidence: cfg.minConfidence ?? 0.8,
      maxObservationAgeDays: cfg.maxObservationAgeDays ?? 30,
    };
    const byId = new Map<string, PolicyResource>();
    const findings = args.resources
      .filter((r) => r.type === TYPES.advisors)
      .map((r) => {
        const facts = advisorFacts(r.props);
        byId.set(facts.id, r);
        return sqlTierAdvisorDrift(facts, settings, Date.now());
      });
    report(findings, cfg.exemptions, reportViolation, (f) => byId.get(f.resourceId)?.urn);
  },
};

export const batchQuotaHeadroomPolicy: StackValidationPolicy = {
  name: "batch-quota-headroom",
  description: "Batch AI usages must stay below a share of their limits.",
  enforcementLevel: DEFAULT_RULE_SETTINGS["batch-quota-headroom"].enforcementLevel,
  configSchema: configSchema("batch-quota-headroom"),
  validateStack: (args, reportViolation) => {
    const cfg = args.getConfig<PolicyConfig & { threshold: number }>();
    const settings = { enforcementLevel: "advisory" as const, threshold: cfg.threshold ?? 0.8 };
    const findings: Finding[] = [];
    const urnOf = new Map<string, string>();
    for (const r of args.resources.filter((x) => x.type === TYPES.usages)) {
      const usages = usageFacts(r.props);
      if (usages === UNKNOWN) continue;
      const sub = String(r.props.subscriptionId);
      for (const u of usages) {
        const f = batchQuotaHeadroom(sub, u, settings);
        urnOf.set(f.resourceId, r.urn);
        findings.push(f);
      }
    }
    report(findings, cfg.exemptions, reportViolation, (f) => urnOf.get(f.resourceId));
  },
};

/** Every policy, in rule-id order. */
export const POLICIES = [sqlTdeEnabledPolicy, sqlTierAdvisorDriftPolicy, batchQuotaHeadroomPolicy];
