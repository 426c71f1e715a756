import type { Address } from "../../../services/geocoding/types";
import {
  DIRECTIONS,
  FRENCH_STREET_WORDS,
  GERMAN_STREET_WORDS,
  INDIAN_ROAD_WORDS,
  INDIAN_STATES,
  JAPANESE_PREFECTURES,
  TOKYO_WARDS,
  UK_COUNTIES,
  US_STATES,
  US_STREET_TYPES,
} from "./address-vocabulary";
import { countryCodeOfName, countryName } from "../../../services/geocoding/country-codes";

/** The parts of an address the parser found, in the spec's `Address` field names. */
export type ParsedAddress = Pick<
  Address,
  | "name"
  | "houseNumber"
  | "streetName"
  | "streetType"
  | "preDirection"
  | "postDirection"
  | "extraInfo"
  | "quarter"
  | "ward"
  | "dependentLocality"
  | "city"
  | "state"
  | "zipCode"
  | "country"
  | "countrycode"
>;

type CountryParser = (parts: string[]) => ParsedAddress;

/**
 * Splits one written address into its parts with rules per country format: the US, the UK,
 * France, Germany, the Netherlands, India and Japan (in Latin and in Japanese script); other
 * countries get a generic reading (house number before or after the street, postcode before the
 * city). The country comes from a trailing country name, else from `countryHint`, else from the
 * shape of the postcode and the street words. Pure: no data set is consulted.
 */
export function parseAddress(raw: string, countryHint?: string): ParsedAddress {
  const text = raw
    .normalize("NFC")
    .replace(/[ \t\u00a0]+/g, " ")
    .trim();
  if (!text) return {};
  if (/[\u3040-\u30ff\u4e00-\u9fff〒]/.test(text)) {
    const jp = parseJapaneseScript(text.normalize("NFKC"));
    if (jp) return withCountry(jp, "JP", undefined);
  }
  let parts = text
    .split(/\s*[,;\n]\s*/)
    .map((p) => p.trim())
    .filter(Boolean);

  let code: string | undefined;
  let countryText: string | undefined;
  const last = parts[parts.length - 1];
  const named = countryCodeOfName(last);
  if (named) {
    code = named;
    countryText = last;
    parts = parts.slice(0, -1);
    if (parts.length === 0) return withCountry({}, code, countryText);
  } else {
    // "1012 JS Amsterdam Netherlands": a country name at the end of the last part.
    const words = last.split(" ");
    for (let n = Math.min(3, words.length - 1); n >= 1 && !code; n--) {
      const tail = words.slice(-n).join(" ");
      const c = countryCodeOfName(tail);
      if (c && !/^\d/.test(tail)) {
        code = c;
        countryText = tail;
        parts = [...parts.slice(0, -1), words.slice(0, -n).join(" ")];
      }
    }
  }
  code ??= countryHint?.toUpperCase() || inferCountry(parts);
  // One part without a number is a place name ("Amsterdam", "Paris, France"), not a street.
  if (parts.length === 1 && !/\d/.test(parts[0])) return withCountry({ city: parts[0] }, code, countryText);
  const parser = (code && PARSERS[code]) || parseGeneric;
  return withCountry(parser(parts), code, countryText);
}

function withCountry(p: ParsedAddress, code: string | undefined, written: string | undefined): ParsedAddress {
  const out: ParsedAddress = {};
  for (const [k, v] of Object.entries(p)) if (typeof v === "string" && v.trim() !== "") (out as Record<string, string>)[k] = v.trim();
  if (code) {
    out.countrycode = code;
    out.country = written ?? countryName(code);
  }
  return out;
}

// ---- Telling the country from the address itself ----

const UK_POSTCODE = /(?:^|\s)((?:GIR|[A-Z]{1,2}\d[A-Z\d]?))\s*(\d[A-Z]{2})$/i;
const US_STATE_ZIP = new RegExp(`(?:^|\\s)(${Object.keys(US_STATES).join("|")})\\.?\\s+\\d{5}(?:-\\d{4})?$`);
const US_STATE_NAME_ZIP = new RegExp(`(?:^|\\s)(${Object.values(US_STATES).join("|")})\\s+\\d{5}(?:-\\d{4})?$`, "i");
const NL_POSTCODE = /^(\d{4})\s?([A-Z]{2})(?:\s+(.+))?$/;
const JP_POSTCODE = /(?:〒\s?)?\b(\d{3})-(\d{4})\b/;
const IN_PIN = /(?:^|[\s-])(\d{3})\s?(\d{3})$/;
const FIVE_DIGIT_POSTCODE = /^(?:([DF])-)?(\d{5})\s+\S/;
const INDIAN_STATE_KEYS = new Set(INDIAN_STATES.map((s) => s.toLowerCase()));

