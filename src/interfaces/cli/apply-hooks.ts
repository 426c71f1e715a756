import type { ApplyOutcome } from "../../domain/reconcile/tde-apply";
import { LockLostError } from "../../domain/reconcile/lock-lost-error";
import { describeHolder } from "../../domain/reconcile/stack-lock";
import { renderPlan } from "../../domain/reports/plan-report";
import { unreadOfPlanError } from "../../domain/reconcile/tde-plan";
import type { StackConfig } from "../../domain/stack/stack-config";
import { databaseLabel } from "../../platform/arm/resource-id";
import { formatDuration } from "../../platform/duration";
import type { ApplyHooks, ApplyStackResult, LockHooks } from "../../usecases/apply";
import type { CommandIO } from "./command-io";
import { unreadErrorLine } from "./failure-lines";
import { ApplyProgress } from "./render/apply-progress";

/**
 * How an apply shows on the command line: the plan (when read here), the databases that could not
 * be read (stderr), a question unless `--yes` or no one can answer, progress, and the summary.
 */
export function applyHooksFor(io: CommandIO, stack: StackConfig, stackName: string): ApplyHooks {
  const progress = new ApplyProgress(io);
  return {
    planned: (plan, readHere) => {
      if (readHere) io.out(renderPlan(plan, stack, stackName, "table"));
      // Databases that could not be read are reported and left alone; the exit code is 1.
      for (const e of plan.errors) io.err(unreadErrorLine("stackwarden apply", unreadOfPlanError(e)));
    },
    nothingToApply: (unread) =>
      io.out(unread ? "Nothing to apply among the databases that could be read." : "Nothing to apply: live TDE already matches the stack."),
    // Only where someone can answer: without it an apply refuses unless --yes (NotConfirmedError).
    confirm: io.ask ? async (question) => /^y(es)?$/i.test((await io.ask!(`${question} [y/N] `)).trim()) : undefined,
    event: progress.onEvent,
    applied: (outcomes) => {
      progress.finish();
      io.out(summarize(outcomes));
    },
  };
}

/** How waiting for, recovering and losing the stack's lock show on stderr. */
export function lockHooksFor(io: CommandIO, command: string, stackName: string, lockTimeoutMs: number): LockHooks {
  return {
    lockWait: (holder) =>
      io.err(
        `stackwarden ${command}: stack ${stackName} is locked by ${describeHolder(holder)}; waiting up to ${formatDuration(lockTimeoutMs)}`,
      ),
    lockRecovered: (holder) =>
      io.err(`stackwarden ${command}: recovered the lock left by ${describeHolder(holder)}: that process no longer runs`),
    // Said when it happens (a long scan may be under way); the coded line comes when the apply ends.
    lockLost: (reason) => io.err(`stackwarden ${command}: ${reason.message}`),
  };
}

/**
 * An apply that lost its lock: the audit note, before the error (SW_LOCK_LOST, naming what had been
 * sent) is passed on to end the command. Any other error is passed on as it is.
 */
export function reportLockLost(io: CommandIO, command: string, e: unknown, trail: string): never {
  if (e instanceof LockLostError && e.auditSeq !== undefined)
    io.err(`stackwarden ${command}: audit entry ${e.auditSeq} written to ${relativeTo(io.cwd, trail)}`);
  throw e;
}

/** The audit note (when something changed) and the engine's closing line, which stays the last word. */
export function reportApplied(io: CommandIO, command: string, result: ApplyStackResult): void {
  if (result.audited)
    io.err(`stackwarden ${command}: audit entry ${result.audited.seq} written to ${relativeTo(io.cwd, result.audited.where)}`);
  if (result.summary?.stream === "out") io.out(result.summary.line);
  else if (result.summary) io.err(result.summary.line);
}

function summarize(outcomes: ApplyOutcome[]): string {
  const failed = outcomes.filter((o) => !o.ok);
  const ok = outcomes.length - failed.length;
  const lost = failed.filter((o) => o.code === "SW_LOCK_LOST");
  const lines = [
    `Apply: ${ok} of ${outcomes.length} change(s) converged${failed.length > lost.length ? `, ${failed.length - lost.length} failed` : ""}${
      lost.length ? `, ${lost.length} stopped when the lock was lost` : ""
    }.`,
  ];
  for (const f of failed)
    lines.push(
      f.code === "SW_LOCK_LOST"
        ? `  ! ${databaseLabel(f.item.ref)}: stopped: ${STOPPED_PUT[f.put]}`
        : `  ! ${databaseLabel(f.item.ref)}: ${f.code ? `${f.code}: ` : ""}${f.error}`,
    );
  return lines.join("\n");
}

/** What became of a change stopped by the lock's loss, by what is known of its PUT. */
const STOPPED_PUT: Record<ApplyOutcome["put"], string> = {
  sent: "its PUT was sent and accepted; its scan was not awaited",
  unknown: "its PUT was sent and not answered: Azure may have taken it",
  "not-sent": "nothing was sent",
};

function relativeTo(cwd: string, p: string): string {
  return p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p;
}
