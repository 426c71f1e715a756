import type { Command } from "commander";

/** The flag of the commands that keep or read a stack's last probe run. */
export interface ProbeDirFlags {
  probeDir?: string;
}

/** Adds `--probe-dir DIR`: where each stack's last probe run is kept (`<stack>.json`). */
export function withProbeDirOption(cmd: Command): Command {
  return cmd.option(
    "--probe-dir <dir>",
    "directory of each stack's last probe results, read by check (env STACKWARDEN_PROBE_DIR; default .stackwarden/probes)",
  );
}
