import type { ClientSet } from "../clients/client-set";
import { databaseSubscription } from "../domain/stack/stack-config";
import type { AuditChange } from "../domain/audit/audit-entry";
import type { ChangeAttribution } from "../domain/changes/change-record";
import type { RuleDefinition } from "../domain/compliance/rule";
import { evaluateCompliance } from "../domain/compliance/evaluate";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import { databaseFactsIn, tdeStatus, withTdeStatus } from "../domain/facts/tde-status";
import { UNKNOWN } from "../platform/unknown-value";
import type { Finding } from "../domain/compliance/finding";
import { decideRepairs, type RepairDecision } from "../domain/reconcile/repair-policy";
import { LockBusyError } from "../domain/reconcile/stack-lock";
import type { TdeDatabaseRef } from "../domain/reconcile/tde-api";
import type { ApplyOutcome } from "../domain/reconcile/tde-apply";
import { decideAction, type TdePlanItem } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import type { StateStores } from "../domain/state/state-ports";
import { databaseLabel, sqlDatabaseId } from "../platform/arm/resource-id";
import { runCheck, type CheckOutcome } from "./check";
import { databasesRead, type DatabaseRead } from "./watch-inventory";
import { reconcileStack, type ApplyHooks, type ApplyTuning, type LockHooks, type ReconcileResult } from "./reconcile";

/** What one watch tick found: the check of the stack's live state, and each database's plan from the same reads. */
export interface TickFindings {
  check: CheckOutcome;
  /** Every managed database's plan item (action `none` when live TDE matches the stack). */
  items: TdePlanItem[];
  /** The items with a change to make. */
  drift: TdePlanItem[];
}

/** What a watcher remembers from one tick to the next. */
export interface TickMemory {
  /** The last commit applied (or, without --auto-apply, planned): a new one triggers an apply. */
  reconciledCommit?: string;
  /** The repairs refused last time (so a refusal is audited once, not every tick). */
  lastRefused: string;
}

/** Why an apply runs: a new commit (`--auto-apply`) or drift (`--auto-remediate`). */
export type ApplyTrigger = "commit" | "remediation";

/** What a tick tells its watcher while it runs (the watcher logs, counts and shows it). */
export interface TickHooks extends ApplyHooks, LockHooks {
  /** The stack was judged (before anything is applied). */
  judged?(found: TickFindings): void;
  /** A line for the log. */
  say?(line: string): void;
  /** An apply is about to take the lock. */
  applying?(trigger: ApplyTrigger, commit: string | null): void;
  /** A repair was refused (counted per refusal, when newly recorded). */
  refused?(decision: RepairDecision): void;
}

/** How a tick's apply went, when there was one. */
export interface TickApply {
  trigger: ApplyTrigger;
  /** How many databases it was to change. */
  items: number;
  commit: string | null;
  startedAt: string;
  finishedAt: string;
  /** The reconciliation; absent when it failed before an audit entry (then `error`). */
  result?: ReconcileResult;
  /** The lock was held by someone else: nothing was changed. */
  lockBusy?: LockBusyError;
  error?: unknown;
}

/** What one tick did and left behind. */
export interface TickReport extends TickFindings {
  /** The apply the tick made (a new commit, or a remediation). */
  apply?: TickApply;
  /** The drift left after the apply. */
  remaining: TdePlanItem[];
  /** Findings of the state the tick leaves behind (converged databases as desired). */
  findings: Finding[];
  /** Each database the tick read (listed, and discovered in the scope), its sync state as the tick leaves it. */
  databases: DatabaseRead[];
  memory: TickMemory;
}

