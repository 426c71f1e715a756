import type { ChangeAttribution } from "../domain/changes/change-record";
import { mayWriteDatabase, writableStack } from "./scope";
import { dirname, resolve } from "node:path";
import type { ClientSet } from "../clients/client-set";
import type { AuditChange, AuditEntry } from "../domain/audit/audit-entry";
import { auditChangesOf, startedChange } from "../domain/reconcile/apply-changes";
import { fenceWrites } from "../domain/reconcile/fenced-tde-api";
import { LockLostError } from "../domain/reconcile/lock-lost-error";
import { handoffText, LOCK_HANDOFF_VAR } from "../domain/reconcile/lock-handoff";
import { runLockedApply } from "../domain/reconcile/locked-apply";
import { resolveActor } from "./audit-actor";
import type { LockHolder, StackLock } from "../domain/reconcile/stack-lock";
import { stopBetweenRequests } from "../domain/reconcile/stoppable-tde-api";
import type { TdeApi } from "../domain/reconcile/tde-api";
import { applyTde, type ApplyEvent, type ApplyOutcome } from "../domain/reconcile/tde-apply";
import { planTde, type TdePlan, type TdePlanItem } from "../domain/reconcile/tde-plan";
import type { StackConfig } from "../domain/stack/stack-config";
import type { StateStores } from "../domain/state/state-ports";
import { headCommit } from "../platform/programs/git-checkout";
import { runPulumiApply, type EngineIO, type EngineSummary } from "../platform/programs/pulumi-engine";
import { StackwardenError } from "../platform/errors/stackwarden-error";
import { UsageError } from "../platform/usage-error";
import { thisProcess } from "../platform/process-identity";

/** How an apply tells its caller what it is doing, and asks. Every hook is optional. */
export interface ApplyHooks {
  /** The plan the apply follows; `readHere` when it was read now (not given by the caller). */
  planned?(plan: TdePlan, readHere: boolean): void;
  /** There is nothing to apply; `unread` when some databases could not be read. */
  nothingToApply?(unread: boolean): void;
  /** Asks a yes/no question (`Apply 2 change(s) to stack dev?`); absent: no one can be asked, and an apply without `yes` refuses. */
  confirm?(question: string): Promise<boolean>;
  /** A database's change started, progressed, converged or failed. */
  event?(e: ApplyEvent): void;
  /** Every change has ended. */
  applied?(outcomes: ApplyOutcome[]): void;
}

/** What the lock said while an apply waited for it or held it. */
export interface LockHooks {
  lockWait?(holder: LockHolder | undefined): void;
  /** The lock was taken; `waitedMs` spent waiting for it. */
  lockAcquired?(waitedMs: number): void;
  lockRecovered?(holder: LockHolder): void;
  lockLost?(reason: Error): void;
}

/** How the scans are driven. */
export interface ApplyTuning {
  /** Databases changed at once. */
  concurrency: number;
  /** Longest wait for one scan, in ms. */
  scanTimeoutMs: number;
  /** Time between scan progress polls, in ms. */
  pollIntervalMs: number;
}

/**
 * An apply without `--yes` where no one can be asked (stdin is not a terminal): it refuses, as
 * `pulumi up` and `terraform apply` do, before anything is read, locked, written or audited.
 */
export class NotConfirmedError extends StackwardenError {
  constructor(stackName?: string) {
    super(
      "SW_NOT_CONFIRMED",
      `refusing to apply${stackName ? ` stack ${stackName}` : ""} without --yes: stdin is not a terminal, so no one can confirm the changes; nothing was read or changed (pass --yes to apply without asking)`,
    );
    this.name = "NotConfirmedError";
  }
}

/** One reconciliation of a stack: what to change, by which engine, under whose name. */
export interface ReconcileRequest extends ApplyTuning {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  state: Pick<StateStores, "locks" | "audit" | "childEnv">;
  /** What applies, for the lock holder and the audit entry (`apply`, `apply --engine pulumi`, `watch`, `remediate`, `start`). */
  command: string;
  /** How long to wait for a held lock, in ms (0: fail at once, naming the holder). */
  lockTimeoutMs: number;
  /** The commit applied; default: the head commit of the stack file's checkout. */
  commit?: string | null;
  /**
   * The databases to reconcile (a watch tick's drift, the repairs remediation decided); each is
   * read again under the lock and changed only if it still differs, so a change someone else made
   * meanwhile is not made twice. Absent: the whole stack is planned under the lock, and confirmed
   * unless `yes`.
   */
  only?: readonly TdePlanItem[];
  /** Changes recorded in the audit entry beside the applied ones (repairs remediation refused). */
  alsoRecord?: readonly AuditChange[];
  yes?: boolean;
  /** `native`: PUT and wait here; `pulumi`: `pulumi up --refresh` of `pulumiStack` through the Automation API. */
  engine: "native" | "pulumi";
  /** The Pulumi stack (`--stack NAME`), with the pulumi engine. */
  pulumiStack?: string;
  /** Where the pulumi engine writes its progress. */
  engineIO?: EngineIO;
  /** Cancels a wait for the lock. */
  signal?: AbortSignal;
  /** Stops the apply between requests (a shutdown): a request already sent finishes, none starts. */
  stop?: AbortSignal;
}

