import { EMULATOR_VAR } from "../platform/settings/emulator-settings";
import { probeEmulatorOnce } from "./emulator-probe";

/**
 * Where a newcomer's emulator runs: every README walk-through starts it with
 * `npx stackwarden emulator --port 4000` (without `--port` it picks a free port, and prints it).
 */
export const WELL_KNOWN_EMULATOR_URL = "http://127.0.0.1:4000";

/** How long the look for an emulator may take, in ms: a loopback port answers or refuses at once. */
const HINT_TIMEOUT_MS = 500;

/** The variables that point Resource Manager or its token source somewhere on purpose: with one set, no hint is given. */
const POINTING_VARIABLES = [EMULATOR_VAR, "STACKWARDEN_ARM_ENDPOINT", "STACKWARDEN_IMDS_ENDPOINT"];

/**
 * For a command whose credentials failed while nothing points it anywhere (no STACKWARDEN_EMULATOR,
 * no endpoint variable): when an emulator answers at `url` (the README's port by default), the hint
 * to point the CLI at it, else undefined. What it catches: `STACKWARDEN_EMULATOR=…` set in a shell
 * without `export`, which npx never sees, so the command went to Azure's defaults instead.
 */
export async function emulatorHint(env: NodeJS.ProcessEnv, url: string = WELL_KNOWN_EMULATOR_URL): Promise<string | undefined> {
  if (POINTING_VARIABLES.some((name) => env[name]?.trim())) return undefined;
  const probe = await probeEmulatorOnce(url, HINT_TIMEOUT_MS);
  if (probe.kind !== "emulator") return undefined;
  return `an emulator answers at ${url}: export ${EMULATOR_VAR}=${url} to use it (a variable set without export is not passed to npx)`;
}
