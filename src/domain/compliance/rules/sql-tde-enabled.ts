import { databaseLabel, isMasterDatabase } from "../../../platform/arm/resource-id";
import { azurePolicy, CIS_AZURE_2_0_0 } from "../control";
import { UNKNOWN } from "../../../platform/unknown-value";
import type { FactMap } from "../../facts/model/compliance-facts";
import type { Finding } from "../finding";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type DatabaseFacts = FactMap["databases"];

/**
 * Flags a database whose live TDE status is not `Enabled`. `master` is never flagged.
 *
 * Controls (sources): CIS Microsoft Azure Foundations Benchmark v2.0.0, 4.1.5 "Ensure that 'Data
 * encryption' is set to 'On' on a SQL Database" (https://www.cisecurity.org/benchmark/azure); Azure
 * Policy built-in 17k78e20-9358-41c9-923c-fb736d382a12 "Transparent Data Encryption on SQL databases
 * should be enabled", version 2.0.0, AuditIfNotExists, skipping `master` as this rule does
 * (github.com/Azure/azure-policy, built-in-policies/policyDefinitions/SQL/SqlDBEncryption_Audit.json).
 */
export const sqlTdeEnabled = defineRule<Record<string, never>>({
  id: "sql-tde-enabled",
  title: "SQL databases must have transparent data encryption enabled",
  description: "Flags a database (never master) whose live transparent data encryption status is not Enabled.",
  help: "Set the database's transparentDataEncryption to Enabled in the stack and run `stackwarden apply` (or `pulumi up`); exempt it under stackwarden:exemptions only with a reason and an expiry.",
  defaultLevel: "mandatory",
  facts: ["databases"],
  settings: {},
  packScope: "resource",
  controls: [
    { ...CIS_AZURE_2_0_0, id: "4.1.5", title: "Ensure that 'Data encryption' is set to 'On' on a SQL Database" },
    azurePolicy(
      "17k78e20-9358-41c9-923c-fb736d382a12",
      "Transparent Data Encryption on SQL databases should be enabled",
      "2.0.0",
      "SQL/SqlDBEncryption_Audit.json",
    ),
  ],
  evaluate: (facts, settings) => facts.databases.map((db) => judge(db, settings)),
});

function judge(db: DatabaseFacts, settings: ResolvedSettings): Finding {
  const base = findingBase(sqlTdeEnabled, db, db.id, databaseLabel(db), settings.enforcementLevel);
  if (isMasterDatabase(db.database)) {
    return {
      ...base,
      verdict: "not-applicable",
      message: "master is a system database; Azure does not encrypt it with TDE, so it is never flagged",
    };
  }
  if (db.liveTdeStatus === UNKNOWN) {
    return { ...base, verdict: "unknown", message: "the TDE status is not known until the resource is created or updated" };
  }
  if (db.liveTdeStatus === "Enabled") {
    return { ...base, verdict: "pass", message: "transparent data encryption is Enabled" };
  }
  const status = db.liveTdeStatus ?? "unknown (not reported)";
  const why = db.tdeStatusSource === "desired" ? `the stack sets it to ${status}` : `its live status is ${status}`;
  return { ...base, verdict: "fail", message: `Database ${base.label} must have transparent data encryption Enabled; ${why}` };
}
