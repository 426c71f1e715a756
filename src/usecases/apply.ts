import { dirname, resolve } from "node:path";
import type { ClientSet } from "../clients/client-set";
import type { AuditChange } from "../domain/audit/audit-entry";
import { auditChangesOf } from "../domain/reconcile/apply-changes";
import { runLockedApply, type AppliedResult } from "../domain/reconcile/locked-apply";
import type { LockHolder } from "../domain/reconcile/stack-lock";
import type { TdeApi } from "../domain/reconcile/tde-api";
import { applyTde, type ApplyEvent, type ApplyOutcome } from "../domain/reconcile/tde-apply";
import { planTde, type TdePlan } from "../domain/reconcile/tde-plan";
import { stackFilePath, type StackConfig } from "../domain/stack/stack-config";
import { headCommit } from "../platform/programs/git-checkout";
import { runPulumiApply, type EngineIO, type EngineSummary } from "../platform/programs/pulumi-engine";
import type { StateDirs } from "../platform/settings/state-dirs";
import type { PreparedProbes } from "../domain/probes/probe-runner";
import { EXIT_PROBE_FAILED, runStackProbes, type ProbeOutcome } from "./probe";
import { UsageError } from "../platform/usage-error";

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

/**
 * An apply without `--yes` where no one can be asked (stdin is not a terminal): it refuses, as
 * `pulumi up` and `terraform apply` do, before anything is read, locked, written or audited.
 */
export class NotConfirmedError extends UsageError {
  constructor(stackName?: string) {
    super(
      `refusing to apply${stackName ? ` stack ${stackName}` : ""} without --yes: stdin is not a terminal, so no one can confirm the changes; nothing was read or changed (pass --yes to apply without asking)`,
    );
    this.name = "NotConfirmedError";
  }
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
 * Plans (unless given the plan), asks (unless `yes`, or no one can be asked), applies each change
 * and waits for its scan. Databases that could not be read are left alone. Resolves to the
 * outcomes and the exit code: 0 all converged, 1 when a change failed or a database could not be
 * read. Not locked nor audited: `applyStack` is, `npm start`'s embedded run is not.
 */
export async function applyChanges(
  api: TdeApi,
  stack: StackConfig,
  opts: ApplyTuning & { yes?: boolean; plan?: TdePlan; signal?: AbortSignal; stackName?: string },
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
    throw new UsageError("apply cancelled; nothing was changed");
  }
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

/** One apply of a stack, under its lock and written to its audit trail. */
export interface ApplyRequest extends ApplyTuning {
  stack: StackConfig;
  stackName: string;
  clients: ClientSet;
  cwd: string;
  dirs: StateDirs;
  /** What applies, for the lock holder and the audit entry (`apply`, `apply --engine pulumi`). */
  command: string;
  /** How long to wait for a held lock, in ms (0: fail at once, naming the holder). */
  lockTimeoutMs: number;
  yes?: boolean;
  /** `native`: PUT and wait here; `pulumi`: `pulumi up --refresh` of `pulumiStack` through the Automation API. */
  engine: "native" | "pulumi";
  /** The Pulumi stack (`--stack NAME`), with the pulumi engine. */
  pulumiStack?: string;
  /** Where the pulumi engine writes its progress. */
  engineIO?: EngineIO;
  /** Probes to run once the apply has converged (`apply --probe`), prepared before anything changes. */
  probes?: PreparedProbes;
}

/** What the lock said while an apply waited for it or held it. */
export interface LockHooks {
  lockWait?(holder: LockHolder | undefined): void;
  lockRecovered?(holder: LockHolder): void;
  lockLost?(reason: Error): void;
}

/** How an apply of a stack ended. */
export interface ApplyStackResult {
  exitCode: number;
  /** The audit entry written, when something changed (its sequence number and the trail's directory). */
  audited?: { seq: number; dir: string };
  /** The engine's closing line (pulumi engine), to print last. */
  summary?: EngineSummary;
  /** The probes' run, when asked for and the apply converged. */
  probes?: ProbeOutcome;
}

/**
 * Applies a stack by the chosen engine under its lock, and appends its audit entry (who, what,
 * commit, exit code) before the lock is released. A held lock fails at once naming the holder,
 * unless `lockTimeoutMs` says to wait.
 */
export async function applyStack(req: ApplyRequest, hooks: ApplyHooks & LockHooks = {}): Promise<ApplyStackResult> {
  // Before the lock, the audit trail and any request: an apply no one confirmed must leave no trace.
  if (!req.yes && !hooks.confirm) throw new NotConfirmedError(req.stackName);
  if (req.engine === "pulumi" && !req.pulumiStack)
    throw new UsageError("--engine pulumi needs --stack NAME (a stack of the Pulumi project), not --config");
  const { result, entry } = await runLockedApply(
    {
      dirs: req.dirs,
      stack: req.stackName,
      command: req.command,
      lockTimeoutMs: req.lockTimeoutMs,
      commit: await headCommit(dirname(resolve(req.cwd, req.stack.file))),
      actor: req.clients.actor,
      onLockWait: hooks.lockWait,
    },
    async (lock): Promise<AppliedResult> => {
      if (lock.recovered) hooks.lockRecovered?.(lock.recovered);
      // Another process took the lock over (it was not refreshed in time): the entry is still written.
      lock.lost.addEventListener("abort", () => hooks.lockLost?.(lock.lost.reason as Error), { once: true });
      return req.engine === "pulumi" ? applyWithPulumi(req, hooks) : applyNatively(req, hooks);
    },
  );
  const applied: ApplyStackResult = {
    exitCode: result.exitCode,
    ...(entry.what.length > 0 ? { audited: { seq: entry.seq, dir: req.dirs.audit } } : {}),
    ...(result.summary ? { summary: result.summary } : {}),
  };
  // A failed probe does not undo the apply and is not in the audit entry (which records changes);
  // nothing is probed when the apply did not converge: there is no deployment to prove.
  if (!req.probes || applied.exitCode !== 0) return applied;
  const probes = await runStackProbes(req.probes, { stackName: req.stackName, dirs: req.dirs, command: "apply --probe" });
  return { ...applied, probes, exitCode: probes.run.failed > 0 ? EXIT_PROBE_FAILED : 0 };
}

async function applyNatively(req: ApplyRequest, hooks: ApplyHooks): Promise<AppliedResult> {
  const sql = req.clients.sql;
  const { outcomes, exitCode } = await applyChanges(sql, req.stack, { ...req }, hooks);
  return { what: await auditChangesOf(sql, outcomes), exitCode };
}

async function applyWithPulumi(req: ApplyRequest, hooks: ApplyHooks): Promise<AppliedResult> {
  if (!req.pulumiStack || !req.engineIO) throw new Error("applyStack: the pulumi engine needs pulumiStack and engineIO");
  const what: AuditChange[] = [];
  let summary: EngineSummary | undefined;
  const exitCode = await runPulumiApply(
    {
      stack: req.pulumiStack,
      stackFile: stackFilePath(req.pulumiStack, req.cwd),
      // Asked here before pulumi up when not --yes (the CLI's terminal); applyStack refused already when no one can be.
      yes: req.yes,
      confirm: hooks.confirm && (() => hooks.confirm!(`Run pulumi up on stack ${req.pulumiStack} (previewed above)?`)),
      onResourceChange: (c) => what.push({ ...c, outcome: c.op }),
      onSummary: (s) => (summary = s),
    },
    req.engineIO,
  );
  return { what, exitCode, summary };
}
