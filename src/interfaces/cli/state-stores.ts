import { resolve } from "node:path";
import type { Command } from "commander";
import { clientSetFromEnv } from "../../clients/client-set";
import { stateDirs } from "../../platform/settings/state-dirs";
import { openStateStores } from "../../platform/state/open-state";
import { parseStateUrl, STATE_URL_VAR } from "../../platform/state/state-url";
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

/**
 * The state stores a command reads and writes, where its flags and the environment say, with the
 * variables that open the same stores in a process it starts (`childEnv`).
 */
export async function stateStoresFor(io: Pick<CommandIO, "cwd" | "env">, flags: StateFlags = {}) {
  const stores = await openStateStores({
    cwd: io.cwd,
    env: io.env,
    url: flags.stateUrl,
    dirs: flags,
    credential: () => clientSetFromEnv(io.env).credential,
  });
  return Object.assign(stores, { childEnv: stateEnvFor(io, flags) });
}

/**
 * Where the state is, as variables a process started elsewhere (Pulumi's plugin, in the program's
 * directory) opens the same stores by: the state URL as given (a Blob Storage URL, its SAS
 * included: the variables stay in the environment), or for local files the directories resolved
 * against this command's working directory. Credentials come from the environment both share.
 */
export function stateEnvFor(io: Pick<CommandIO, "cwd" | "env">, flags: StateFlags = {}): Record<string, string> {
  const url = flags.stateUrl ?? io.env[STATE_URL_VAR];
  const loc = parseStateUrl(url, flags.stateUrl !== undefined ? "--state-url" : STATE_URL_VAR);
  if (loc.kind === "blob") return { [STATE_URL_VAR]: url!.trim() };
  const dirs = stateDirs(io.cwd, io.env, flags, loc.dir);
  return {
    [STATE_URL_VAR]: `file:${resolve(io.cwd, loc.dir ?? ".stackwarden")}`,
    STACKWARDEN_LOCK_DIR: dirs.locks,
    STACKWARDEN_AUDIT_DIR: dirs.audit,
    STACKWARDEN_PROBE_DIR: dirs.probes,
  };
}
