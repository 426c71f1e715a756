import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { isExemptionActive } from "../../../src/domain/compliance/exemption-application";
import { batchUsagesId } from "../../../src/platform/arm/resource-id";
import { UNKNOWN } from "../../../src/platform/unknown-value";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import type { AdvisorFacts, TierAdvisorFacts } from "../../../src/domain/facts/tier-advice";
import type { DatabaseFacts } from "../../../src/domain/facts/tde-status";
import type { UsageFacts } from "../../../src/domain/facts/batch-usages";
import type { Verdict } from "../../../src/domain/compliance/finding";
import { findRule, ruleIds } from "../../../src/domain/compliance/registry";
import { ruleSettingsSchema } from "../../../src/domain/compliance/rule";
import { resolveRuleSettings, type RuleSettings } from "../../../src/domain/compliance/rule-settings";

type RuleId = string;
const RULE_IDS = ruleIds();
const DEFAULT_RULE_SETTINGS = resolveRuleSettings(undefined);
const RULE_SETTINGS_SCHEMAS = Object.fromEntries(RULE_IDS.map((id) => [id, ruleSettingsSchema(findRule(id)!)]));
/** A database as both rules over databases see it (its TDE status and its tier advice). */
type DatabaseSubject = DatabaseFacts & TierAdvisorFacts;
import type { Exemption } from "../../../src/domain/stack/stack-config";

/**
 * The rules' verdicts as one table. Each row judges one resource with every other rule disabled,
 * so the row's expectation is about exactly one finding (or none, when its own rule is disabled).
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2025-06-15T12:00:00Z");
const DAY = 24 * 3600_000;
const iso = (t: number) => new Date(t).toISOString();

function dbId(database = "orders", server = "sql-prod-1", rg = "rg-data"): string {
  return `/subscriptions/${SUB}/resourceGroups/${rg}/providers/Microsoft.Sql/servers/${server}/databases/${database}`;
}

function db(over: Partial<DatabaseSubject> = {}): ComplianceFacts {
  const database = over.database ?? "orders";
  const d: DatabaseSubject = {
    id: dbId(database),
    resourceGroup: "rg-data",
    server: "sql-prod-1",
    database,
    liveTdeStatus: "Enabled",
    advisor: undefined,
    ...over,
  };
  return {
    ...emptyFacts(SUB),
    databases: [d],
    tierAdvisors: [d],
  };
}

/** A fresh advisor (observation ended a day before NOW) recommending S3 over a current S0 at 0.9. */
function advisor(over: Partial<AdvisorFacts> = {}): AdvisorFacts {
  return {
    name: "Current",
    overallRecommendationServiceLevelObjective: "S3",
    currentServiceLevelObjective: "S0",
    confidence: 0.9,
    observationPeriodEnd: iso(NOW - DAY),
    ...over,
  };
}

function usage(over: Partial<UsageFacts> = {}): ComplianceFacts {
  const u: UsageFacts = {
    subscriptionId: SUB,
    location: "eastus",
    name: "cores",
    displayName: "Total Regional Cores",
    currentValue: 50,
    limit: 100,
    unit: "Count",
    ...over,
  };
  return { ...emptyFacts(SUB), usages: [u] };
}

type Overrides = Record<RuleId, Record<string, unknown>>;

/** Settings with only `rule` enabled (at its default level unless overridden). */
function only(rule: RuleId, over: Overrides = {}): RuleSettings {
  const off = Object.fromEntries(RULE_IDS.filter((r) => r !== rule).map((r) => [r, { enforcementLevel: "disabled" }]));
  return resolveRuleSettings({ ...off, ...over } as Overrides);
}

/** Every registered rule disabled: the row's own rule too, so nothing may judge it. */
const NONE = resolveRuleSettings(Object.fromEntries(RULE_IDS.map((r) => [r, { enforcementLevel: "disabled" }])) as Overrides);
const TDE = only("sql-tde-enabled");
const DRIFT = only("sql-tier-advisor-drift");
const QUOTA = only("batch-quota-headroom");
const failing = db({ liveTdeStatus: "Disabled" });
const ex = (e: Partial<Exemption> = {}): Exemption => ({ resourceId: dbId(), reason: "migration window", ...e });

type Row = [
  description: string,
  facts: ComplianceFacts,
  settings: RuleSettings,
  exemptions: Exemption[],
  now: number,
  expected: Verdict | "no finding",
  fragment: string,
];

