import { Option, type Command } from "commander";
import { stackFilePath, type StackConfig } from "../../../domain/stack/stack-config";
import { applyTde, type ApplyOutcome } from "../../../domain/reconcile/tde-apply";
import { planTde, type TdePlan } from "../../../domain/reconcile/tde-plan";
import { databaseLabel } from "../../../platform/arm/resource-id";
import type { TdeApi } from "../../../domain/reconcile/tde-api";
import { planErrorLines, renderPlan } from "../../../domain/reports/plan-report";
import { azureClientsFromEnv } from "../../../clients/azure-clients";
import type { CommandIO } from "../command-io";
import { intOption } from "../option-parsers";
import { ApplyProgress } from "../render/apply-progress";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { UsageError } from "../cli-error";
import type { AuditChange } from "../../../domain/audit/audit-entry";
import { auditChangesOf } from "../../../domain/reconcile/apply-changes";
import { runPulumiApply, type EngineSummary } from "../../../platform/programs/pulumi-engine";
import { applyUnderLock } from "../apply-under-lock";
import { withOperationOptions, type OperationFlags } from "../operation-options";
import { prepareProbes, type PreparedProbes } from "../../../domain/probes/probe-runner";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { runProbeStep } from "../probe-step";
import { EXIT_PROBE_FAILED } from "./probe-command";

export interface ApplyFlags extends StackFlags, Partial<OperationFlags>, ProbeDirFlags {
  yes?: boolean;
  /** Run the stack's probes once the apply has converged. */
  probe?: boolean;
  concurrency: number;
  scanTimeout: number;
  pollInterval: number;
  engine: "native" | "pulumi";
}

export function registerApply(program: Command, io: CommandIO): void {
  withProbeDirOption(withOperationOptions(withStackOptions(program.command("apply"))))
    .description(
      "make the planned TDE changes and wait for each encryption or decryption scan to finish (exit 0 converged, 1 error; with --probe, 4 converged but a probe failed)",
    )
    .option("-y, --yes", "do not ask for confirmation")
    .option(
      "--probe",
      "once converged, run the stack's certificate probes and keep their results for check (exit 4 when one fails); a probe that cannot run (a missing variable or key) stops the apply before it changes anything",
    )
    .option("--concurrency <n>", "databases changed at once", intOption(1, 64), 8)
    .option("--scan-timeout <seconds>", "longest wait for one scan", intOption(1), 3600)
    .option("--poll-interval <ms>", "time between progress polls", intOption(50, 600_000), 1000)
    .addOption(
      new Option("--engine <engine>", "native: PUT and wait here; pulumi: `pulumi up --refresh` through the Automation API")
        .choices(["native", "pulumi"])
        .default("native"),
    )
    .action(async (flags: ApplyFlags) => {
      const { stack, name } = loadStackFromFlags(flags, io);
      // Checked before anything changes: a probe that could not run must not leave a half-proven deployment.
      const probes = flags.probe ? prepareProbes(stack.probes ?? [], { env: io.env }) : undefined;
      await applyThenProbe(stack, name, flags, io, probes);
    });
}

/**
 * The exit code of `apply --probe`: the apply's own when it did not converge (1: nothing is
 * probed, there is no deployment to prove); otherwise 4 when a probe failed, else 0. A failed
 * probe does not undo the apply and is not recorded in the audit entry (which records changes);
 * the probe results are kept for `check`.
 */
async function applyThenProbe(stack: StackConfig, name: string, flags: ApplyFlags, io: CommandIO, probes?: PreparedProbes): Promise<void> {
  await applyStack(stack, name, flags, io);
  if (!probes || io.exitCode !== 0) return;
  io.out("");
  const run = await runProbeStep(probes, name, "apply --probe", io, flags);
  io.exitCode = run.failed > 0 ? EXIT_PROBE_FAILED : 0;
}

/** The apply itself, by the chosen engine, under the stack's lock; sets io.exitCode (0 converged, 1 error). */
async function applyStack(stack: StackConfig, name: string, flags: ApplyFlags, io: CommandIO): Promise<void> {
  if (flags.engine === "pulumi") {
    if (!flags.stack) throw new UsageError("--engine pulumi needs --stack NAME (a stack of the Pulumi project), not --config");
    const pulumiStack = flags.stack;
    io.exitCode = await applyUnderLock("apply --engine pulumi", stack, name, flags, io, async () => {
      const what: AuditChange[] = [];
      let summary: EngineSummary | undefined;
      const code = await runPulumiApply(
        {
          stack: pulumiStack,
          stackFile: stackFilePath(pulumiStack, io.cwd),
          yes: flags.yes,
          onResourceChange: (c) => what.push({ ...c, outcome: c.op }),
          onSummary: (s) => (summary = s),
        },
        io,
      );
      return { what, exitCode: code, summary };
    });
    return;
  }
  const { sql } = azureClientsFromEnv(io.env);
  io.exitCode = await applyUnderLock("apply", stack, name, flags, io, async () => {
    let outcomes: ApplyOutcome[] = [];
    const code = await runApply(sql, stack, name, flags, io, undefined, (o) => (outcomes = o));
    return { what: await auditChangesOf(sql, outcomes), exitCode: code };
  });
}

/** Plans, asks (unless --yes, or no one can answer), applies with progress; returns the exit code. */
export async function runApply(
  api: TdeApi,
  stack: StackConfig,
  stackName: string,
  flags: Omit<ApplyFlags, "engine" | "stack" | "config">,
  io: CommandIO,
  planned?: TdePlan,
  onOutcomes?: (outcomes: ApplyOutcome[]) => void,
): Promise<number> {
  const plan = planned ?? (await planTde(api, stack, { concurrency: Math.max(flags.concurrency, 16) }));
  if (!planned) io.out(renderPlan(plan, stack, stackName, "table"));
  // Databases that could not be read are reported and left alone; the others are applied, and the
  // exit code is 1 so that the pipeline knows the stack did not converge.
  for (const line of planErrorLines(plan)) io.err(`stackwarden apply: ${line}`);
  const unread = plan.errors.length > 0 ? 1 : 0;
  if (plan.changes.length === 0) {
    io.out(unread ? "Nothing to apply among the databases that could be read." : "Nothing to apply: live TDE already matches the stack.");
    return unread;
  }
  if (!flags.yes && io.ask) {
    const answer = await io.ask(`Apply ${plan.changes.length} change(s) to stack ${stackName}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new UsageError("apply cancelled; nothing was changed");
  }
  const progress = new ApplyProgress(io);
  const outcomes = await applyTde(api, plan.changes, {
    concurrency: flags.concurrency,
    scanTimeoutMs: flags.scanTimeout * 1000,
    pollIntervalMs: flags.pollInterval,
    onEvent: progress.onEvent,
  });
  progress.finish();
  onOutcomes?.(outcomes);
  io.out(summarize(outcomes));
  return outcomes.every((o) => o.ok) ? unread : 1;
}

function summarize(outcomes: ApplyOutcome[]): string {
  const failed = outcomes.filter((o) => !o.ok);
  const ok = outcomes.length - failed.length;
  const lines = [`Apply: ${ok} of ${outcomes.length} change(s) converged${failed.length ? `, ${failed.length} failed` : ""}.`];
  for (const f of failed) lines.push(`  ! ${databaseLabel(f.item.ref)}: ${f.error}`);
  return lines.join("\n");
}
