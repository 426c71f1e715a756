import type * as CountryCoder from "@rapideditor/country-coder";
import { isAssignedCountryCode } from "../../../services/geocoding/country-codes";

let countryCoder: typeof CountryCoder | undefined;
/** country-coder builds its border index when loaded (~16 MB resident): with the first lookup, not with the emulator. */
function loadCountryCoder(): typeof CountryCoder {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred until a point is placed
  return (countryCoder ??= require("@rapideditor/country-coder") as typeof CountryCoder);
}

/**
 * The ISO 3166-1 alpha-2 code of the country at a point, from country-coder's borders (which
 * take in territorial waters), or undefined for the open sea. A territory that has an officially
 * assigned code of its own (Hong Kong, Puerto Rico, the Isle of Man) gets it; one that has only
 * an exceptionally reserved code (Ceuta and Melilla: EA) gets its country's (ES).
 */
export function countryAt(lat: number, lng: number): string | undefined {
  const { iso1A2Code } = loadCountryCoder();
  const territory = iso1A2Code([lng, lat], { level: "territory" });
  if (territory && isAssignedCountryCode(territory)) return territory;
  const country = iso1A2Code([lng, lat], { level: "country" });
  return country && isAssignedCountryCode(country) ? country : undefined;
}
