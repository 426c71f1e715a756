import { stateDirs } from "../../platform/settings/state-dirs";
import { openStateStores } from "../../platform/state/open-state";
import type { CommandIO } from "./command-io";

/** The directory flags a command may have given (`--lock-dir`, `--audit-dir`, `--probe-dir`). */
export interface StateFlags {
  lockDir?: string;
  auditDir?: string;
  probeDir?: string;
}

/** The state stores a command reads and writes, where its flags and the environment say. */
export function stateStoresFor(io: Pick<CommandIO, "cwd" | "env">, flags: StateFlags = {}) {
  return openStateStores(stateDirs(io.cwd, io.env, flags), io.cwd);
}
