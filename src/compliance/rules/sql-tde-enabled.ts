import { UNKNOWN, type DatabaseFacts } from "../facts";
import type { Finding } from "../finding";
import type { TdeEnabledSettings } from "../rule-settings";

export const SQL_TDE_ENABLED = "sql-tde-enabled" as const;

/** Flags a database whose live TDE status is not `Enabled`. `master` is never flagged. */
export function sqlTdeEnabled(db: DatabaseFacts, settings: TdeEnabledSettings): Finding {
  const base = {
    ruleId: SQL_TDE_ENABLED,
    resourceId: db.id,
    label: `${db.resourceGroup}/${db.server}/${db.database}`,
    level: settings.enforcementLevel,
    source: db.source,
  };
  if (db.database.toLowerCase() === "master") {
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