/** The country an address is written for, from its postcode's shape and its street words. */
function inferCountry(parts: string[]): string | undefined {
  const tail = parts.slice(1);
  if (parts.some((p) => US_STATE_ZIP.test(p) || US_STATE_NAME_ZIP.test(p))) return "US";
  if (tail.some((p) => UK_POSTCODE.test(p) && /[A-Z]/.test(p.slice(-3)))) return "GB";
  if (tail.some((p) => NL_POSTCODE.test(p) && !/^(SA|SD|SS)$/.test(NL_POSTCODE.exec(p)![2]))) return "NL";
  if (parts.some((p) => JP_POSTCODE.test(p))) return "JP";
  if (parts.some((p) => INDIAN_STATE_KEYS.has(p.toLowerCase()) || INDIAN_STATE_KEYS.has(p.replace(IN_PIN, "").trim().toLowerCase())))
    return "IN";
  if (tail.some((p) => IN_PIN.test(p) && !/\d{4,}/.test(p.replace(IN_PIN, "")))) return "IN";
  const postal = tail.find((p) => FIVE_DIGIT_POSTCODE.test(p));
  if (postal) {
    const prefix = FIVE_DIGIT_POSTCODE.exec(postal)![1];
    if (prefix === "D") return "DE";
    if (prefix === "F") return "FR";
    const streets = parts.slice(0, parts.indexOf(postal)).join(" ");
    if (/\bcedex\b/i.test(postal) || FRENCH_STREET_WORDS.test(streets)) return "FR";
    if (GERMAN_STREET_WORDS.test(streets)) return "DE";
    // No street word: the French write the number first, the Germans last.
    const street = parts[parts.indexOf(postal) - 1] ?? "";
    if (/^\d/.test(street)) return "FR";
    if (/\s\d+\s?[a-z]?$/i.test(street)) return "DE";
  }
  if (parts.some((p) => US_STATE_ZIP.test(`x ${p} 00000`))) return "US";
  return undefined;
}

// ---- Street lines ----

/** "221B Baker Street", "12 bis Rue de la Paix", "1600 Pennsylvania Avenue NW". */
function numberFirst(line: string): { houseNumber?: string; street: string } {
  const m = /^(\d+[A-Za-z]?(?:[-/]\d+[A-Za-z]?)?(?:\s+(?:bis|ter|quater)\b)?)[\s,]+(.+)$/i.exec(line);
  return m ? { houseNumber: m[1], street: m[2] } : { street: line };
}

/** "Dam 1", "Hauptstraße 5a", "Prinsengracht 263-267", "Unter den Linden 77". */
function numberLast(line: string): { houseNumber?: string; street: string } {
  const m = /^(.*?\D)\s*\b(\d+\s?[A-Za-z]?(?:\s?[-–/]\s?\d+\s?[A-Za-z]?)?(?:\s+(?:hs|bis|[A-Z]))?)$/.exec(line);
  return m && m[1].trim() ? { houseNumber: m[2].replace(/\s+/g, ""), street: m[1].trim() } : { street: line };
}

function startsWithNumber(line: string): boolean {
  return /^\d+[A-Za-z]?\b/.test(line);
}

function endsWithNumber(line: string): boolean {
  return /\D\s*\d+\s?[A-Za-z]?(?:\s?[-–/]\s?\d+\s?[A-Za-z]?)?(?:\s+(?:hs|bis|[A-Z]))?$/.test(line);
}

