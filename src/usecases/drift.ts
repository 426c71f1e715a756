import type { ClientSet } from "../clients/client-set";
import { applyExemptions } from "../domain/compliance/exemption-application";
import { driftSectionsOf, type DriftSectionFindings } from "../domain/compliance/drift-section";
import { evaluateRule } from "../domain/compliance/evaluate";
import { isMandatoryViolation, type Finding } from "../domain/compliance/finding";
import { allRules } from "../domain/compliance/registry";
import { settingsOf } from "../domain/compliance/rule-settings";
import type { RuleDefinition } from "../domain/compliance/rule";
import { UNKNOWN } from "../platform/unknown-value";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import { gatherFacts } from "../domain/facts/gather";
import { databaseFactsIn, tdeStatus, type DatabaseFacts } from "../domain/facts/tde-status";
import { liveTdeSummary } from "../domain/discovery/scope-coverage";
import type { ScopeSummary } from "../domain/reports/compliance-report";
import { discoverScope } from "./scope";
import { decideAction } from "../domain/reconcile/tde-plan";
import type { TdeDrift } from "../domain/reports/drift-report";
import type { StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";
import { databaseLabel } from "../platform/arm/resource-id";
import type { StateStores } from "../domain/state/state-ports";

/** What `drift` found: databases whose live TDE differs from the stack, and the findings of the rules declared as drift (failures and exempt ones). */
export interface DriftOutcome {
  tde: TdeDrift[];
  /**
   * Every section a registered rule declares (`RuleDefinition.drift`), in registry order, with the
   * failures and exempt findings of its enabled rules: a section whose rules are disabled or found
   * nothing is there, empty, so the report's keys do not depend on the stack.
   */
  sections: DriftSectionFindings[];
  /** Whether the drift should fail a pipeline: a TDE difference, or a mandatory failure of a drift rule. */
  blocking: boolean;
  /** Databases the stack names that the cloud answered an error for: left out of the comparison, reported at their lines (exit 1). */
  unread: UnreadEntry[];
  /**
   * With `stackwarden:scope`: "N databases in scope: L listed, D discovered; X non-compliant", as
   * check counts it (the TDE rule over every database in scope, and the drift findings). The
   * comparison itself stays with the listed databases: a discovered one has no stack entry to drift from.
   */
  scope?: ScopeSummary;
}

/**
 * Compares each database's live TDE with the stack, and judges the live state that can drift under
 * it with the enabled rules declared as drift (`RuleDefinition.drift`, e.g. the tier advisors, the
 * key custody of the stack's servers), each finding at its level with the stack's exemptions, in
 * the section its rule declares. Reads TDE and the fact kinds those rules judge. A database the
 * cloud answers an error for is left out and listed in `unread`; the others are compared.
 */
export async function runDrift(req: {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  state: Pick<StateStores, "probes" | "audit">;
  concurrency?: number;
  now?: number;
}): Promise<DriftOutcome> {
  const { stack } = req;
  const now = req.now ?? Date.now();
  const rules = allRules().filter((r) => r.drift && settingsOf(r, stack.policies).enforcementLevel !== "disabled");
  const keys = new Set([tdeStatus.key, ...rules.flatMap((r) => r.facts)]);
  const unread: UnreadEntry[] = [];
  const facts = await gatherFacts([...keys], gatherContext(req, stack, unread));
  const tde: TdeDrift[] = [];
  databaseFactsIn(facts).forEach((f, i) => {
    if (f.unread) return;
    const desired = stack.databases[i].transparentDataEncryption;
    const live = f.liveTdeStatus === UNKNOWN ? undefined : f.liveTdeStatus;
    if (decideAction(live, desired) !== "none")
      tde.push({ id: f.id, label: databaseLabel(f), live: live ?? null, desired, line: f.source?.line });
  });
  // A subject that could not be read has nothing to judge.
  const judged = withoutUnread(facts);
  const sections = driftSectionsOf(allRules()).map((section) => ({
    section,
    findings: judge(
      rules.filter((r) => r.drift?.key === section.key),
      judged,
      stack,
      now,
    ),
  }));
  const blocking = tde.length > 0 || sections.some((s) => s.findings.some(isMandatoryViolation));
  const scope = await scopeSummary(
    req,
    databaseFactsIn(facts),
    sections.flatMap((s) => s.findings),
    unread,
    now,
  );
  return { tde, sections, blocking, unread, ...(scope ? { scope } : {}) };
}

/** What a drift's reads are gathered with: `stack`'s databases, the unread ones reported into `unread`, no notes. */
function gatherContext(req: Parameters<typeof runDrift>[0], stack: StackConfig, unread: UnreadEntry[]) {
  return {
    stack,
    stackName: req.stackName,
    clients: req.clients,
    cwd: req.cwd,
    state: req.state,
    concurrency: req.concurrency ?? 16,
    note: () => {},
    warn: () => {},
    unread: (entry: UnreadEntry) => unread.push(entry),
  };
}

/**
 * The scope's summary of a drift: the scope discovered (a list that could not be read is unread,
 * as in check), the discovered databases' TDE read (the listed ones' were), judged with the rest.
 */
async function scopeSummary(
  req: Parameters<typeof runDrift>[0],
  listed: readonly DatabaseFacts[],
  findings: readonly Finding[],
  unread: UnreadEntry[],
  now: number,
): Promise<ScopeSummary | undefined> {
  if (!req.stack.scope) return undefined;
  const scoped = await discoverScope(req.stack, req.clients, { concurrency: req.concurrency });
  unread.push(...scoped.unread);
  const discovered = { ...scoped.stack, databases: scoped.stack.databases.filter((d) => d.discovered) };
  const facts = await gatherFacts([tdeStatus.key], gatherContext(req, discovered, unread));
  return liveTdeSummary(scoped.stack, [...listed, ...databaseFactsIn(facts)], now, findings);
}

/** The failures and exempt findings of some rules over the facts, each at its level (never above the stack's), with its exemptions. */
function judge(rules: RuleDefinition<unknown>[], facts: ComplianceFacts, stack: StackConfig, now: number): Finding[] {
  return applyExemptions(
    rules.flatMap((r) => evaluateRule(r, facts, settingsOf(r, stack.policies), now)),
    stack.exemptions,
    now,
  ).findings.filter((f) => f.verdict === "fail" || f.verdict === "exempt");
}

/** The facts without those whose subject could not be read (`unread`). */
function withoutUnread(facts: ComplianceFacts): ComplianceFacts {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) out[k] = Array.isArray(v) ? v.filter((f: { unread?: string }) => !f?.unread) : v;
  return out as ComplianceFacts;
}
