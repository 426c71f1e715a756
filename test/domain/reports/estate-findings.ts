import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import { ruleIds } from "../../../src/domain/compliance/registry";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { emptyFacts } from "../../../src/domain/facts/gather";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import type { ComplianceReportInput } from "../../../src/domain/reports/compliance-report";
import { sqlDatabaseId, sqlServerId } from "../../../src/platform/arm/resource-id";

export const SUB = "00000000-0000-0000-0000-000000000000";
export const NOW = Date.parse("2026-06-15T12:00:00Z");
export const ESTATE_FILE = "stacks/Pulumi.scale.yaml";

/** The shape of a generated estate: how many databases, on how many servers, and how many of each kind of failure. */
export interface EstateShape {
  servers: number;
  databases: number;
  /** Databases whose TDE is Disabled (a mandatory failure each), spread over the servers. */
  disabled: number;
  /** Databases whose advisor recommends another tier with confidence (an advisory failure each); the others have no advisor output. */
  drifting: number;
  /**
   * The rules that judge it (the others registered are disabled), so that what a test counts is
   * theirs and a new rule changes none of it; every registered rule when absent.
   */
  judgedBy?: readonly string[];
}

/**
 * An estate as `check` would judge it, through every registered rule or those `judgedBy` names: `databases` databases on
 * `servers` servers (`rg-data-NN/sql-prod-NN`, database `db-NNNNN` at its own stack-file line), every
 * server's TDE protector service-managed, `disabled` of them unencrypted and `drifting` with advisor
 * output that recommends S3 over the intended S0; the rest have no advisor output.
 */
export function estateInput(shape: EstateShape, stackName = "scale"): ComplianceReportInput {
  const servers = Array.from({ length: shape.servers }, (_, s) => ({
    subscriptionId: SUB,
    resourceGroup: `rg-data-${String(s).padStart(2, "0")}`,
    server: `sql-prod-${String(s).padStart(2, "0")}`,
  }));
  // Failures spread evenly over the estate, so every server has its share.
  const every = (n: number) => (n ? Math.floor(shape.databases / n) : Infinity);
  const subjects = Array.from({ length: shape.databases }, (_, i) => {
    const server = servers[i % shape.servers];
    const database = `db-${String(i).padStart(5, "0")}`;
    const ref = { ...server, database };
    const disabled = i % every(shape.disabled) === 0 && Math.floor(i / every(shape.disabled)) < shape.disabled;
    const drifting = (i + 1) % every(shape.drifting) === 0 && Math.floor((i + 1) / every(shape.drifting)) <= shape.drifting;
    return {
      id: sqlDatabaseId(ref),
      resourceGroup: server.resourceGroup,
      server: server.server,
      database,
      liveTdeStatus: disabled ? "Disabled" : "Enabled",
      intendedServiceObjective: "S0",
      advisor: drifting
        ? {
            name: "Current",
            overallRecommendationServiceLevelObjective: "S3",
            currentServiceLevelObjective: "S0",
            confidence: 0.9,
            observationPeriodEnd: new Date(NOW - 86_400_000).toISOString(),
          }
        : undefined,
      source: { file: ESTATE_FILE, line: 4 + 4 * i, column: 7 },
    };
  });
  const facts: ComplianceFacts = {
    ...emptyFacts(SUB),
    databases: subjects,
    tierAdvisors: subjects,
    tdeProtectors: servers.map((s, i) => ({
      id: sqlServerId(s),
      ...s,
      databases: subjects.filter((d) => d.server === s.server).map((d) => d.database),
      serverKeyType: "ServiceManaged",
      serverKeyName: "ServiceManaged",
      source: { file: ESTATE_FILE, line: 4 + 4 * i, column: 7 },
    })),
  };
  const others = shape.judgedBy ? ruleIds().filter((id) => !shape.judgedBy!.includes(id)) : [];
  const result = evaluateCompliance(
    facts,
    resolveRuleSettings(Object.fromEntries(others.map((id) => [id, { enforcementLevel: "disabled" }]))),
    [],
    NOW,
  );
  return { stackName, file: ESTATE_FILE, result, generatedAt: new Date(NOW), toolVersion: "0.0.0-test" };
}
