// The library's core, without the package's Node.js entry, which loads and registers all of its
// ~80 locales (~27 ms and a few MB at every start of the CLI): the ones needed are registered below.
import countries from "i18n-iso-countries/index";

/**
 * ISO 3166-1 alpha-2 country codes and names: what the geocoding service's `country` parameters
 * and answers carry, and what a stack's `allowedCountries` lists.
 */

// Country names in the languages of the countries the address parser knows, so "Deutschland",
// "Nederland" and "日本" are recognised as well as their English names.
const LOCALES = ["en", "de", "fr", "nl", "ja", "hi"] as const;
let registered = false;
function ensureLocales(): void {
  if (registered) return;
  for (const l of LOCALES) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    countries.registerLocale(require(`i18n-iso-countries/langs/${l}.json`) as countries.LocaleData);
  }
  registered = true;
}

/** Whether a string is an officially assigned ISO 3166-1 alpha-2 code (upper case). */
export function isAssignedCountryCode(code: string): boolean {
  ensureLocales();
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
}

/** The English short name of a country (`NL` → `Netherlands`), or undefined for an unknown code. */
export function countryName(code: string): string | undefined {
  ensureLocales();
  return countries.getName(code, "en", { select: "official" }) ?? undefined;
}

/** Names people write that the ISO lists do not carry. */
const EXTRA_NAMES: Record<string, string> = {
  uk: "GB",
  "u.k.": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  "great britain": "GB",
  britain: "GB",
  usa: "US",
  "u.s.a.": "US",
  "u.s.": "US",
  america: "US",
  "united states": "US",
  holland: "NL",
  "the netherlands": "NL",
  nederland: "NL",
  deutschland: "DE",
  "federal republic of germany": "DE",
  "bundesrepublik deutschland": "DE",
  "république française": "FR",
  bharat: "IN",
  bhārat: "IN",
  nippon: "JP",
  nihon: "JP",
  日本: "JP",
  日本国: "JP",
};

/**
 * The alpha-2 code of a country written by name (English, German, French, Dutch, Japanese or
 * Hindi, or a common short form such as "UK" or "USA"), or undefined when it names no country.
 */
export function countryCodeOfName(name: string): string | undefined {
  ensureLocales();
  const trimmed = name.trim().replace(/\s+/g, " ");
  if (!trimmed) return undefined;
  const extra = EXTRA_NAMES[trimmed.toLowerCase()];
  if (extra) return extra;
  for (const l of LOCALES) {
    const code = countries.getAlpha2Code(trimmed, l);
    if (code) return code;
  }
  return undefined;
}
