import type { ApplyOutcome } from "../../domain/reconcile/tde-apply";
import { describeHolder } from "../../domain/reconcile/stack-lock";
import { planErrorLines, renderPlan } from "../../domain/reports/plan-report";
import type { StackConfig } from "../../domain/stack/stack-config";
import { databaseLabel } from "../../platform/arm/resource-id";
import { formatDuration } from "../../platform/duration";
import type { ApplyHooks, ApplyStackResult, LockHooks } from "../../usecases/apply";
import type { CommandIO } from "./command-io";
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
      for (const line of planErrorLines(plan)) io.err(`stackwarden apply: ${line}`);
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
    lockLost: (reason) => io.err(`stackwarden ${command}: warning: ${reason.message}`),
  };
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
  const lines = [`Apply: ${ok} of ${outcomes.length} change(s) converged${failed.length ? `, ${failed.length} failed` : ""}.`];
  for (const f of failed) lines.push(`  ! ${databaseLabel(f.item.ref)}: ${f.error}`);
  return lines.join("\n");
}

function relativeTo(cwd: string, p: string): string {
  return p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p;
}
