import type { ClientSet } from "../clients/client-set";
import { applyExemptions } from "../domain/compliance/exemptions";
import type { Finding } from "../domain/compliance/finding";
import { settingsOf } from "../domain/compliance/rule-settings";
import type { RuleDefinition } from "../domain/compliance/rule";
import { sqlTdeCustomerManagedKey } from "../domain/compliance/rules/sql-tde-customer-managed-key";
import { sqlTierAdvisorDrift } from "../domain/compliance/rules/sql-tier-advisor-drift";
import { tdeKeyValidity } from "../domain/compliance/rules/tde-key-validity";
import { tdeKeyVaultRecoverable } from "../domain/compliance/rules/tde-key-vault-recoverable";
import { UNKNOWN } from "../platform/unknown-value";
import { gatherFacts } from "../domain/facts/gather";
import { decideAction } from "../domain/reconcile/tde-plan";
import type { TdeDrift } from "../domain/reports/drift-report";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { databaseLabel } from "../platform/arm/resource-id";
import type { StateDirs } from "../platform/settings/state-dirs";

/** What `drift` found: databases whose live TDE differs from the stack, and tier-advisor and key-custody findings (failures and exempt ones). */
export interface DriftOutcome {
  tde: TdeDrift[];
  advisor: Finding[];
  /** The key-custody rules' failures and exempt findings (a protector, vault or key that drifted from what the rules require). */
  keyCustody: Finding[];
  /** Whether the drift should fail a pipeline: a TDE difference, or a mandatory advisor or key-custody failure. */
  blocking: boolean;
  /** Databases the stack names that the cloud answered an error for: left out of the comparison, reported at their lines (exit 1). */
  unread: UnreadEntry[];
}

/** The rules about a TDE protector and its key that drift judges beside the advisor's: what can change in the cloud under a stack. */
const KEY_CUSTODY_RULES = [sqlTdeCustomerManagedKey, tdeKeyVaultRecoverable, tdeKeyValidity] as RuleDefinition<unknown>[];

/**
 * Compares each database's live TDE with the stack, and judges the tier advisors and the key
 * custody of the stack's servers (TDE protector, its vault and key) with their rules (each rule's
 * level and the stack's exemptions). Reads TDE, advisors, protectors, vaults and keys: nothing is
 * placed or scanned.
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
  const enabled = (rule: RuleDefinition<unknown>) => settingsOf(rule, stack.policies).enforcementLevel !== "disabled";
  const judgeAdvisors = enabled(sqlTierAdvisorDrift as RuleDefinition<unknown>);
  const keyRules = KEY_CUSTODY_RULES.filter(enabled);
  const keys = new Set(["databases", ...(judgeAdvisors ? sqlTierAdvisorDrift.facts : []), ...keyRules.flatMap((r) => r.facts)]);
  const unread: UnreadEntry[] = [];
  const facts = await gatherFacts([...keys], {
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
  const judge = (rules: RuleDefinition<unknown>[], over = facts) =>
    applyExemptions(
      rules.flatMap((r) => r.evaluate(over, settingsOf(r, stack.policies), now)),
      stack.exemptions,
      now,
    ).findings.filter((f) => f.verdict === "fail" || f.verdict === "exempt");
  // A database that could not be read has no advice to judge.
  const advisorFacts = { ...facts, tierAdvisors: facts.tierAdvisors.filter((f) => !f.unread) };
  const advisor = judgeAdvisors ? judge([sqlTierAdvisorDrift as RuleDefinition<unknown>], advisorFacts) : [];
  const keyCustody = judge(keyRules);
  const blocking = tde.length > 0 || [...advisor, ...keyCustody].some((f) => f.verdict === "fail" && f.level === "mandatory");
  return { tde, advisor, keyCustody, blocking, unread };
}
