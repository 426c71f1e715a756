import type { ClientSet } from "../clients/client-set";
import { applyExemptions } from "../domain/compliance/exemptions";
import type { Finding } from "../domain/compliance/finding";
import { settingsOf } from "../domain/compliance/rule-settings";
import { sqlTierAdvisorDrift } from "../domain/compliance/rules/sql-tier-advisor-drift";
import { UNKNOWN } from "../domain/compliance/facts";
import { gatherFacts } from "../domain/facts/gather";
import { decideAction } from "../domain/reconcile/tde-plan";
import type { TdeDrift } from "../domain/reports/drift-report";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { databaseLabel } from "../platform/arm/resource-id";
import type { StateDirs } from "../platform/settings/state-dirs";

/** What `drift` found: databases whose live TDE differs from the stack, and tier-advisor findings (failures and exempt ones). */
export interface DriftOutcome {
  tde: TdeDrift[];
  advisor: Finding[];
  /** Whether the drift should fail a pipeline: a TDE difference, or a mandatory advisor failure. */
  blocking: boolean;
  /** Databases the stack names that the cloud answered an error for: left out of the comparison, reported at their lines (exit 1). */
  unread: UnreadEntry[];
}

/**
 * Compares each database's live TDE with the stack, and judges the tier advisors with their rule
 * (its level and the stack's exemptions). Reads only TDE and advisors: nothing is placed or scanned.
 * A database the cloud answers an error for is left out and listed in `unread`; the others are compared.
 */
export async function runDrift(req: {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  dirs: StateDirs;
  concurrency?: number;
  now?: number;
}): Promise<DriftOutcome> {
  const { stack } = req;
  const now = req.now ?? Date.now();
  const settings = settingsOf(sqlTierAdvisorDrift, stack.policies);
  const judgeAdvisors = settings.enforcementLevel !== "disabled";
  const unread: UnreadEntry[] = [];
  const facts = await gatherFacts(judgeAdvisors ? ["databases", ...sqlTierAdvisorDrift.facts] : ["databases"], {
    stack,
    stackName: req.stackName,
    clients: req.clients,
    cwd: req.cwd,
    dirs: req.dirs,
    concurrency: req.concurrency ?? 16,
    note: () => {},
    warn: () => {},
    unread: (entry) => unread.push(entry),
  });
  const tde: TdeDrift[] = [];
  facts.databases.forEach((f, i) => {
    if (f.unread) return;
    const desired = stack.databases[i].transparentDataEncryption;
    const live = f.liveTdeStatus === UNKNOWN ? undefined : f.liveTdeStatus;
    if (decideAction(live, desired) !== "none")
      tde.push({ id: f.id, label: databaseLabel(f), live: live ?? null, desired, line: f.source?.line });
  });
  const advisorFacts = { ...facts, tierAdvisors: facts.tierAdvisors.filter((f) => !f.unread) };
  const advisor = judgeAdvisors
    ? applyExemptions(sqlTierAdvisorDrift.evaluate(advisorFacts, settings, now), stack.exemptions, now).findings.filter(
        (f) => f.verdict === "fail" || f.verdict === "exempt",
      )
    : [];
  const blocking = tde.length > 0 || advisor.some((f) => f.verdict === "fail" && f.level === "mandatory");
  return { tde, advisor, blocking, unread };
}
