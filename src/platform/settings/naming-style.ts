import { SettingsError } from "./settings-error";

/**
 * The product description renames a few vendor tokens: the ARM namespaces (`Provider.Sql` for
 * `Microsoft.Sql`) and the certificate gateway's headers (`X-GATEWAY-APIKEY` for `X-APISETU-APIKEY`).
 * Clients speak the real names unless `STACKWARDEN_PROVIDER_NAMES=described` asks for the described
 * ones (for gateways that use them); the emulator accepts both.
 */
export type NamingStyle = "real" | "described";

/** Reads `STACKWARDEN_PROVIDER_NAMES` (`real`, the default, or `described`). */
export function namingStyleFromEnv(env: NodeJS.ProcessEnv = process.env): NamingStyle {
  const v = env.STACKWARDEN_PROVIDER_NAMES?.trim().toLowerCase();
  if (!v || v === "real") return "real";
  if (v === "described") return "described";
  throw new SettingsError(`STACKWARDEN_PROVIDER_NAMES: expected "real" or "described", got "${env.STACKWARDEN_PROVIDER_NAMES}"`);
}
