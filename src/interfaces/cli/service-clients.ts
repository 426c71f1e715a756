import { clientSetFromEnv, type ClientSet } from "../../clients/client-set";
import { requireEmulator } from "../../clients/emulator-url-check";
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
