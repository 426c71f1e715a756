import { relative } from "node:path";
import { allRules } from "../../domain/compliance/registry";
import { probeResults } from "../../domain/facts/probe-results";
import { renderProbeTable } from "../../domain/probes/probe-report";
import type { ProbeOutcome } from "../../usecases/probe";
import type { CommandIO } from "./command-io";

/**
 * Shows a stack's probe run as a step of a larger command (`apply --probe`, `npm start`): the probe
 * table, then keeps the results as the stack's last run (where `check` reads them) and says where.
 */
export async function showProbeStep(io: CommandIO, stackName: string, outcome: ProbeOutcome): Promise<void> {
  io.out(renderProbeTable(stackName, outcome.run));
  const path = await outcome.keep();
  if (path) {
    const shown = relative(io.cwd, path);
    const judges = allRules().filter((r) => r.facts.includes(probeResults.key));
    io.out(`Probe results kept in ${shown.startsWith("..") ? path : shown} (check judges them: ${judges.map((r) => r.id).join(", ")}).`);
  }
}
