import { checkUrl } from "./settings-error";

/**
 * One variable for the emulator. `STACKWARDEN_EMULATOR=<its base URL>` (or `--emulator URL` on any
 * command) points every service at the one port the emulator serves them all on, as LocalStack's
 * and Azurite's single endpoint do, with keys it accepts. A service's own variable still wins.
 */
export const EMULATOR_VAR = "STACKWARDEN_EMULATOR";

/** The flag that sets STACKWARDEN_EMULATOR for one command. */
export const EMULATOR_FLAG = "--emulator";

/** Set (to `1`) beside STACKWARDEN_EMULATOR when `--emulator` gave it, so that messages name the flag, not the variable. */
export const EMULATOR_FLAG_MARK = "STACKWARDEN_EMULATOR_FROM_FLAG";

/**
 * The API key and client id sent to the emulator's geocoding service and certificate issuers when
 * no key variable is set: its estates accept any non-empty key unless their seed names keys (then
 * set the key variables).
 */
export const EMULATOR_KEY = "stackwarden-emulator";

/** Each service's endpoint variable and where the emulator serves that service, under its base URL. */
const ENDPOINT_PATHS: Readonly<Record<string, string>> = {
  STACKWARDEN_ARM_ENDPOINT: "",
  STACKWARDEN_IMDS_ENDPOINT: "/metadata",
  STACKWARDEN_BINARY_ANALYSIS_ENDPOINT: "/binary-analysis/v1",
  STACKWARDEN_GEOCODING_ENDPOINT: "/geocoding",
  STACKWARDEN_APISETU_ENDPOINT: "/apisetu",
};

/**
 * Each key variable and the endpoint variable of the service it is sent to: the emulator's key is
 * used only when that service is the emulator's too, so it never goes to a service set elsewhere.
 */
const KEY_OF_SERVICE: Readonly<Record<string, string>> = {
  STACKWARDEN_GEOCODING_API_KEY: "STACKWARDEN_GEOCODING_ENDPOINT",
  STACKWARDEN_APISETU_API_KEY: "STACKWARDEN_APISETU_ENDPOINT",
  STACKWARDEN_APISETU_CLIENT_ID: "STACKWARDEN_APISETU_ENDPOINT",
};

/** The variables STACKWARDEN_EMULATOR stands in for (each overrides it when set). */
export const EMULATOR_COVERS: readonly string[] = [...Object.keys(ENDPOINT_PATHS), ...Object.keys(KEY_OF_SERVICE)];

/** A service setting's value and what set it: its own variable, `STACKWARDEN_EMULATOR` or `--emulator`. */
export interface ServiceSetting {
  value: string;
  from: string;
}

/** The emulator's base URL (no trailing slash) and what set it, or undefined when neither the variable nor the flag is set. A SettingsError naming it when it is not an http(s) URL. */
export function emulatorUrl(env: NodeJS.ProcessEnv): ServiceSetting | undefined {
  const raw = env[EMULATOR_VAR]?.trim();
  if (!raw) return undefined;
  const from = env[EMULATOR_FLAG_MARK] === "1" ? EMULATOR_FLAG : EMULATOR_VAR;
  checkUrl(raw, from);
  return { value: raw.replace(/\/+$/, ""), from };
}

/**
 * Whether STACKWARDEN_EMULATOR (or `--emulator`) points at least one service at the emulator: it
 * is set, and not every service's own endpoint variable overrides it.
 */
export function emulatorServesAny(env: NodeJS.ProcessEnv): boolean {
  return emulatorUrl(env) !== undefined && Object.keys(ENDPOINT_PATHS).some((name) => !env[name]?.trim());
}

/**
 * A service variable's value (`STACKWARDEN_ARM_ENDPOINT`, `STACKWARDEN_GEOCODING_API_KEY` …): its
 * own when set and not blank, else what STACKWARDEN_EMULATOR implies for it, else undefined.
 */
export function serviceSetting(env: NodeJS.ProcessEnv, name: string): ServiceSetting | undefined {
  const own = env[name]?.trim();
  if (own) return { value: own, from: name };
  const emulator = emulatorUrl(env);
  if (!emulator) return undefined;
  const path = ENDPOINT_PATHS[name];
  if (path !== undefined) return { value: emulator.value + path, from: emulator.from };
  const service = KEY_OF_SERVICE[name];
  if (service && !env[service]?.trim()) return { value: EMULATOR_KEY, from: emulator.from };
  return undefined;
}

/** How messages name what chose an endpoint: the variable or flag that set it, or `the default of NAME`. */
export function endpointSettingName(env: NodeJS.ProcessEnv, name: string): string {
  return serviceSetting(env, name)?.from ?? `the default of ${name}`;
}

/**
 * `base` pointed at the emulator at `url` alone: STACKWARDEN_EMULATOR set and every endpoint
 * variable it stands in for removed (one left set would override it). Keys stay: a seed that
 * names its keys needs them.
 */
export function emulatorEnvironment(base: NodeJS.ProcessEnv, url: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, [EMULATOR_VAR]: url };
  for (const name of Object.keys(ENDPOINT_PATHS)) delete env[name];
  delete env[EMULATOR_FLAG_MARK];
  return env;
}

/**
 * `base` pointed at the emulator at `url` and at nothing else: emulatorEnvironment's, with tokens
 * from the emulator's IMDS only. Any `AZURE_ACCESS_TOKEN` is dropped (the emulator would refuse
 * it) and the credential chain is narrowed to managed identity, so no other credential of `base`
 * (a service principal in AZURE_*, `az login`) is asked for a token meant for the emulator.
 */
export function emulatorOnlyEnvironment(base: NodeJS.ProcessEnv, url: string): NodeJS.ProcessEnv {
  return { ...emulatorEnvironment(base, url), AZURE_ACCESS_TOKEN: "", AZURE_TOKEN_CREDENTIALS: "ManagedIdentityCredential" };
}
