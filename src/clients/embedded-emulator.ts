import { startEmulator } from "../emulator/server";
import { loadSeedFile } from "../emulator/seed";
import { LOCAL_SERVICES } from "../emulator/services";
import { BINARY_ANALYSIS_PREFIX } from "../emulator/services/binary-analysis/binary-analysis-local";

export { DEFAULT_ESTATE } from "../emulator/default-estate";

/** An emulator serving every seeded API from this process, and the environment that points every client at it. */
export interface EmbeddedEmulator {
  /** Its base URL (`http://127.0.0.1:PORT`). */
  url: string;
  /**
   * `base` with every service's variable pointed at the emulator: ARM, IMDS (whose managed identity
   * answers the tokens: any `AZURE_ACCESS_TOKEN` is dropped), geocoding, binary analysis and the
   * certificate issuers (with keys the default estate accepts, unless `base` names its own).
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
    env: (base) => ({
      ...base,
      STACKWARDEN_ARM_ENDPOINT: emu.url,
      STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
      STACKWARDEN_GEOCODING_ENDPOINT: `${emu.url}/geocoding`,
      STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: `${emu.url}${BINARY_ANALYSIS_PREFIX}`,
      AZURE_ACCESS_TOKEN: "",
      // The emulator's issuers; its default estate takes any non-empty key (a seed may name its own).
      STACKWARDEN_APISETU_ENDPOINT: `${emu.url}/apisetu`,
      STACKWARDEN_APISETU_API_KEY: base.STACKWARDEN_APISETU_API_KEY?.trim() || "stackwarden-start",
      STACKWARDEN_APISETU_CLIENT_ID: base.STACKWARDEN_APISETU_CLIENT_ID?.trim() || "stackwarden-start",
    }),
    close: () => emu.close(),
  };
}
