import { type Command, Option } from "commander";
import { stateStoresFor } from "../state-stores";
import { DEFAULT_ESTATE } from "../../../clients/embedded-emulator";
import { renderComplianceTable } from "../../../domain/reports/compliance-report";
import { renderPlan } from "../../../domain/reports/plan-report";
import { loadStackFile } from "../../../usecases/stack-file";
import { stackFilePath } from "../../../platform/files/stack-files";
import { VERSION } from "../../../platform/version";
import { runStart } from "../../../usecases/start";
import { applyHooksFor } from "../apply-hooks";
import { errorLine } from "../cli-error";
import type { CommandIO } from "../command-io";
import { scanErrorLine, unreadErrorLine } from "../failure-lines";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { showProbeStep } from "../probe-step";
import { STACKS_DIR_OPTION } from "../stack-options";
import { describeApplied } from "../render/applied-summary";

/**
 * `npm start`: the main job against the embedded emulator. It serves the example estate,
 * then runs plan, apply, a second plan (which must be empty), the stack's certificate probes
 * against the emulator's issuers, and the compliance check (which judges those probe results).
 * Exit 0; 1 when the apply did not converge; 3 on a mandatory violation; else 4 when a probe failed.
 */
export function registerStart(program: Command, io: CommandIO): void {
  withProbeDirOption(program.command("start"))
    .description(
      "run the main job (plan, apply, plan, probe, check) for a stack against the embedded emulator (exit 0; 1 not converged or an error; 3 a mandatory violation; else 4 a probe failed)",
    )
    .option("--stack <name>", "stack to reconcile", "dev")
    .option(...STACKS_DIR_OPTION)
    // The default is shown as the package's file, not this machine's absolute path (docs/reference.md is generated from it).
    .addOption(new Option("--seed <file>", "estate the emulator serves").default(DEFAULT_ESTATE, "the package's `stacks/dev.estate.yaml`"))
    .action(async (flags: { stack: string; seed: string; stacksDir?: string } & ProbeDirFlags) => {
      const stack = loadStackFile(stackFilePath(flags.stack, io.cwd, flags.stacksDir), io.env, io.cwd);
      const outcome = await runStart(
        { stack, stackName: flags.stack, seedFile: flags.seed, env: io.env, cwd: io.cwd, state: await stateStoresFor(io, flags) },
        {
          emulatorStarted: (url) => io.out(`Embedded emulator at ${url} serving ${flags.seed.replace(`${io.cwd}/`, "")}`),
          step: (n, step) => io.out(`\n== ${n}. ${step} ==`),
          planned: (plan) => io.out(renderPlan(plan, stack, flags.stack, "table")),
          apply: applyHooksFor(io, stack, flags.stack),
          notConverged: () =>
            io.err(errorLine("stackwarden start", "SW_NOT_CONVERGED", "the second plan still has changes; apply did not converge")),
          warn: (line) => io.err(`stackwarden start: ${line}`),
          probed: (probes) => showProbeStep(io, flags.stack, probes),
          checked: (result) =>
            io.out(
              renderComplianceTable({
                stackName: flags.stack,
                file: stack.file,
                result,
                generatedAt: new Date(),
                toolVersion: VERSION,
                notes: result.notes,
              }),
            ),
        },
      );
      const { check, probes } = outcome;
      if (check && probes) {
        const s = check.summary;
        const scanned = outcome.artifactsScanned === undefined ? "" : `; ${outcome.artifactsScanned} artifact(s) scanned`;
        io.out(
          `\nDone: ${describeApplied(outcome.plan.changes)}; the stack has converged. Probes: ${probes.run.passed} of ${probes.run.results.length} passed. Compliance: ${s.mandatoryViolations} mandatory violation(s), ${s.advisoryViolations} advisory finding(s)${scanned}.`,
        );
        for (const e of check.scanErrors) io.err(scanErrorLine("stackwarden start", e));
        for (const u of check.unread) io.err(unreadErrorLine("stackwarden start", u));
      }
      io.exitCode = outcome.exitCode;
    });
}
