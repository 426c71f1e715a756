import { startEmulator } from "../emulator/server";
import { loadSeedFile } from "../emulator/seed";
import { LOCAL_SERVICES } from "../emulator/services";
import { emulatorOnlyEnvironment } from "../platform/settings/emulator-settings";

export { DEFAULT_ESTATE } from "../emulator/default-estate";

/** An emulator serving every seeded API from this process, and the environment that points every client at it. */
export interface EmbeddedEmulator {
  /** Its base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /**
   * `base` pointed at the emulator by `STACKWARDEN_EMULATOR` alone (every per-service endpoint
   * variable removed, so none overrides it): ARM, IMDS (whose managed identity answers the tokens:
   * any `AZURE_ACCESS_TOKEN` is dropped and no other credential is tried), geocoding, binary
   * analysis and the certificate issuers (with keys the emulator accepts, unless `base` names its own).
   */
  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** Starts the emulator in this process on a loopback port, serving the estate of a seed file (validated first). */
export async function startEmbeddedEmulator(seedFile: string): Promise<EmbeddedEmulator> {
  const seed = loadSeedFile(seedFile, LOCAL_SERVICES);
  const emu = await startEmulator({ seed });
  return {
    url: emu.url,
    env: (base) => emulatorOnlyEnvironment(base, emu.url),
    close: () => emu.close(),
  };
}
