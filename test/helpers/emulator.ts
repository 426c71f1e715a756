import { ImdsManagedIdentityCredential } from "../../src/services/imds/imds-credential";
import type { RetryPolicyOptions } from "../../src/platform/http";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../src/emulator/server";
import { parseSeed, type SeedDocument } from "../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../src/emulator/services";

/** Retries that keep tests fast: the same policy shape, with millisecond backoffs. */
export const FAST_RETRY: Partial<RetryPolicyOptions> = { baseDelayMs: 2, maxDelayMs: 40, maxElapsedMs: 15_000, maxAttempts: 6 };

export interface TestEmulator {
  emu: RunningEmulator;
  url: string;
  imdsEndpoint: string;
  /** A managed-identity credential against this emulator's IMDS. */
  credential: ImdsManagedIdentityCredential;
  close(): Promise<void>;
}

/** Starts an in-process emulator on a free port with a credential bound to its IMDS. */
export async function startTestEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const errors: string[] = [];
  const emu = await startEmulator({ onError: (l) => errors.push(l), ...opts });
  const imdsEndpoint = `${emu.url}/metadata`;
  const credential = new ImdsManagedIdentityCredential({ endpoint: imdsEndpoint, retry: FAST_RETRY });
  return {
    emu,
    url: emu.url,
    imdsEndpoint,
    credential,
    async close() {
      await emu.close();
      if (errors.length) throw new Error(`the emulator reported handler errors:\n${errors.join("\n")}`);
    },
  };
}

/** Parses an inline YAML seed with the real seed validation. */
export function seedFromYaml(yamlText: string): SeedDocument {
  return parseSeed("inline-seed.yaml", yamlText, LOCAL_SERVICES);
}