/** One tick of a watched stack: the stack, where its state lives, and what the watcher may do. */
export interface TickRequest extends ApplyTuning {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  state: StateStores;
  /** The commit the stack file was read at (following git), or null. */
  commit: string | null;
  /** The commit to record for an apply when not following git. */
  commitOf: () => Promise<string | null>;
  autoApply: boolean;
  autoRemediate: boolean;
  lockTimeoutMs: number;
  memory: TickMemory;
  /** Cancels the tick's reads (a shutdown). */
  signal?: AbortSignal;
  /** Stops a running apply between requests (a shutdown after the grace period). */
  stop?: AbortSignal;
  /** The fence before an apply starts (a watcher replica's lease): throws once this replica no longer leads. */
  fence?: () => Promise<void>;
  warn?: (line: string) => void;
  /** Judge only these rules (a targeted re-read after a change, over a stack narrowed to what it reaches); default every enabled rule. */
  rules?: readonly RuleDefinition<unknown>[];
  /** Who changed which database (lower-cased ARM id): its drift carries it (`TdePlanItem.cause`), as far as the audit entry of its repair. */
  causes?: ReadonlyMap<string, ChangeAttribution>;
}

/**
 * The reading half of a watch tick: judges the stack with every enabled rule through the check use
 * case (artifacts and probe results included, as `check` does), and plans each database's TDE from
 * the same reads.
 */
export async function judgeTick(req: {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  state: Pick<StateStores, "probes" | "audit">;
  concurrency: number;
  signal?: AbortSignal;
  warn?: (line: string) => void;
  rules?: readonly RuleDefinition<unknown>[];
  causes?: ReadonlyMap<string, ChangeAttribution>;
}): Promise<TickFindings> {
  const check = await runCheck({ ...req, alsoGather: [tdeStatus.key] });
  const items = planItems(req.stack, check.facts, req.causes);
  return { check, items, drift: items.filter((i) => i.action !== "none") };
}

/**
 * One tick: judge the stack, then reconcile what the watcher is allowed to (a new commit with
 * `autoApply`, drift that moves toward compliance with `autoRemediate`, through reconcileStack:
 * locked, re-read under the lock, fenced, audited), and judge what it leaves behind. A held lock
 * changes nothing and fails the tick (it is tried again next tick).
 */
export async function runWatchTick(req: TickRequest, hooks: TickHooks = {}): Promise<TickReport> {
  const found = await judgeTick(req);
  hooks.judged?.(found);
  const { check, items, drift } = found;
  const memory = { ...req.memory };
  let apply: TickApply | undefined;
  const newCommit = req.commit !== null && req.commit !== memory.reconciledCommit;
  if (newCommit && req.autoApply) {
    hooks.say?.(`new commit: applying ${drift.length} change(s)`);
    apply = drift.length ? await applyTick(req, "commit", drift, [], hooks) : undefined;
    const failed = apply?.result?.outcomes.some((o) => !o.ok) || (apply && !apply.result);
    if (!failed && !req.stop?.aborted) memory.reconciledCommit = req.commit!;
  } else {
    if (newCommit) {
      hooks.say?.(`new commit: plan has ${drift.length} change(s) (apply them with --auto-apply or stackwarden apply)`);
      memory.reconciledCommit = req.commit!;
    }
    if (req.autoRemediate && drift.length) apply = await remediate(req, drift, check.facts, memory, hooks);
  }
  const outcomes: ApplyOutcome[] = apply?.result?.outcomes ?? [];
  const converged = new Set(outcomes.filter((o) => o.ok).map((o) => o.item.id));
  const findings = converged.size ? findingsAfter(req.stack, check.facts, items, converged, req.rules) : check.findings;
  const remaining = drift.filter((d) => !converged.has(d.id));
  const databases = databasesRead({ stack: req.stack, facts: check.facts, items, remaining });
  return { ...found, apply, remaining, findings, databases, memory };
}

