import { endpointVar, serviceSetting, SettingsError } from "../../platform/settings/endpoints";
import { namingStyleFromEnv, type NamingStyle } from "../../platform/settings/naming-style";

/** The real issuers' host; `/<issuer>/v3` follows it. */
export const DEFAULT_APISETU_ENDPOINT = "https://apisetu.gov.in";

/** Where the certificate issuers are and how to authenticate to them, from the environment. */
export interface ApiSetuSettings {
  /** The part of the base address before `/<issuer>/v3` (`STACKWARDEN_APISETU_ENDPOINT`). */
  endpoint: string;
  /** `STACKWARDEN_APISETU_API_KEY`, when set. */
  apiKey?: string;
  /** `STACKWARDEN_APISETU_CLIENT_ID`, when set. */
  clientId?: string;
  /** Which header names to send (`STACKWARDEN_PROVIDER_NAMES`). */
  naming: NamingStyle;
}

/** Reads `STACKWARDEN_APISETU_ENDPOINT`, `STACKWARDEN_APISETU_API_KEY`, `STACKWARDEN_APISETU_CLIENT_ID` (each, when unset, from `STACKWARDEN_EMULATOR`) and `STACKWARDEN_PROVIDER_NAMES`. */
export function apisetuSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): ApiSetuSettings {
  return {
    endpoint: endpointVar(env, "STACKWARDEN_APISETU_ENDPOINT", DEFAULT_APISETU_ENDPOINT),
    apiKey: serviceSetting(env, "STACKWARDEN_APISETU_API_KEY")?.value,
    clientId: serviceSetting(env, "STACKWARDEN_APISETU_CLIENT_ID")?.value,
    naming: namingStyleFromEnv(env),
  };
}

/** The settings with both keys present; otherwise a SettingsError naming the missing variable. */
export function requireApiSetuKeys(s: ApiSetuSettings): ApiSetuSettings & { apiKey: string; clientId: string } {
  const missing = [!s.apiKey && "STACKWARDEN_APISETU_API_KEY", !s.clientId && "STACKWARDEN_APISETU_CLIENT_ID"].filter(Boolean);
  if (missing.length) {
    throw new SettingsError(
      `${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not set: the certificate issuers need an API key and a client id (the emulator accepts any non-empty values unless its seed names the keys)`,
    );
  }
  return s as ApiSetuSettings & { apiKey: string; clientId: string };
}

/** Whether the endpoint is the real issuers' host (where invented demo parameters must never go). */
export function isRealApiSetu(endpoint: string): boolean {
  try {
    const host = new URL(endpoint).hostname.toLowerCase();
    return host === "apisetu.gov.in" || host.endsWith(".apisetu.gov.in");
  } catch {
    return false;
  }
}
