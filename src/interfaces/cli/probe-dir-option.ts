import type { Command } from "commander";
import { withStateUrlOption } from "./state-stores";

/** The flag of the commands that keep or read a stack's last probe run. */
export interface ProbeDirFlags {
  probeDir?: string;
  stateUrl?: string;
}

/** Adds `--probe-dir DIR` (where each stack's last probe run is kept, `<stack>.json`) and `--state-url URL`. */
export function withProbeDirOption(cmd: Command): Command {
  return withStateUrlOption(cmd).option(
    "--probe-dir <dir>",
    "directory of each stack's last probe results, read by check (env STACKWARDEN_PROBE_DIR; default .stackwarden/probes)",
  );
}