/** Repairs the drift that moves toward compliance; records (once) what it refuses. */
async function remediate(
  req: TickRequest,
  drift: TdePlanItem[],
  facts: ComplianceFacts,
  memory: TickMemory,
  hooks: TickHooks,
): Promise<TickApply | undefined> {
  const decisions = decideRepairs(drift, facts, req.stack, Date.now());
  const repairs = decisions.filter((d) => d.repair).map((d) => d.item);
  const refused = decisions.filter((d) => !d.repair);
  for (const r of refused) hooks.say?.(`not repairing ${databaseLabel(r.item.ref)}: ${r.reason}`);
  const refusedKey = refused.map((r) => `${r.item.id}=${r.item.desired.transparentDataEncryption}`).join(",");
  const newlyRefused = refusedKey !== memory.lastRefused;
  if (repairs.length === 0 && !(newlyRefused && refused.length)) {
    memory.lastRefused = refusedKey;
    return undefined;
  }
  const refusedChanges: AuditChange[] = newlyRefused
    ? refused.map((r) => ({
        resource: r.item.id,
        before: r.item.live ?? null,
        after: r.item.live ?? null,
        outcome: "refused",
        reason: r.reason,
      }))
    : [];
  if (newlyRefused) refused.forEach((r) => hooks.refused?.(r));
  if (repairs.length) hooks.say?.(`remediating ${repairs.length} database(s)`);
  const apply = await applyTick(req, "remediation", repairs, refusedChanges, hooks);
  // Remembered once recorded: a refusal whose apply could not run (a held lock) is recorded next tick.
  if (apply?.result) memory.lastRefused = refusedKey;
  return apply;
}

/** One apply of a tick, through reconcileStack; a held lock or a failure is reported in the result, not thrown. */
async function applyTick(
  req: TickRequest,
  trigger: ApplyTrigger,
  items: TdePlanItem[],
  refused: AuditChange[],
  hooks: TickHooks,
): Promise<TickApply | undefined> {
  // Shutting down (the tick's reads were cancelled): no apply starts.
  if (req.signal?.aborted) return undefined;
  // A replica that no longer leads (paused past its lease, its lease broken) applies nothing.
  try {
    await req.fence?.();
  } catch (e) {
    return {
      trigger,
      items: items.length,
      commit: req.commit,
      startedAt: new Date().toISOString(),
      finishedAt: new Date().toISOString(),
      error: e,
    };
  }
  const commit = req.commit ?? (await req.commitOf());
  const startedAt = new Date().toISOString();
  hooks.applying?.(trigger, commit);
  try {
    const result = await reconcileStack(
      {
        ...req,
        command: trigger === "commit" ? "watch" : "remediate",
        commit,
        engine: "native",
        yes: true,
        only: items,
        alsoRecord: refused,
        signal: req.signal,
        stop: req.stop,
      },
      hooks,
    );
    return { trigger, items: items.length, commit, startedAt, finishedAt: new Date().toISOString(), result };
  } catch (e) {
    const finishedAt = new Date().toISOString();
    return e instanceof LockBusyError
      ? { trigger, items: items.length, commit, startedAt, finishedAt, lockBusy: e, error: e }
      : { trigger, items: items.length, commit, startedAt, finishedAt, error: e };
  }
}

/** The findings of the state a tick leaves: the databases that converged now read as desired. */
function findingsAfter(
  stack: StackConfig,
  facts: ComplianceFacts,
  items: TdePlanItem[],
  converged: Set<string>,
  rules?: readonly RuleDefinition<unknown>[],
): Finding[] {
  const after = items
    .filter((i) => converged.has(i.id))
    .reduce((f, i) => withTdeStatus(f, i.id, i.desired.transparentDataEncryption, "live"), facts);
  return evaluateCompliance(after, stack.policies, stack.exemptions, Date.now(), rules).findings;
}

/**
 * Plan items from facts gathered for the stack (the facts are in the stack's database order). A
 * database that could not be read (the check's `unread`) has no item: nothing is applied to it. A
 * drifted database that `causes` names carries who changed it.
 */
export function planItems(stack: StackConfig, facts: ComplianceFacts, causes?: ReadonlyMap<string, ChangeAttribution>): TdePlanItem[] {
  return stack.databases.flatMap((desired, i) => {
    const fact = databaseFactsIn(facts)[i];
    if (fact?.unread) return [];
    const ref: TdeDatabaseRef = {
      subscriptionId: databaseSubscription(stack, desired),
      resourceGroup: desired.resourceGroup,
      server: desired.server,
      database: desired.database,
    };
    const raw = fact?.liveTdeStatus;
    const live = raw === UNKNOWN ? undefined : raw;
    const id = sqlDatabaseId(ref);
    const action = decideAction(live, desired.transparentDataEncryption);
    const cause = action === "none" ? undefined : causes?.get(id.toLowerCase());
    return [{ desired, ref, id, live, action, ...(cause ? { cause } : {}) }];
  });
}
