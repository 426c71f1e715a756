import { Option, type Command } from "commander";
import { stateStoresFor } from "../state-stores";
import { applyStack } from "../../../usecases/apply";
import { prepareStackProbes } from "../../../usecases/probe";
import { applyHooksFor, lockHooksFor, reportApplied, reportLockLost } from "../apply-hooks";
import type { CommandIO } from "../command-io";
import { choiceOption, intOption } from "../option-parsers";
import { withOperationOptions, type OperationFlags } from "../operation-options";
import { withProbeDirOption, type ProbeDirFlags } from "../probe-dir-option";
import { showProbeStep } from "../probe-step";
import { loadStackFromFlags, withStackOptions, type StackFlags } from "../stack-options";
import { serviceClients } from "../service-clients";

export interface ApplyFlags extends StackFlags, Partial<OperationFlags>, ProbeDirFlags {
  yes?: boolean;
  /** Run the stack's probes once the apply has converged. */
  probe?: boolean;
  concurrency: number;
  scanTimeout: number;
  pollInterval: number;
  engine: "native" | "pulumi";
  output: "text" | "json";
}

export function registerApply(program: Command, io: CommandIO): void {
  withProbeDirOption(withOperationOptions(withStackOptions(program.command("apply"))))
    .description(
      "make the planned TDE changes and wait for each encryption or decryption scan to finish (exit 0 converged, 1 error; with --probe, 4 converged but a probe failed)",
    )
    .option(
      "-y, --yes",
      "apply without asking; required when stdin is not a terminal (without it apply refuses there: exit 1, nothing read or changed)",
    )
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
    .option(
      "--output <format>",
      'text: progress as it goes; json: progress on stderr, then one JSON document on stdout (exit code, each change, the audit entry; an error as {"error":{code,message}})',
      choiceOption(["text", "json"] as const),
      "text",
    )
    .action(async (flags: ApplyFlags) => {
      // With --output json, stdout carries the one document: the progress goes to stderr.
      const shown: CommandIO = flags.output === "json" ? progressToStderr(io) : io;
      const { stack, name } = loadStackFromFlags(flags, io);
      const clients = await serviceClients(io);
      // Checked before anything changes: a probe that could not run must not leave a half-proven deployment.
      const probes = flags.probe ? prepareStackProbes(stack.probes, clients, io.env) : undefined;
      const command = flags.engine === "pulumi" ? "apply --engine pulumi" : "apply";
      const lockTimeoutMs = flags.lockTimeout ?? 0;
      const state = await stateStoresFor(io, flags);
      const result = await applyStack(
        {
          stack,
          stackName: name,
          clients,
          cwd: io.cwd,
          state,
          command,
          lockTimeoutMs,
          yes: flags.yes,
          engine: flags.engine,
          pulumiStack: flags.stack,
          engineIO: io,
          concurrency: flags.concurrency,
          scanTimeoutMs: flags.scanTimeout * 1000,
          pollIntervalMs: flags.pollInterval,
          probes,
        },
        { ...applyHooksFor(shown, stack, name), ...lockHooksFor(shown, command, name, lockTimeoutMs) },
      ).catch((e: unknown) => reportLockLost(shown, command, e, state.audit.where(name)));
      reportApplied(shown, command, result);
      if (result.probes) {
        shown.out("");
        await showProbeStep(shown, name, result.probes);
      }
      if (flags.output === "json")
        io.out(
          JSON.stringify(
            {
              stack: name,
              engine: flags.engine,
              exitCode: result.exitCode,
              changes: result.changes,
              audited: result.audited ?? null,
              probes: result.probes ? { passed: result.probes.run.passed, failed: result.probes.run.failed } : null,
            },
            null,
            2,
          ),
        );
      io.exitCode = result.exitCode;
    });
}

/** The command's IO with what it writes to stdout sent to stderr (its lines stay in order with the rest). */
function progressToStderr(io: CommandIO): CommandIO {
  return { ...io, out: (line) => io.err(line), write: undefined, isTTY: false };
}
