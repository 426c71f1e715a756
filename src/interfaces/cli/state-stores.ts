import type { Command } from "commander";
import { clientSetFromEnv } from "../../clients/client-set";
import { openStateStores } from "../../platform/state/open-state";
import type { CommandIO } from "./command-io";

/** The flags a command may have given about where state lives. */
export interface StateFlags {
  stateUrl?: string;
  lockDir?: string;
  auditDir?: string;
  probeDir?: string;
}

/** Adds `--state-url URL` (once, however many option groups a command takes). */
export function withStateUrlOption(cmd: Command): Command {
  if (cmd.options.some((o) => o.long === "--state-url")) return cmd;
  return cmd.option(
    "--state-url <url>",
    "where locks, audit trails, probe results and watcher state live: file:DIR, https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX] or http://HOST:PORT/ACCOUNT/CONTAINER (env STACKWARDEN_STATE_URL; default .stackwarden)",
  );
}

/** The state stores a command reads and writes, where its flags and the environment say. */
export function stateStoresFor(io: Pick<CommandIO, "cwd" | "env">, flags: StateFlags = {}) {
  return openStateStores({
    cwd: io.cwd,
    env: io.env,
    url: flags.stateUrl,
    dirs: flags,
    credential: () => clientSetFromEnv(io.env).credential,
  });
}
