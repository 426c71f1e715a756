import { randomBytes } from "node:crypto";
import { AZURITE_KEY, startAzurite, type AzuriteServer } from "../../src/platform/programs/azurite-server";

export { AZURITE_KEY };

/** Azurite for a test file: started once (in memory, a free port), a new container per call of `container()`. */
export async function startTestAzurite(): Promise<AzuriteServer & { freshStateUrl(prefix?: string): string }> {
  const server = await startAzurite();
  return {
    ...server,
    freshStateUrl: (prefix) => server.stateUrl(`t-${randomBytes(6).toString("hex")}`, prefix),
  };
}

/** The environment a process needs to use an Azurite state URL. */
export function azuriteEnv(stateUrl: string): NodeJS.ProcessEnv {
  return { STACKWARDEN_STATE_URL: stateUrl, STACKWARDEN_STATE_ACCOUNT_KEY: AZURITE_KEY };
}