/** How a reconciliation ended. */
export interface ReconcileResult {
  exitCode: number;
  /** Each change made and how it ended (native engine). */
  outcomes: ApplyOutcome[];
  /** The audit entry written. */
  entry: AuditEntry;
  /** Stopped between requests by `stop`. */
  stopped: boolean;
  /** The engine's closing line (pulumi engine), to print last. */
  summary?: EngineSummary;
}

/**
 * Reconciles a stack: takes its lock (or fails naming the holder, or waits `lockTimeoutMs`),
 * checks its audit trail can be appended to, plans under the lock, asks when it must, applies by
 * the chosen engine with every write fenced by the lock, and appends the audit entry (who, what,
 * commit, exit code) before the lock is released. The one path of every apply: `apply`, `start`,
 * `watch --auto-apply` and `--auto-remediate`, and `apply --engine pulumi`. A lock lost while
 * held stops it before its next request; once its entry is written it rejects with LockLostError
 * (SW_LOCK_LOST), naming what had been sent.
 */
export async function reconcileStack(req: ReconcileRequest, hooks: ApplyHooks & LockHooks = {}): Promise<ReconcileResult> {
  // Before the lock, the audit trail and any request: an apply no one confirmed must leave no trace.
  if (!req.yes && !hooks.confirm && !req.only) throw new NotConfirmedError(req.stackName);
  if (req.engine === "pulumi" && !req.pulumiStack)
    throw new UsageError("--engine pulumi needs --stack NAME (a stack of the Pulumi project), not --config");
  const commit = req.commit !== undefined ? req.commit : await headCommit(dirname(resolve(req.cwd, req.stack.file)));
  let outcomes: ApplyOutcome[] = [];
  let summary: EngineSummary | undefined;
  const stop = req.stop ?? new AbortController().signal;
  let lostBecause: Error | undefined;
  let recorded: AuditChange[] = [];
  const locked = runLockedApply(
    {
      state: req.state,
      stack: req.stackName,
      command: req.command,
      holderProcess: thisProcess(),
      lockTimeoutMs: req.lockTimeoutMs,
      commit,
      actor: () => resolveActor(req.clients.actor),
      signal: req.signal,
      onLockWait: hooks.lockWait,
    },
    async (lock, started) => {
      hooks.lockAcquired?.(lock.waitedMs);
      if (lock.recovered) hooks.lockRecovered?.(lock.recovered);
      // Lost while held (lapsed, broken, taken over): writing stops before the next request, and the entry is still written.
      const lost = new AbortController();
      lock.lost.addEventListener(
        "abort",
        () => {
          lostBecause = lock.lost.reason as Error;
          hooks.lockLost?.(lostBecause);
          lost.abort(lostBecause);
        },
        { once: true },
      );
      const halt = AbortSignal.any([stop, lost.signal]);
      if (req.engine === "pulumi") {
        const r = await applyWithPulumi(req, lock, hooks);
        summary = r.summary;
        return r;
      }
      const api = fenceWrites(stopBetweenRequests(req.clients.sql, halt), lock);
      const beforeApply = (changes: readonly TdePlanItem[]) => started(changes.map(startedChange));
      // A database the file does not list is written only when the scope opts in (scope.remediate).
      const applied = req.only
        ? await applyOnly(
            api,
            req,
            req.only.filter((i) => mayWriteDatabase(req.stack, i.desired)),
            halt,
            hooks,
            beforeApply,
          )
        : await applyChanges(
            api,
            (await writableStack(req.stack, req.clients, { signal: halt })).stack,
            { ...req, signal: halt, beforeApply },
            hooks,
          );
      outcomes = applied.outcomes;
      // Read back where each change ended; after a lost lock too (reads change nothing), not after a shutdown.
      const readBack = stop.aborted ? api : fenceWrites(req.clients.sql, lock);
      const what = [...(await auditChangesOf(readBack, outcomes, halt)), ...(req.alsoRecord ?? [])];
      recorded = what;
      return { what, exitCode: applied.exitCode, ...(lostBecause ? { note: `lock lost: ${lostBecause.message}` } : {}) };
    },
  );
  // A lost lock is what ended it, even when its entry could not be written after (a store gone silent).
  const { result, entry } = await locked.catch((e: unknown) => {
    throw lostBecause && recorded.length && !(e instanceof LockLostError)
      ? new LockLostError(lostBecause, recorded, undefined, e as Error)
      : e;
  });
  if (lostBecause) throw new LockLostError(lostBecause, entry.what, entry.seq);
  return { exitCode: result.exitCode, outcomes, entry, stopped: stop.aborted, ...(summary ? { summary } : {}) };
}

/**
 * Plans (unless given the plan), asks (unless `yes`, or no one can be asked), applies each change
 * and waits for its scan. Databases that could not be read are left alone. Resolves to the
 * outcomes and the exit code: 0 all converged, 1 when a change failed or a database could not be
 * read. Not locked nor audited by itself: reconcileStack calls it under the lock.
 */
