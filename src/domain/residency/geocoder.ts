import type { AddressResultsDto, GeocodeQuery, ReverseGeocodeQuery } from "../../services/geocoding/types";

/** What placing asks of the geocoding service: its client satisfies it (the domain names no client class). */
export interface Geocoder {
  geocode(q: GeocodeQuery, signal?: AbortSignal): Promise<AddressResultsDto>;
  reverseGeocode(q: ReverseGeocodeQuery, signal?: AbortSignal): Promise<AddressResultsDto>;
}
