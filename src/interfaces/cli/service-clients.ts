import { clientSetFromEnv, emulatorClientSet, type ClientSet } from "../../clients/client-set";
import { requireEmulator, requireEmulatorAt } from "../../clients/emulator-url-check";
import { EMULATOR_FLAG, EMULATOR_VAR, emulatorUrl } from "../../platform/settings/emulator-settings";
import { UsageError } from "../../platform/usage-error";
import type { CommandIO } from "./command-io";

/**
 * The client set of a command that reaches services. When STACKWARDEN_EMULATOR (or `--emulator`)
 * points them at the emulator, the emulator is asked first whether it answers there (once per
 * process): a wrong URL is one SW_EMULATOR_URL line within 2 s, before any credential is tried,
 * instead of a credential chain's story after its retries.
 */
export async function serviceClients(io: Pick<CommandIO, "env">): Promise<ClientSet> {
  await requireEmulator(io.env);
  return clientSetFromEnv(io.env);
}

/**
 * The client set of the emulator STACKWARDEN_EMULATOR (or `--emulator`) names, and of nothing else,
 * once it answered there: for a command that writes to the emulator only (`emulator change`). A
 * UsageError when neither names one, SW_EMULATOR_URL when no emulator answers there.
 */
export async function emulatorOnlyClients(io: Pick<CommandIO, "env">, command: string): Promise<{ clients: ClientSet; url: string }> {
  const setting = emulatorUrl(io.env);
  if (!setting) {
    throw new UsageError(
      `${command} writes to a running emulator only: give ${EMULATOR_FLAG} URL or set ${EMULATOR_VAR} to the URL \`stackwarden emulator\` printed`,
    );
  }
  await requireEmulatorAt(setting);
  return { clients: emulatorClientSet(io.env, setting.value), url: setting.value };
}
