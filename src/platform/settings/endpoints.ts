import { credentialOriginProblem, tokenSourceProblem } from "../http/credential-origins";
import { EMULATOR_VAR, serviceSetting } from "./emulator-settings";
import { checkUrl, SettingsError } from "./settings-error";

export { checkUrl, EMULATOR_VAR, serviceSetting, SettingsError };

/** Where stackwarden sends requests, from the environment (the contract's variables). */
export interface Endpoints {
  arm: string;
  imds: string;
}

export const DEFAULT_ARM_ENDPOINT = "https://management.azure.com";
export const DEFAULT_IMDS_ENDPOINT = "http://169.254.169.254/metadata";

/**
 * Reads `STACKWARDEN_ARM_ENDPOINT` and `STACKWARDEN_IMDS_ENDPOINT`, checking that each is an
 * absolute http(s) URL, that ARM (which gets a bearer token) is https or loopback, and that IMDS
 * (which answers with tokens) is https, loopback or link-local. A bad one is a one-line SettingsError
 * naming the variable, before any request.
 */
export function endpointsFromEnv(env: NodeJS.ProcessEnv = process.env): Endpoints {
  return {
    arm: endpointVar(env, "STACKWARDEN_ARM_ENDPOINT", DEFAULT_ARM_ENDPOINT, (u) => credentialOriginProblem(u, "a bearer token")),
    imds: endpointVar(env, "STACKWARDEN_IMDS_ENDPOINT", DEFAULT_IMDS_ENDPOINT, tokenSourceProblem),
  };
}

/**
 * Reads one endpoint variable, with its default: its own value, else the one `STACKWARDEN_EMULATOR`
 * implies (emulator-settings.ts), else `fallback`. `problem` judges the URL further (where
 * credentials may go: credential-origins.ts); what it says becomes the error, naming the setting.
 */
export function endpointVar(env: NodeJS.ProcessEnv, name: string, fallback: string, problem?: (url: URL) => string | undefined): string {
  const setting = serviceSetting(env, name);
  if (!setting) return fallback;
  checkUrl(setting.value, setting.from);
  const why = problem?.(new URL(setting.value));
  if (why) throw new SettingsError(`${setting.from}: ${why}`);
  return setting.value.replace(/\/+$/, "");
}

/** The variable naming the binary analysis service's base URL (it has no default: the service runs wherever you run it). */
export const BINARY_ANALYSIS_ENDPOINT_VAR = "STACKWARDEN_BINARY_ANALYSIS_ENDPOINT";

/** The value of STACKWARDEN_BINARY_ANALYSIS_ENDPOINT that selects the built-in engine, run in the process itself. */
export const EMBEDDED_BINARY_ANALYSIS = "embedded";

/**
 * Reads `STACKWARDEN_BINARY_ANALYSIS_ENDPOINT`: an http(s) URL (e.g. `<emulator url>/binary-analysis/v1`),
 * or `embedded` (returned as is) for the built-in engine. A SettingsError when it is unset or neither.
 */
export function binaryAnalysisEndpointFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const setting = serviceSetting(env, BINARY_ANALYSIS_ENDPOINT_VAR);
  if (!setting) {
    throw new SettingsError(
      `${BINARY_ANALYSIS_ENDPOINT_VAR} is not set: point it at the binary analysis service, e.g. <emulator url>/binary-analysis/v1 (start one with: npx stackwarden emulator, then export ${EMULATOR_VAR}=<its url>), or set it to ${EMBEDDED_BINARY_ANALYSIS} to scan with the built-in engine (YARA-X and UPX) in this process`,
    );
  }
  if (setting.value === EMBEDDED_BINARY_ANALYSIS) return setting.value;
  checkUrl(setting.value, setting.from);
  return setting.value.replace(/\/+$/, "");
}

/** The public Gisgraphy service, used when `STACKWARDEN_GEOCODING_ENDPOINT` is not set. */
export const DEFAULT_GEOCODING_ENDPOINT = "https://services.gisgraphy.com";

/** Where the geocoding service is and the key it is called with. */
export interface GeocodingSettings {
  endpoint: string;
  /** `STACKWARDEN_GEOCODING_API_KEY`; undefined when unset or blank (no key is sent). */
  apiKey?: string;
}

/** Reads `STACKWARDEN_GEOCODING_ENDPOINT` (checked to be an absolute http(s) URL) and `STACKWARDEN_GEOCODING_API_KEY`. */
export function geocodingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): GeocodingSettings {
  return {
    endpoint: endpointVar(env, "STACKWARDEN_GEOCODING_ENDPOINT", DEFAULT_GEOCODING_ENDPOINT),
    apiKey: serviceSetting(env, "STACKWARDEN_GEOCODING_API_KEY")?.value,
  };
}

/**
 * Checks, before any request, that the geocoding service is set up where something needs it
 * (`neededBy`: the residency rule of a stack, `where`, `geocode`): its endpoint
 * (`STACKWARDEN_GEOCODING_ENDPOINT`, or `STACKWARDEN_EMULATOR`) or the key of the public default.
 * With neither, the request would go to the public service without a key; a SettingsError names
 * the variables instead.
 */
export function requireGeocodingService(env: NodeJS.ProcessEnv, neededBy: string): void {
  if (serviceSetting(env, "STACKWARDEN_GEOCODING_ENDPOINT") || serviceSetting(env, "STACKWARDEN_GEOCODING_API_KEY")) return;
  throw new SettingsError(
    `${neededBy} needs the geocoding service, but neither STACKWARDEN_GEOCODING_ENDPOINT nor ${EMULATOR_VAR} is set, and the default (${DEFAULT_GEOCODING_ENDPOINT}) needs STACKWARDEN_GEOCODING_API_KEY: set ${EMULATOR_VAR}=<url> to use the emulator, or the geocoding variables`,
  );
}