export async function applyChanges(
  api: TdeApi,
  stack: StackConfig,
  opts: ApplyTuning & {
    yes?: boolean;
    plan?: TdePlan;
    signal?: AbortSignal;
    stackName?: string;
    /** Called with the changes once they are decided (confirmed), before the first is sent. */
    beforeApply?: (changes: readonly TdePlanItem[]) => Promise<void>;
  },
  hooks: ApplyHooks = {},
): Promise<{ plan: TdePlan; outcomes: ApplyOutcome[]; exitCode: number }> {
  // No one can confirm: nothing is read, nothing written (pulumi up and terraform apply refuse alike).
  if (!opts.yes && !hooks.confirm) throw new NotConfirmedError();
  const plan = opts.plan ?? (await planTde(api, stack, { concurrency: Math.max(opts.concurrency, 16) }));
  hooks.planned?.(plan, !opts.plan);
  const unread = plan.errors.length > 0 ? 1 : 0;
  if (plan.changes.length === 0) {
    hooks.nothingToApply?.(unread > 0);
    return { plan, outcomes: [], exitCode: unread };
  }
  if (!opts.yes && !(await hooks.confirm!(`Apply ${plan.changes.length} change(s) to stack ${opts.stackName ?? "?"}?`))) {
    throw new StackwardenError("SW_NOT_CONFIRMED", "apply cancelled; nothing was changed");
  }
  await opts.beforeApply?.(plan.changes);
  const outcomes = await applyTde(api, plan.changes, {
    concurrency: opts.concurrency,
    scanTimeoutMs: opts.scanTimeoutMs,
    pollIntervalMs: opts.pollIntervalMs,
    signal: opts.signal,
    onEvent: hooks.event,
  });
  hooks.applied?.(outcomes);
  return { plan, outcomes, exitCode: outcomes.every((o) => o.ok) ? unread : 1 };
}

/** The given databases, read again under the lock: only those that still differ are changed. */
async function applyOnly(
  api: TdeApi,
  req: ReconcileRequest,
  only: readonly TdePlanItem[],
  halt: AbortSignal,
  hooks: ApplyHooks,
  beforeApply: (changes: readonly TdePlanItem[]) => Promise<void>,
): Promise<{ outcomes: ApplyOutcome[]; exitCode: number }> {
  if (only.length === 0) return { outcomes: [], exitCode: 0 };
  const planned = await planTde(api, { subscriptionId: req.stack.subscriptionId, databases: only.map((i) => i.desired) }, { signal: halt });
  // Read again, each change keeps who made the drift it repairs (the audit entry names them).
  const causes = new Map(only.flatMap((i) => (i.cause ? [[i.id.toLowerCase(), i.cause] as const] : [])));
  const plan = { ...planned, changes: planned.changes.map((c) => withCause(c, causes.get(c.id.toLowerCase()))) };
  await beforeApply(plan.changes);
  const outcomes = await applyTde(api, plan.changes, {
    concurrency: req.concurrency,
    scanTimeoutMs: req.scanTimeoutMs,
    pollIntervalMs: req.pollIntervalMs,
    signal: halt,
    onEvent: hooks.event,
  });
  hooks.applied?.(outcomes);
  return { outcomes, exitCode: outcomes.every((o) => o.ok) && plan.errors.length === 0 ? 0 : 1 };
}

function withCause(item: TdePlanItem, cause: ChangeAttribution | undefined): TdePlanItem {
  return cause ? { ...item, cause } : item;
}

/**
 * `pulumi up` of the stack, under the lock this process holds: its TDE provider (in Pulumi's plugin,
 * a process of its own) is handed the lock (STACKWARDEN_LOCK_HELD) and the state's location, and
 * fences every PUT against this holder instead of taking the lock it would wait for; this entry
 * records the engine's steps.
 */
async function applyWithPulumi(
  req: ReconcileRequest,
  lock: StackLock,
  hooks: ApplyHooks,
): Promise<{ what: AuditChange[]; exitCode: number; summary?: EngineSummary }> {
  if (!req.pulumiStack || !req.engineIO) throw new Error("reconcileStack: the pulumi engine needs pulumiStack and engineIO");
  const what: AuditChange[] = [];
  let summary: EngineSummary | undefined;
  const exitCode = await runPulumiApply(
    {
      stack: req.pulumiStack,
      stackFile: resolve(req.cwd, req.stack.file),
      // Asked here before pulumi up when not --yes (the CLI's terminal); reconcileStack refused already when no one can be.
      yes: req.yes,
      confirm: hooks.confirm && (() => hooks.confirm!(`Run pulumi up on stack ${req.pulumiStack} (previewed above)?`)),
      onResourceChange: (c) => what.push({ ...c, outcome: c.op }),
      onSummary: (s) => (summary = s),
      env: { ...req.state.childEnv, [LOCK_HANDOFF_VAR]: handoffText(lock) },
    },
    req.engineIO,
  );
  return { what, exitCode, summary };
}
