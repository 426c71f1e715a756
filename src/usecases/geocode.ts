import { requireGeocodingService } from "../platform/settings/endpoints";
import type { ClientSet } from "../clients/client-set";
import type { AddressResultsDto } from "../services/geocoding/types";

/** Geocodes one address with the geocoding service: its best matches (at most `max`), the parsed address and the service's message. */
export async function geocodeAddress(
  clients: ClientSet,
  address: string,
  opts: { country?: string; max: number },
): Promise<AddressResultsDto> {
  requireGeocodingService(clients.env, "`geocode`");
  return clients.geocoding.geocode({ address, country: opts.country?.toUpperCase(), from: 1, to: opts.max });
}