/** Unit designators: "Suite 200", "Apt 4B", "Flat 3", "#12", "Floor 5". */
const UNIT = /^(?:suite|ste|apt|apartment|unit|flat|floor|fl|room|rm|bldg|building|#)\.?\s*[\w-]+$/i;
const TRAILING_UNIT = /\s+((?:suite|ste|apt|apartment|unit|floor|fl|room|rm|#)\.?\s*[\w-]+)$/i;

/**
 * Reads the parts before the postcode/city: the street line (the first that `isStreet` accepts,
 * else the first part), what comes before it (a building or organisation name, or a unit), and
 * what comes after it (a locality).
 */
function streetAndRest(
  parts: string[],
  isStreet: (p: string) => boolean,
): { street?: string; name?: string; extraInfo?: string; locality?: string } {
  if (parts.length === 0) return {};
  let i = parts.findIndex((p) => isStreet(p) && !UNIT.test(p));
  if (i < 0) i = parts.findIndex((p) => !UNIT.test(p));
  if (i < 0) return { extraInfo: parts.join(", ") };
  const before = parts.slice(0, i);
  const after = parts.slice(i + 1);
  const units = [...before, ...after].filter((p) => UNIT.test(p));
  const names = before.filter((p) => !UNIT.test(p));
  const localities = after.filter((p) => !UNIT.test(p));
  return {
    street: parts[i],
    name: names.join(", ") || undefined,
    extraInfo: units.join(", ") || undefined,
    locality: localities.join(", ") || undefined,
  };
}

// ---- Per-country formats ----

const US_STATE_BY_NAME = new Map(Object.entries(US_STATES).map(([code, name]) => [name.toLowerCase(), code]));

function usState(text: string): string | undefined {
  const t = text.replace(/\.$/, "").trim();
  if (US_STATES[t.toUpperCase()] && /^[A-Za-z]{2}$/.test(t)) return t.toUpperCase();
  return US_STATE_BY_NAME.get(t.toLowerCase());
}

/** United States: "1600 Amphitheatre Parkway, Mountain View, CA 94043". */
function parseUS(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const stateNames = Object.values(US_STATES).join("|");
  const tailRe = new RegExp(`^(.*?)\\s*\\b([A-Za-z]{2}\\.?|${stateNames})\\s+(\\d{5}(?:-\\d{4})?)$`, "i");
  const lastPart = work[work.length - 1];
  const m = work.length > 1 ? tailRe.exec(lastPart) : null;
  if (m && usState(m[2])) {
    out.state = usState(m[2]);
    out.zipCode = m[3];
    if (m[1]) out.city = m[1];
    work.pop();
  } else if (work.length > 1 && /^\d{5}(?:-\d{4})?$/.test(lastPart)) {
    out.zipCode = lastPart;
    work.pop();
    if (work.length > 1 && usState(work[work.length - 1])) out.state = usState(work.pop()!);
  } else if (work.length > 1 && usState(lastPart)) {
    out.state = usState(lastPart);
    work.pop();
  }
  if (!out.city && work.length > 1) out.city = work.pop();
  const s = streetAndRest(work, startsWithNumber);
  if (s.street) {
    let line = s.street;
    const unit = TRAILING_UNIT.exec(line);
    if (unit) {
      out.extraInfo = unit[1];
      line = line.slice(0, unit.index);
    }
    const { houseNumber, street } = numberFirst(line);
    out.houseNumber = houseNumber;
    out.streetName = street;
    const words = street.split(" ");
    if (words.length > 1 && DIRECTIONS.has(words[0].toUpperCase().replace(/\.$/, ""))) out.preDirection = words[0].toUpperCase();
    if (words.length > 1 && DIRECTIONS.has(words[words.length - 1].toUpperCase())) {
      out.postDirection = words[words.length - 1].toUpperCase();
      words.pop();
    }
    const type = words[words.length - 1];
    if (words.length > 1 && US_STREET_TYPES.has(type.toLowerCase().replace(/\.$/, ""))) out.streetType = type;
  }
  out.name = s.name;
  out.extraInfo = [s.extraInfo, out.extraInfo].filter(Boolean).join(", ") || undefined;
  out.dependentLocality = s.locality;
  return out;
}

/** United Kingdom: "10 Downing Street, London SW1A 2AA". */
function parseGB(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const lastPart = work[work.length - 1];
  const m = UK_POSTCODE.exec(lastPart);
  if (m && work.length > 1) {
    out.zipCode = `${m[1]} ${m[2]}`.toUpperCase();
    const rest = lastPart.slice(0, m.index).trim();
    work.pop();
    if (rest) out.city = rest;
  }
  if (!out.city && work.length > 1) {
    const candidate = work.pop()!;
    if (UK_COUNTIES.has(candidate.toLowerCase()) && work.length > 1) {
      out.state = candidate;
      out.city = work.pop();
    } else out.city = candidate;
  }
  const s = streetAndRest(work, startsWithNumber);
  if (s.street) {
    const { houseNumber, street } = numberFirst(s.street);
    if (
      houseNumber ||
      work.length > 1 ||
      /\b(street|road|lane|avenue|way|place|square|row|hill|gardens|terrace|close|drive|crescent|walk|mews)\b/i.test(street)
    ) {
      out.houseNumber = houseNumber;
      out.streetName = street;
    } else out.name = street;
  }
  out.name = [s.name, out.name].filter(Boolean).join(", ") || undefined;
  out.extraInfo = s.extraInfo;
  out.dependentLocality = s.locality;
  return out;
}

/** France: "55 Rue du Faubourg Saint-Honoré, 75008 Paris". */
function parseFR(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const i = work.findIndex((p) => /^(?:F-)?\d{5}\s+\S/i.test(p));
  if (i >= 0) {
    const m = /^(?:F-)?(\d{5})\s+(.+?)(?:\s+cedex(?:\s*\d{1,2})?)?$/i.exec(work[i])!;
    out.zipCode = m[1];
    out.city = m[2];
    work.splice(i);
  } else if (work.length > 1) out.city = work.pop();
  const s = streetAndRest(work, (p) => startsWithNumber(p) || FRENCH_STREET_WORDS.test(p));
  if (s.street) {
    const { houseNumber, street } = numberFirst(s.street);
    out.houseNumber = houseNumber;
    out.streetName = street;
    const type = /^(rue|avenue|boulevard|place|chemin|allée|impasse|quai|cours|route|square|passage|esplanade)\b/i.exec(street);
    if (type) out.streetType = type[1];
  }
  out.name = s.name;
  out.extraInfo = s.extraInfo;
  out.dependentLocality = s.locality;
  return out;
}

/** Germany: "Platz der Republik 1, 11011 Berlin". */
function parseDE(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const i = work.findIndex((p) => /^(?:D-)?\d{5}\s+\S/i.test(p));
  if (i >= 0) {
    const m = /^(?:D-)?(\d{5})\s+(.+)$/i.exec(work[i])!;
    out.zipCode = m[1];
    out.city = m[2];
    work.splice(i);
  } else if (work.length > 1) out.city = work.pop();
  const s = streetAndRest(work, (p) => endsWithNumber(p) || GERMAN_STREET_WORDS.test(p));
  if (s.street) {
    const { houseNumber, street } = numberLast(s.street);
    out.houseNumber = houseNumber;
    out.streetName = street;
  }
  out.name = s.name;
  out.extraInfo = s.extraInfo;
  out.dependentLocality = s.locality;
  return out;
}

/** The Netherlands: "Dam 1, 1012 JS Amsterdam". */
function parseNL(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const i = work.findIndex((p, k) => k > 0 && /^\d{4}\s?[A-Za-z]{2}\b/.test(p));
  if (i >= 0) {
    const m = /^(\d{4})\s?([A-Za-z]{2})(?:\s+(.+))?$/.exec(work[i])!;
    out.zipCode = `${m[1]} ${m[2].toUpperCase()}`;
    out.city = m[3] ?? work[i + 1];
    work.splice(i);
  } else if (work.length > 1) out.city = work.pop();
  if (out.city && out.city === out.city.toUpperCase()) out.city = titleCase(out.city);
  const s = streetAndRest(work, endsWithNumber);
  if (s.street) {
    const { houseNumber, street } = numberLast(s.street);
    out.houseNumber = houseNumber;
    out.streetName = street;
  }
  out.name = s.name;
  out.extraInfo = s.extraInfo;
  out.dependentLocality = s.locality;
  return out;
}

const INDIAN_HOUSE =
  /^(?:(?:flat|house|plot|door|shop|office|h\.\s?no|d\.\s?no)\.?\s*(?:no\.?|number)?|no\.|no(?=\s)|#)\s*[:.]?\s*([A-Za-z]?-?\d+[A-Za-z]?(?:[/-]\d+[A-Za-z]?)*)\s*[,-]?\s*(.*)$/i;
const INDIAN_LEADING_NUMBER = /^([A-Za-z]?-?\d+[A-Za-z]?(?:[/-]\d+[A-Za-z]?)*)(?:\s*[,-]?\s+(.+))?$/;

/** India: "Flat 12, MG Road, Bengaluru, Karnataka 560001". */
function parseIN(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  const stateOf = (text: string): string | undefined => INDIAN_STATES.find((s) => s.toLowerCase() === text.trim().toLowerCase());
  const trailingState = (text: string): { state?: string; rest: string } => {
    const lower = text.toLowerCase();
    const s = INDIAN_STATES.find((st) => lower === st.toLowerCase() || lower.endsWith(` ${st.toLowerCase()}`));
    if (!s) return { rest: text };
    const rest = text.slice(0, text.length - s.length).trim();
    // "New Delhi" is a city, not "New" in Delhi.
    if (/^(new|old|north|south|east|west)$/i.test(rest)) return { rest: text };
    return { state: s, rest };
  };
  // The PIN, with what shares its part (a state, a city, or both).
  for (let k = work.length - 1; k >= Math.max(1, work.length - 2); k--) {
    const m = IN_PIN.exec(work[k]);
    if (!m) continue;
    out.zipCode = `${m[1]}${m[2]}`;
    const rest = work[k]
      .slice(0, m.index)
      .replace(/[\s-–]+$/, "")
      .trim();
    work.splice(k, 1);
    if (rest) {
      const t = trailingState(rest);
      out.state = t.state;
      if (t.rest) out.city = t.rest;
    }
    break;
  }
  if (!out.state && work.length > 1 && stateOf(work[work.length - 1])) out.state = stateOf(work.pop()!);
  if (!out.city && work.length > 1) out.city = work.pop();
  // House number: in a part of its own, or leading the street's part.
  const rest: string[] = [];
  for (const p of work) {
    if (out.houseNumber === undefined) {
      const h = INDIAN_HOUSE.exec(p) ?? INDIAN_LEADING_NUMBER.exec(p);
      if (h) {
        out.houseNumber = h[1];
        if (h[2]) rest.push(h[2]);
        continue;
      }
    }
    rest.push(p);
  }
  let streetAt = rest.findIndex((p) => INDIAN_ROAD_WORDS.test(p));
  if (streetAt < 0 && rest.length > 0) streetAt = 0;
  if (streetAt >= 0) out.streetName = rest[streetAt];
  const localities = rest.filter((_, k) => k !== streetAt);
  if (localities.length) out.dependentLocality = localities.join(", ");
  return out;
}

const PREFECTURE_BY_ROMAJI = new Map(JAPANESE_PREFECTURES.map((p) => [p.romaji.toLowerCase(), p]));

/** Japan in Latin script: "2-8-1 Nishi-Shinjuku, Shinjuku-ku, Tokyo 163-8001". Japanese addresses name blocks, not streets. */
function parseJP(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work: string[] = [];
  for (const p of parts) {
    const m = JP_POSTCODE.exec(p);
    if (m && !out.zipCode) {
      out.zipCode = `${m[1]}-${m[2]}`;
      const rest = (p.slice(0, m.index) + p.slice(m.index + m[0].length)).trim();
      if (rest) work.push(rest);
    } else work.push(p);
  }
  const remaining: string[] = [];
  for (const [k, p] of work.entries()) {
    const pref = /^(.+?)(?:-to|-fu|-ken|\s+prefecture|\s+to|\s+fu|\s+ken)?$/i.exec(p)![1];
    const known = PREFECTURE_BY_ROMAJI.get(pref.toLowerCase());
    // The first of several parts is the block and district, even when it reads like a prefecture.
    if (known && !out.state && (k > 0 || work.length === 1)) {
      out.state = known.romaji;
      continue;
    }
    const ward =
      /^(.+?)(?:-ku|\s+ku|\s+ward)$/i.exec(p) ??
      (TOKYO_WARDS.has(p.replace(/\s+city$/i, "").toLowerCase()) ? /^(.+?)\s+city$/i.exec(p) : null);
    if (ward && !out.ward) {
      out.ward = `${ward[1]}-ku`;
      continue;
    }
    const city = /^(.+?)(?:-shi|\s+shi|\s+city)$/i.exec(p);
    if (city && !out.city) {
      out.city = city[1];
      continue;
    }
    remaining.push(p);
  }
  // "2-8-1 Nishi-Shinjuku", "2 Chome-1-1 Nihonbashi", "Nishi-Shinjuku 2-8-1".
  const block = /^(\d+)(?:\s*chome)?((?:-\d+){0,3})\s+(.+)$/i;
  const blockLast = /^(.+?)\s+(\d+(?:-\d+){1,3})$/;
  const rest: string[] = [];
  for (const p of remaining) {
    const m = out.houseNumber === undefined ? block.exec(p) : null;
    const n = out.houseNumber === undefined && !m ? blockLast.exec(p) : null;
    if (m) {
      out.houseNumber = `${m[1]}${m[2]}`;
      out.quarter = m[3];
    } else if (n) {
      out.houseNumber = n[2];
      out.quarter = n[1];
    } else rest.push(p);
  }
  if (!out.quarter && rest.length) out.quarter = rest.shift();
  if (rest.length) out.name = rest.join(", ");
  // Tokyo's wards are the city's; elsewhere a prefecture without a city names its capital's city.
  if (!out.city && out.state === "Tokyo") out.city = "Tokyo";
  return out;
}

/** Japan in Japanese script: "〒100-8111 東京都千代田区千代田1-1", "大阪府大阪市北区梅田3丁目1番1号". */
function parseJapaneseScript(text: string): ParsedAddress | undefined {
  const out: ParsedAddress = {};
  let t = text.replace(/\s+/g, "");
  const zip = /〒?(\d{3})-?(\d{4})/.exec(t);
  if (zip) {
    out.zipCode = `${zip[1]}-${zip[2]}`;
    t = t.slice(0, zip.index) + t.slice(zip.index + zip[0].length);
  }
  t = t.replace(/^(日本国?|Japan)/i, "");
  const pref = JAPANESE_PREFECTURES.find((p) => t.startsWith(p.kanji));
  if (pref) {
    out.state = pref.kanji;
    t = t.slice(pref.kanji.length);
  }
  const city = /^(.+?市)/.exec(t);
  if (city) {
    out.city = city[1];
    t = t.slice(city[1].length);
  }
  const ward = /^(.+?区)/.exec(t);
  if (ward) {
    out.ward = ward[1];
    t = t.slice(ward[1].length);
  }
  const town = !city && !ward ? /^(.+?[町村])(?=\D)/.exec(t) : null;
  if (town) {
    out.city = town[1];
    t = t.slice(town[1].length);
  }
  // Block numbers: "1丁目2番3号", "1-2-3", "3丁目1-1".
  const block = /(\d+)丁目(?:(\d+)(?:番地?|-))?(\d+)?号?|(\d+(?:-\d+){0,3})(?:番地?)?/.exec(t);
  if (block) {
    out.houseNumber = block[4] ?? [block[1], block[2], block[3]].filter(Boolean).join("-");
    const quarter = t.slice(0, block.index);
    if (quarter) out.quarter = quarter;
    const after = t.slice(block.index + block[0].length);
    if (after) out.name = after;
  } else if (t) out.quarter = t;
  if (!out.state && !out.city && !out.ward) return undefined;
  return out;
}

/** Countries without rules of their own: the number before or after the street, the postcode before or after the city. */
function parseGeneric(parts: string[]): ParsedAddress {
  const out: ParsedAddress = {};
  const work = [...parts];
  if (work.length > 1) {
    const lastPart = work.pop()!;
    const before = /^(\S*\d\S*)\s+(\D.*)$/.exec(lastPart);
    const after = /^(\D.*?)\s+(\S*\d\S*)$/.exec(lastPart);
    if (before) {
      out.zipCode = before[1];
      out.city = before[2];
    } else if (after) {
      out.city = after[1];
      out.zipCode = after[2];
    } else out.city = lastPart;
  }
  const s = streetAndRest(work, (p) => startsWithNumber(p) || endsWithNumber(p));
  if (s.street) {
    const { houseNumber, street } = startsWithNumber(s.street) ? numberFirst(s.street) : numberLast(s.street);
    out.houseNumber = houseNumber;
    out.streetName = street;
  }
  out.name = s.name;
  out.extraInfo = s.extraInfo;
  out.dependentLocality = s.locality;
  return out;
}

function titleCase(s: string): string {
  return s.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

const PARSERS: Record<string, CountryParser> = {
  US: parseUS,
  GB: parseGB,
  FR: parseFR,
  DE: parseDE,
  NL: parseNL,
  IN: parseIN,
  JP: parseJP,
};
