import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import type { RuleDefinition } from "../../../src/domain/compliance/rule";
import { batchQuotaHeadroom } from "../../../src/domain/compliance/rules/batch-quota-headroom";
import { sqlTdeEnabled } from "../../../src/domain/compliance/rules/sql-tde-enabled";
import { sqlTierAdvisorDrift } from "../../../src/domain/compliance/rules/sql-tier-advisor-drift";
import { emptyFacts } from "../../../src/domain/facts/gather";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import type { AdvisorFacts } from "../../../src/domain/facts/tier-advice";
import { parseStackConfig, type StackConfig } from "../../../src/domain/stack/stack-config";
import { sqlDatabaseId } from "../../../src/platform/arm/resource-id";
import type { ComplianceReportInput } from "../../../src/domain/reports/compliance-report";

export const SUB = "00000000-0000-0000-0000-000000000000";
export const NOW = Date.parse("2025-06-15T12:00:00Z");
export const STACK_FILE = "stacks/Pulumi.report.yaml";

/**
 * A stack file whose databases start at known lines; `padding` comment lines are inserted above
 * them, so tests can move every database without changing anything else.
 */
export function stackText(padding = 0): string {
  return [
    "config:",
    `  stackwarden:subscriptionId: ${SUB}`,
    ...Array.from({ length: padding }, (_, i) => `  # padding ${i}`),
    "  stackwarden:databases:",
    "    - resourceGroup: rg-data", // orders
    "      server: sql-prod-1",
    "      database: orders",
    "      transparentDataEncryption: Enabled",
    "      serviceObjective: S0",
    "    - resourceGroup: rg-data", // customers
    "      server: sql-prod-1",
    "      database: customers",
    "      transparentDataEncryption: Enabled",
    "    - resourceGroup: rg-data", // legacy
    "      server: sql-prod-1",
    "      database: legacy",
    "      transparentDataEncryption: Enabled",
    "  stackwarden:batch:",
    "    locations: [eastus]",
    "  stackwarden:exemptions:",
    `    - resourceId: /subscriptions/${SUB}/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-prod-1/databases/legacy`,
    "      rules: [sql-tde-enabled]",
    '      reason: "decommission <Q3> & \'archive\' \\"soon\\""',
    "      expires: 2025-12-31",
    "",
  ].join("\n");
}

/** The line of database `i` (0-based) in `stackText(padding)`. */
export function databaseLine(i: number, padding = 0): number {
  return 4 + padding + [0, 5, 9][i];
}

const advisor = (over: Partial<AdvisorFacts> = {}): AdvisorFacts => ({
  name: "Current",
  overallRecommendationServiceLevelObjective: "S3",
  currentServiceLevelObjective: "S0",
  confidence: 0.9,
  observationPeriodEnd: new Date(NOW - 86_400_000).toISOString(),
  ...over,
});

/**
 * The rules whose verdicts this fixture sets up (and the reports' tests count): another rule over
 * the same facts, registered later, adds nothing to them. Reports still list every registered rule
 * (SARIF's rules, JUnit's suites), judged or not.
 */
export const FIXTURE_RULES: readonly RuleDefinition<unknown>[] = [sqlTdeEnabled, sqlTierAdvisorDrift, batchQuotaHeadroom].map(
  (r) => r as RuleDefinition<unknown>,
);

/**
 * Live state against that stack: orders unencrypted (mandatory) and drifting (advisory), customers
 * fine without an advisor (n/a), legacy unencrypted but exempt; eastus cores at 92% (advisory).
 */
export function reportInput(padding = 0, stackName = "report"): ComplianceReportInput & { stack: StackConfig } {
  const stack = parseStackConfig(STACK_FILE, stackText(padding), {});
  const live: Record<string, string> = { orders: "Disabled", customers: "Enabled", legacy: "Disabled" };
  const subjects = stack.databases.map((d) => ({
    id: sqlDatabaseId({ subscriptionId: SUB, ...d }),
    resourceGroup: d.resourceGroup,
    server: d.server,
    database: d.database,
    liveTdeStatus: live[d.database],
    intendedServiceObjective: d.serviceObjective,
    advisor:
      d.database === "orders"
        ? advisor()
        : d.database === "legacy"
          ? advisor({ overallRecommendationServiceLevelObjective: "S0", currentServiceLevelObjective: "S0" })
          : undefined,
    source: d.source,
  }));
  const facts: ComplianceFacts = {
    ...emptyFacts(SUB),
    databases: subjects,
    tierAdvisors: subjects,
    usages: [
      {
        subscriptionId: SUB,
        location: "eastus",
        name: "cores",
        displayName: "Total Regional Cores",
        currentValue: 92,
        limit: 100,
        unit: "Count",
      },
      { subscriptionId: SUB, location: "eastus", name: "clusters", displayName: "Clusters", currentValue: 2, limit: 20, unit: "Count" },
    ],
  };
  const result = evaluateCompliance(facts, stack.policies, stack.exemptions, NOW, FIXTURE_RULES);
  return { stack, stackName, file: stack.file, result, generatedAt: new Date(NOW), toolVersion: "0.1.0" };
}
