import { relative } from "node:path";
import type { PreparedProbes, ProbeRun } from "../../domain/probes/probe-runner";
import { renderProbeTable } from "../../domain/probes/probe-report";
import { writeProbeRun } from "../../domain/probes/probe-results-store";
import { stateDirs } from "../../platform/settings/state-dirs";
import type { CommandIO } from "./command-io";
import type { ProbeDirFlags } from "./probe-dir-option";

/**
 * Runs a stack's prepared probes as a step of a larger command (`apply --probe`, `npm start`):
 * prints the probe table, keeps the results as the stack's last run (where `check` reads them) and
 * says where. Resolves to the run; the caller decides what a failed probe does to its exit code.
 */
export async function runProbeStep(
  prepared: PreparedProbes,
  stackName: string,
  command: string,
  io: CommandIO,
  flags: ProbeDirFlags = {},
): Promise<ProbeRun> {
  const run = await prepared.run();
  io.out(renderProbeTable(stackName, run));
  if (run.results.length) {
    const path = writeProbeRun(stateDirs(io.cwd, io.env, flags).probes, stackName, command, run);
    const shown = relative(io.cwd, path);
    io.out(`Probe results kept in ${shown.startsWith("..") ? path : shown} (check judges them: post-deploy-probes).`);
  }
  return run;
}