const ROWS: Row[] = [
  // sql-tde-enabled
  [
    "master with TDE Disabled is never flagged",
    db({ database: "master", liveTdeStatus: "Disabled" }),
    TDE,
    [],
    NOW,
    "not-applicable",
    "master is a system database",
  ],
  [
    "MASTER (any case) is never flagged",
    db({ database: "Master", liveTdeStatus: undefined }),
    TDE,
    [],
    NOW,
    "not-applicable",
    "never flagged",
  ],
  ["Enabled passes", db({ liveTdeStatus: "Enabled" }), TDE, [], NOW, "pass", "Enabled"],
  [
    "Disabled fails and says so",
    failing,
    TDE,
    [],
    NOW,
    "fail",
    "must have transparent data encryption Enabled; its live status is Disabled",
  ],
  ["missing status fails (not reported)", db({ liveTdeStatus: undefined }), TDE, [], NOW, "fail", "unknown (not reported)"],
  ["an unknown enum value fails and is named", db({ liveTdeStatus: "Encrypting" }), TDE, [], NOW, "fail", "its live status is Encrypting"],
  [
    "UNKNOWN during a preview is unknown, not a failure",
    db({ liveTdeStatus: UNKNOWN }),
    TDE,
    [],
    NOW,
    "unknown",
    "not known until the resource is created",
  ],
  [
    "the desired Disabled during a preview names the stack",
    db({ liveTdeStatus: "Disabled", tdeStatusSource: "desired" }),
    TDE,
    [],
    NOW,
    "fail",
    "the stack sets it to Disabled",
  ],
  ["a failure names the database", failing, TDE, [], NOW, "fail", "Database rg-data/sql-prod-1/orders"],
  [
    "sql-tde-enabled at advisory still fails (as advisory)",
    failing,
    only("sql-tde-enabled", { "sql-tde-enabled": { enforcementLevel: "advisory" } }),
    [],
    NOW,
    "fail",
    "must have transparent data encryption",
  ],
  ["sql-tde-enabled disabled gives no finding", failing, NONE, [], NOW, "no finding", ""],

  // sql-tier-advisor-drift
  [
    "no advisor output is not-applicable, never a pass",
    db({ advisor: undefined }),
    DRIFT,
    [],
    NOW,
    "not-applicable",
    "no service tier advisor output",
  ],
  ["advisor UNKNOWN during a preview", db({ advisor: UNKNOWN }), DRIFT, [], NOW, "unknown", "not known yet"],
  [
    "advisor without a recommendation is not-applicable",
    db({ advisor: advisor({ overallRecommendationServiceLevelObjective: undefined }) }),
    DRIFT,
    [],
    NOW,
    "not-applicable",
    "no overall recommendation",
  ],
  [
    "recommendation equal to the current objective passes",
    db({ advisor: advisor({ overallRecommendationServiceLevelObjective: "S0" }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "recommends S0, the current objective",
  ],
  [
    "differs at 0.9: fails naming both objectives and the confidence",
    db({ advisor: advisor() }),
    DRIFT,
    [],
    NOW,
    "fail",
    "the advisor recommends S3 but the current service objective is S0 (confidence 0.9)",
  ],
  ["confidence exactly at the threshold fails", db({ advisor: advisor({ confidence: 0.8 }) }), DRIFT, [], NOW, "fail", "(confidence 0.8)"],
  [
    "confidence just below the threshold passes",
    db({ advisor: advisor({ confidence: 0.79 }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "below the 0.8 threshold",
  ],
  ["confidence 0 passes", db({ advisor: advisor({ confidence: 0 }) }), DRIFT, [], NOW, "pass", "(confidence 0); below the 0.8 threshold"],
  [
    "missing confidence counts as 0 and passes",
    db({ advisor: advisor({ confidence: undefined }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "(confidence 0)",
  ],
  [
    "a stale observation (40 days) passes",
    db({ advisor: advisor({ observationPeriodEnd: iso(NOW - 40 * DAY) }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "the observation ended 40 days ago, older than 30 days",
  ],
  [
    "exactly at the age limit (30 days) still fails",
    db({ advisor: advisor({ observationPeriodEnd: iso(NOW - 30 * DAY) }) }),
    DRIFT,
    [],
    NOW,
    "fail",
    "should run at the advisor's tier",
  ],
  [
    "a millisecond past the age limit passes",
    db({ advisor: advisor({ observationPeriodEnd: iso(NOW - 30 * DAY - 1) }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "older than 30 days",
  ],
  [
    "an observation without an end date is not-applicable",
    db({ advisor: advisor({ observationPeriodEnd: undefined }) }),
    DRIFT,
    [],
    NOW,
    "not-applicable",
    "no valid end date",
  ],
  [
    "the intended objective wins over the current one",
    db({ intendedServiceObjective: "S3", advisor: advisor() }),
    DRIFT,
    [],
    NOW,
    "pass",
    "the intended objective",
  ],
  [
    "intended differs from the recommendation: fails naming the intended one",
    db({ intendedServiceObjective: "S1", advisor: advisor({ currentServiceLevelObjective: "S3" }) }),
    DRIFT,
    [],
    NOW,
    "fail",
    "the intended service objective is S1",
  ],
  [
    "no intended objective compares with the current one",
    db({ advisor: advisor({ currentServiceLevelObjective: "S3" }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "the current objective",
  ],
  [
    "neither intended nor current is not-applicable",
    db({ advisor: advisor({ currentServiceLevelObjective: undefined }) }),
    DRIFT,
    [],
    NOW,
    "not-applicable",
    "neither an intended nor a current",
  ],
  [
    "objectives compare case-insensitively",
    db({ intendedServiceObjective: "s3", advisor: advisor() }),
    DRIFT,
    [],
    NOW,
    "pass",
    "recommends S3",
  ],
  [
    "objectives compare ignoring surrounding spaces",
    db({ advisor: advisor({ overallRecommendationServiceLevelObjective: " s0 " }) }),
    DRIFT,
    [],
    NOW,
    "pass",
    "the current objective",
  ],
  [
    "custom minConfidence 0.95 lets 0.9 pass",
    db({ advisor: advisor() }),
    only("sql-tier-advisor-drift", { "sql-tier-advisor-drift": { minConfidence: 0.95 } }),
    [],
    NOW,
    "pass",
    "below the 0.95 threshold",
  ],
  [
    "custom maxObservationAgeDays 7 makes 10 days stale",
    db({ advisor: advisor({ observationPeriodEnd: iso(NOW - 10 * DAY) }) }),
    only("sql-tier-advisor-drift", { "sql-tier-advisor-drift": { maxObservationAgeDays: 7 } }),
    [],
    NOW,
    "pass",
    "older than 7 days",
  ],
  ["sql-tier-advisor-drift disabled gives no finding", db({ advisor: advisor() }), NONE, [], NOW, "no finding", ""],

  // batch-quota-headroom
  [
    "usage exactly at the 0.8 threshold fails",
    usage({ currentValue: 80 }),
    QUOTA,
    [],
    NOW,
    "fail",
    "Total Regional Cores in eastus uses 80 of 100 (80%), at or above the 80% threshold",
  ],
  ["usage just below the threshold passes", usage({ currentValue: 79 }), QUOTA, [], NOW, "pass", "uses 79 of 100 (79%)"],
  ["usage over the limit fails", usage({ currentValue: 120 }), QUOTA, [], NOW, "fail", "(120%)"],
  ["limit 0 is not-applicable", usage({ currentValue: 0, limit: 0 }), QUOTA, [], NOW, "not-applicable", "the limit is 0"],
  ["no limit is not-applicable", usage({ limit: undefined }), QUOTA, [], NOW, "not-applicable", "no current value or limit"],
  ["an unknown usage during a preview", usage({ currentValue: UNKNOWN }), QUOTA, [], NOW, "unknown", "not known yet"],
  [
    "custom threshold 0.5: 50 of 100 fails",
    usage({ currentValue: 50 }),
    only("batch-quota-headroom", { "batch-quota-headroom": { threshold: 0.5 } }),
    [],
    NOW,
    "fail",
    "at or above the 50% threshold",
  ],
  [
    "custom threshold 0.95: 92 of 100 passes",
    usage({ currentValue: 92 }),
    only("batch-quota-headroom", { "batch-quota-headroom": { threshold: 0.95 } }),
    [],
    NOW,
    "pass",
    "uses 92 of 100 (92%)",
  ],
  ["a non-count unit is named", usage({ currentValue: 90, unit: "Bytes" }), QUOTA, [], NOW, "fail", "uses 90 of 100 bytes"],
  ["batch-quota-headroom disabled gives no finding", usage({ currentValue: 99 }), NONE, [], NOW, "no finding", ""],
  [
    "quota exempted by its usage id",
    usage({ currentValue: 95 }),
    QUOTA,
    [ex({ resourceId: batchUsagesId({ subscriptionId: SUB, location: "eastus" }, undefined, "cores") })],
    NOW,
    "exempt",
    "(exempt: migration window)",
  ],

  // exemptions
  ["an exemption without expiry applies", failing, TDE, [ex()], NOW, "exempt", "(exempt: migration window)"],
  [
    "an exemption expiring later applies and names its end",
    failing,
    TDE,
    [ex({ expires: "2025-07-01" })],
    NOW,
    "exempt",
    "until 2025-07-01",
  ],
  [
    "on the expiry day (last millisecond) it still applies",
    failing,
    TDE,
    [ex({ expires: "2025-06-15" })],
    Date.parse("2025-06-15T23:59:59.999Z"),
    "exempt",
    "until 2025-06-15",
  ],
  [
    "the day after the expiry day it no longer applies",
    failing,
    TDE,
    [ex({ expires: "2025-06-15" })],
    Date.parse("2025-06-16T00:00:00Z"),
    "fail",
    "its live status is Disabled",
  ],
  [
    "an expired exemption (last year) does not apply",
    failing,
    TDE,
    [ex({ expires: "2024-01-01" })],
    NOW,
    "fail",
    "must have transparent data encryption Enabled",
  ],
  [
    "an exemption scoped to another rule does not apply",
    failing,
    TDE,
    [ex({ rules: ["sql-tier-advisor-drift"] })],
    NOW,
    "fail",
    "its live status is Disabled",
  ],
  ["an exemption scoped to this rule applies", failing, TDE, [ex({ rules: ["sql-tde-enabled"] })], NOW, "exempt", "exempt"],
  [
    "an exemption of another database does not apply",
    failing,
    TDE,
    [ex({ resourceId: dbId("customers") })],
    NOW,
    "fail",
    "its live status is Disabled",
  ],
  ["the resource id matches case-insensitively", failing, TDE, [ex({ resourceId: dbId().toUpperCase() })], NOW, "exempt", "exempt"],
  ["a trailing slash on the exempted id still matches", failing, TDE, [ex({ resourceId: `${dbId()}/` })], NOW, "exempt", "exempt"],
  ["a passing finding stays a pass under an exemption", db({ liveTdeStatus: "Enabled" }), TDE, [ex()], NOW, "pass", "Enabled"],
  [
    "an advisory drift finding is exempted too",
    db({ advisor: advisor() }),
    DRIFT,
    [ex({ rules: ["sql-tier-advisor-drift"] })],
    NOW,
    "exempt",
    "(exempt: migration window)",
  ],
];

describe("compliance verdicts", () => {
  it("has at least 36 rows", () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(36);
  });

  it.each(ROWS)("%s", (_description, facts, settings, exemptions, now, expected, fragment) => {
    const result = evaluateCompliance(facts, settings, exemptions, now);
    if (expected === "no finding") {
      expect(result.findings).toEqual([]);
      return;
    }
    expect(result.findings).toHaveLength(1);
    const [f] = result.findings;
    expect(f.verdict).toBe(expected);
    expect(f.message).toContain(fragment);
    if (f.verdict === "exempt") expect(f.exemption).toBe(exemptions[0]);
  });
});

describe("summary counts and levels", () => {
  it("counts each verdict once, mandatory and advisory apart", () => {
    const subjects: DatabaseSubject[] = [
      {
        id: dbId("orders"),
        resourceGroup: "rg-data",
        server: "sql-prod-1",
        database: "orders",
        liveTdeStatus: "Disabled",
        advisor: advisor(),
      },
      {
        id: dbId("customers"),
        resourceGroup: "rg-data",
        server: "sql-prod-1",
        database: "customers",
        liveTdeStatus: "Enabled",
        advisor: advisor({ overallRecommendationServiceLevelObjective: "S0" }),
      },
      {
        id: dbId("audit"),
        resourceGroup: "rg-data",
        server: "sql-prod-1",
        database: "audit",
        liveTdeStatus: "Disabled",
        advisor: undefined,
      },
      {
        id: dbId("master"),
        resourceGroup: "rg-data",
        server: "sql-prod-1",
        database: "master",
        liveTdeStatus: "Disabled",
        advisor: UNKNOWN,
      },
    ];
    const facts: ComplianceFacts = {
      ...emptyFacts(SUB),
      databases: subjects,
      tierAdvisors: subjects,
      usages: [
        { subscriptionId: SUB, location: "eastus", name: "cores", currentValue: 92, limit: 100 },
        { subscriptionId: SUB, location: "eastus", name: "clusters", currentValue: 2, limit: 20 },
        { subscriptionId: SUB, location: "eastus", name: "none", currentValue: 0, limit: 0 },
      ],
    };
    // The three rules over these facts, at their default levels; any other rule is disabled, so a rule
    // registered later over the same facts adds nothing here.
    const three = ["sql-tde-enabled", "sql-tier-advisor-drift", "batch-quota-headroom"];
    const settings = resolveRuleSettings(
      Object.fromEntries(RULE_IDS.filter((id) => !three.includes(id)).map((id) => [id, { enforcementLevel: "disabled" }])) as Overrides,
    );
    const r = evaluateCompliance(
      facts,
      settings,
      [ex({ resourceId: dbId("audit") }), ex({ resourceId: dbId("gone"), expires: "2020-01-01" })],
      NOW,
    );
    // tde: orders fail (mandatory), customers pass, audit exempt, master n/a
    // drift: orders fail (advisory), customers pass, audit n/a, master unknown
    // quota: cores fail (advisory), clusters pass, none n/a
    expect(r.summary).toEqual({ mandatoryViolations: 1, advisoryViolations: 2, exempt: 1, passed: 3, notApplicable: 3, unknown: 1 });
    expect(r.findings).toHaveLength(11);
    expect(r.findings.find((f) => f.ruleId === "sql-tde-enabled" && f.verdict === "fail")?.level).toBe("mandatory");
    expect(r.findings.filter((f) => f.ruleId !== "sql-tde-enabled").every((f) => f.level === "advisory")).toBe(true);
    expect(r.exemptions.map((s) => [s.active, s.applied])).toEqual([
      [true, 1],
      [false, 0],
    ]);
  });

  it("a mandatory drift rule counts as a mandatory violation", () => {
    const r = evaluateCompliance(
      db({ advisor: advisor() }),
      only("sql-tier-advisor-drift", { "sql-tier-advisor-drift": { enforcementLevel: "mandatory" } }),
      [],
      NOW,
    );
    expect(r.summary.mandatoryViolations).toBe(1);
    expect(r.summary.advisoryViolations).toBe(0);
  });

  it("is pure: the same input gives the same output", () => {
    const a = evaluateCompliance(failing, TDE, [ex({ expires: "2025-06-15" })], NOW);
    const b = evaluateCompliance(failing, TDE, [ex({ expires: "2025-06-15" })], NOW);
    expect(a).toEqual(b);
  });

  it("an exemption with a malformed date is never active", () => {
    expect(isExemptionActive(ex({ expires: "someday" }), NOW)).toBe(false);
    expect(isExemptionActive(ex({}), Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});

describe("rule settings are validated by RULE_SETTINGS_SCHEMAS", () => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validators = Object.fromEntries(RULE_IDS.map((id) => [id, ajv.compile(RULE_SETTINGS_SCHEMAS[id])])) as Record<
    RuleId,
    ReturnType<Ajv["compile"]>
  >;

  it("accepts every default", () => {
    for (const id of RULE_IDS)
      expect(validators[id](DEFAULT_RULE_SETTINGS[id]), `${id}: ${ajv.errorsText(validators[id].errors)}`).toBe(true);
  });

  it.each<[RuleId, unknown, boolean]>([
    ["sql-tde-enabled", { enforcementLevel: "mandatory" }, true],
    ["sql-tde-enabled", { enforcementLevel: "disabled" }, true],
    ["sql-tde-enabled", { enforcementLevel: "strict" }, false],
    ["sql-tde-enabled", { threshold: 0.5 }, false],
    ["sql-tier-advisor-drift", { minConfidence: 0 }, true],
    ["sql-tier-advisor-drift", { minConfidence: 1 }, true],
    ["sql-tier-advisor-drift", { minConfidence: 1.2 }, false],
    ["sql-tier-advisor-drift", { minConfidence: "high" }, false],
    ["sql-tier-advisor-drift", { maxObservationAgeDays: 0 }, false],
    ["sql-tier-advisor-drift", { maxObservationAgeDays: 7 }, true],
    ["batch-quota-headroom", { threshold: 1 }, true],
    ["batch-quota-headroom", { threshold: 0 }, false],
    ["batch-quota-headroom", { threshold: -0.1 }, false],
    ["batch-quota-headroom", { enforcementLevel: "advisory", threshold: 0.9 }, true],
  ])("%s %j valid=%s", (id, value, valid) => {
    expect(validators[id](value)).toBe(valid);
  });
});
