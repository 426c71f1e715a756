import type { ClientSet } from "../clients/client-set";
import type { ProbeSpec } from "../domain/probes/probe-config";
import { writeProbeRun } from "../domain/probes/probe-results-store";
import { prepareProbes, type PreparedProbes, type ProbeRun } from "../domain/probes/probe-runner";
import type { StateStores } from "../domain/state/state-ports";

/** Exit code of `probe` (and `apply --probe`, `start`) when at least one probe failed. */
export const EXIT_PROBE_FAILED = 4;

/**
 * A stack's probes, checked and ready to send (settings, keys, every parameter: a SettingsError
 * when one cannot run, so nothing is sent). `apply --probe` prepares them before it changes
 * anything. Parameters are read from `env` (`${env:NAME}`), clients from the client set.
 */
export function prepareStackProbes(
  probes: readonly ProbeSpec[] | undefined,
  clients: ClientSet,
  env: NodeJS.ProcessEnv,
  concurrency?: number,
): PreparedProbes {
  return prepareProbes(probes ?? [], { env, clients, concurrency });
}

/** A probe run and how to keep it. */
export interface ProbeOutcome {
  run: ProbeRun;
  /**
   * Keeps the results (no parameter, no document) as the stack's last run, where `check` reads
   * them; returns the file, or undefined when there was nothing to keep. Separate from the run so
   * a caller shows the results first: a directory that cannot be written fails after them.
   */
  keep(): Promise<string | undefined>;
}

/** Sends every prepared probe and checks its document; issuer errors and failed checks are results, not exceptions. */
export async function runStackProbes(
  prepared: PreparedProbes,
  req: { stackName: string; state: Pick<StateStores, "probes">; command: string },
): Promise<ProbeOutcome> {
  const run = await prepared.run();
  return {
    run,
    keep: async () => (run.results.length ? writeProbeRun(req.state.probes, req.stackName, req.command, run) : undefined),
  };
}
