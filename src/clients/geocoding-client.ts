import { loggerFromEnv } from "../platform/http/logger";
import { GeocodingClient } from "../services/geocoding/client";
import { geocodingSettingsFromEnv } from "../platform/settings/endpoints";

/**
 * The geocoding client for an environment: `STACKWARDEN_GEOCODING_ENDPOINT` (default the public
 * Gisgraphy service; the emulator serves it at `<url>/geocoding`) and `STACKWARDEN_GEOCODING_API_KEY`.
 */
export function geocodingClientFromEnv(env: NodeJS.ProcessEnv = process.env): GeocodingClient {
  const settings = geocodingSettingsFromEnv(env);
  return new GeocodingClient({ endpoint: settings.endpoint, apiKey: settings.apiKey, logger: loggerFromEnv(env) });
}
