import { describe, expect, it } from "vitest";
import { parseAddress, type ParsedAddress } from "../../../../src/emulator/services/geocoding/address-parser";

/**
 * Real-looking addresses in the seven formats the parser knows (public landmarks and offices, as
 * they are written on envelopes and web pages), each with the parts it must find. A field left
 * out of an expectation must be absent from the result, so nothing is guessed that was not written.
 */
type Expect = Partial<Record<keyof ParsedAddress, string>>;
const FIELDS: (keyof ParsedAddress)[] = ["houseNumber", "streetName", "zipCode", "city", "state", "countrycode"];

const TABLE: [string, Expect, string?][] = [
  // ---- United States ----
  [
    "1600 Amphitheatre Parkway, Mountain View, CA 94043",
    { houseNumber: "1600", streetName: "Amphitheatre Parkway", city: "Mountain View", state: "CA", zipCode: "94043", countrycode: "US" },
  ],
  [
    "1600 Pennsylvania Avenue NW, Washington, DC 20500",
    { houseNumber: "1600", streetName: "Pennsylvania Avenue NW", city: "Washington", state: "DC", zipCode: "20500", countrycode: "US" },
  ],
  [
    "350 Fifth Avenue Suite 3000, New York, NY 10118, USA",
    { houseNumber: "350", streetName: "Fifth Avenue", city: "New York", state: "NY", zipCode: "10118", countrycode: "US" },
  ],
  [
    "1 Infinite Loop, Cupertino, CA 95014",
    { houseNumber: "1", streetName: "Infinite Loop", city: "Cupertino", state: "CA", zipCode: "95014", countrycode: "US" },
  ],
  [
    "233 S Wacker Dr, Chicago, IL 60606-6306",
    { houseNumber: "233", streetName: "S Wacker Dr", city: "Chicago", state: "IL", zipCode: "60606-6306", countrycode: "US" },
  ],
  [
    "4059 Mt Lee Dr, Hollywood, California 90068",
    { houseNumber: "4059", streetName: "Mt Lee Dr", city: "Hollywood", state: "CA", zipCode: "90068", countrycode: "US" },
  ],
  [
    "700 Louisiana St, Houston, TX 77002, United States",
    { houseNumber: "700", streetName: "Louisiana St", city: "Houston", state: "TX", zipCode: "77002", countrycode: "US" },
  ],
  [
    "1000 5th Ave, New York, NY 10028",
    { houseNumber: "1000", streetName: "5th Ave", city: "New York", state: "NY", zipCode: "10028", countrycode: "US" },
  ],
  // ---- United Kingdom ----
  [
    "10 Downing Street, London SW1A 2AA",
    { houseNumber: "10", streetName: "Downing Street", city: "London", zipCode: "SW1A 2AA", countrycode: "GB" },
  ],
  [
    "221B Baker Street, London NW1 6XE, United Kingdom",
    { houseNumber: "221B", streetName: "Baker Street", city: "London", zipCode: "NW1 6XE", countrycode: "GB" },
  ],
  [
    "Flat 3, 12 High Street, Oxford OX1 4AA",
    { houseNumber: "12", streetName: "High Street", city: "Oxford", zipCode: "OX1 4AA", countrycode: "GB" },
  ],
  [
    "1 Deansgate, Manchester, M3 1AZ",
    { houseNumber: "1", streetName: "Deansgate", city: "Manchester", zipCode: "M3 1AZ", countrycode: "GB" },
  ],
  ["Buckingham Palace, London SW1A 1AA", { city: "London", zipCode: "SW1A 1AA", countrycode: "GB" }],
  [
    "15 Princes Street, Edinburgh EH2 2AN, Scotland",
    { houseNumber: "15", streetName: "Princes Street", city: "Edinburgh", zipCode: "EH2 2AN", countrycode: "GB" },
  ],
  [
    "8 Quayside, Newcastle upon Tyne, Tyne and Wear, NE1 3DX",
    {
      houseNumber: "8",
      streetName: "Quayside",
      city: "Newcastle upon Tyne",
      state: "Tyne and Wear",
      zipCode: "NE1 3DX",
      countrycode: "GB",
    },
  ],
  [
    "27 Castle Street, Cardiff CF10 1BS, Wales",
    { houseNumber: "27", streetName: "Castle Street", city: "Cardiff", zipCode: "CF10 1BS", countrycode: "GB" },
  ],
  // ---- France ----
  [
    "55 Rue du Faubourg Saint-Honoré, 75008 Paris",
    { houseNumber: "55", streetName: "Rue du Faubourg Saint-Honoré", city: "Paris", zipCode: "75008", countrycode: "FR" },
  ],
  [
    "Tour Eiffel, 5 Avenue Anatole France, 75007 Paris, France",
    { houseNumber: "5", streetName: "Avenue Anatole France", city: "Paris", zipCode: "75007", countrycode: "FR" },
  ],
  [
    "12 bis Rue de la République, 69002 Lyon",
    { houseNumber: "12 bis", streetName: "Rue de la République", city: "Lyon", zipCode: "69002", countrycode: "FR" },
  ],
  [
    "1 Place de la Comédie, 34000 Montpellier",
    { houseNumber: "1", streetName: "Place de la Comédie", city: "Montpellier", zipCode: "34000", countrycode: "FR" },
  ],
  [
    "2 Quai de la Douane, 33000 Bordeaux",
    { houseNumber: "2", streetName: "Quai de la Douane", city: "Bordeaux", zipCode: "33000", countrycode: "FR" },
  ],
  ["Allée des Demoiselles, 31400 Toulouse", { streetName: "Allée des Demoiselles", city: "Toulouse", zipCode: "31400", countrycode: "FR" }],
  [
    "20 Avenue de Ségur, 75334 Paris Cedex 07",
    { houseNumber: "20", streetName: "Avenue de Ségur", city: "Paris", zipCode: "75334", countrycode: "FR" },
  ],
  [
    "9 Boulevard de la Croisette, 06400 Cannes, France",
    { houseNumber: "9", streetName: "Boulevard de la Croisette", city: "Cannes", zipCode: "06400", countrycode: "FR" },
  ],
  // ---- Germany ----
  [
    "Platz der Republik 1, 11011 Berlin",
    { houseNumber: "1", streetName: "Platz der Republik", city: "Berlin", zipCode: "11011", countrycode: "DE" },
  ],
  [
    "Unter den Linden 77, 10117 Berlin, Deutschland",
    { houseNumber: "77", streetName: "Unter den Linden", city: "Berlin", zipCode: "10117", countrycode: "DE" },
  ],
  ["Marienplatz 8, 80331 München", { houseNumber: "8", streetName: "Marienplatz", city: "München", zipCode: "80331", countrycode: "DE" }],
  [
    "Hauptstraße 5a, 69117 Heidelberg",
    { houseNumber: "5a", streetName: "Hauptstraße", city: "Heidelberg", zipCode: "69117", countrycode: "DE" },
  ],
  [
    "Taunusanlage 12, 60325 Frankfurt am Main, Germany",
    { houseNumber: "12", streetName: "Taunusanlage", city: "Frankfurt am Main", zipCode: "60325", countrycode: "DE" },
  ],
  ["Domkloster 4, 50667 Köln", { houseNumber: "4", streetName: "Domkloster", city: "Köln", zipCode: "50667", countrycode: "DE" }],
  [
    "c/o Beispiel GmbH, Königsallee 60-62, 40212 Düsseldorf",
    { houseNumber: "60-62", streetName: "Königsallee", city: "Düsseldorf", zipCode: "40212", countrycode: "DE" },
  ],
  [
    "Jungfernstieg 1, D-20354 Hamburg",
    { houseNumber: "1", streetName: "Jungfernstieg", city: "Hamburg", zipCode: "20354", countrycode: "DE" },
  ],
  // ---- Netherlands ----
  ["Dam 1, 1012 JS Amsterdam", { houseNumber: "1", streetName: "Dam", city: "Amsterdam", zipCode: "1012 JS", countrycode: "NL" }],
  [
    "Prinsengracht 263-267, 1016 GV Amsterdam",
    { houseNumber: "263-267", streetName: "Prinsengracht", city: "Amsterdam", zipCode: "1016 GV", countrycode: "NL" },
  ],
  [
    "Coolsingel 40, 3011 AD Rotterdam, Nederland",
    { houseNumber: "40", streetName: "Coolsingel", city: "Rotterdam", zipCode: "3011 AD", countrycode: "NL" },
  ],
  [
    "Museumplein 6, 1071DJ AMSTERDAM",
    { houseNumber: "6", streetName: "Museumplein", city: "Amsterdam", zipCode: "1071 DJ", countrycode: "NL" },
  ],
  [
    "Binnenhof 1a, 2513 AA Den Haag, The Netherlands",
    { houseNumber: "1a", streetName: "Binnenhof", city: "Den Haag", zipCode: "2513 AA", countrycode: "NL" },
  ],
  [
    "Stationsplein 10, 3511 ED Utrecht",
    { houseNumber: "10", streetName: "Stationsplein", city: "Utrecht", zipCode: "3511 ED", countrycode: "NL" },
  ],
  [
    "Markt 2, 5611 EB Eindhoven, Netherlands",
    { houseNumber: "2", streetName: "Markt", city: "Eindhoven", zipCode: "5611 EB", countrycode: "NL" },
  ],
  // ---- India ----
  [
    "Flat 12, MG Road, Bengaluru, Karnataka 560001, India",
    { houseNumber: "12", streetName: "MG Road", city: "Bengaluru", state: "Karnataka", zipCode: "560001", countrycode: "IN" },
  ],
  [
    "221, Lodhi Road, New Delhi, Delhi 110003",
    { houseNumber: "221", streetName: "Lodhi Road", city: "New Delhi", state: "Delhi", zipCode: "110003", countrycode: "IN" },
  ],
  [
    "Plot No. 5, Sector 18, Gurugram, Haryana 122015, India",
    { houseNumber: "5", streetName: "Sector 18", city: "Gurugram", state: "Haryana", zipCode: "122015", countrycode: "IN" },
  ],
  [
    "No. 10, 2nd Cross, Indiranagar, Bangalore - 560038",
    { houseNumber: "10", streetName: "2nd Cross", city: "Bangalore", zipCode: "560038", countrycode: "IN" },
  ],
  [
    "B-12, Connaught Place, New Delhi 110001",
    { houseNumber: "B-12", streetName: "Connaught Place", city: "New Delhi", zipCode: "110001", countrycode: "IN" },
  ],
  [
    "45 Marine Drive, Mumbai, Maharashtra 400 020",
    { houseNumber: "45", streetName: "Marine Drive", city: "Mumbai", state: "Maharashtra", zipCode: "400020", countrycode: "IN" },
  ],
  [
    "House No. 7, Anna Salai, Chennai, Tamil Nadu 600002",
    { houseNumber: "7", streetName: "Anna Salai", city: "Chennai", state: "Tamil Nadu", zipCode: "600002", countrycode: "IN" },
  ],
  [
    "14/2 Park Street, Kolkata, West Bengal 700016, India",
    { houseNumber: "14/2", streetName: "Park Street", city: "Kolkata", state: "West Bengal", zipCode: "700016", countrycode: "IN" },
  ],
  // ---- Japan (Latin script; Japanese addresses name blocks and districts, not streets) ----
  [
    "1-1 Chiyoda, Chiyoda-ku, Tokyo 100-8111, Japan",
    { houseNumber: "1-1", city: "Tokyo", state: "Tokyo", zipCode: "100-8111", countrycode: "JP" },
  ],
  [
    "2-8-1 Nishi-Shinjuku, Shinjuku-ku, Tokyo 163-8001",
    { houseNumber: "2-8-1", city: "Tokyo", state: "Tokyo", zipCode: "163-8001", countrycode: "JP" },
  ],
  [
    "2 Chome-1-1 Nihonbashi, Chuo City, Tokyo 103-0027, Japan",
    { houseNumber: "2-1-1", city: "Tokyo", state: "Tokyo", zipCode: "103-0027", countrycode: "JP" },
  ],
  [
    "3-1-1 Umeda, Kita-ku, Osaka-shi, Osaka 530-0001",
    { houseNumber: "3-1-1", city: "Osaka", state: "Osaka", zipCode: "530-0001", countrycode: "JP" },
  ],
  [
    "1-1 Kotoku, Naka-ku, Yokohama-shi, Kanagawa 231-0017",
    { houseNumber: "1-1", city: "Yokohama", state: "Kanagawa", zipCode: "231-0017", countrycode: "JP" },
  ],
  // ---- Japan (Japanese script) ----
  ["〒100-8111 東京都千代田区千代田1-1", { houseNumber: "1-1", state: "東京都", zipCode: "100-8111", countrycode: "JP" }],
  [
    "〒530-0001 大阪府大阪市北区梅田3丁目1番1号",
    { houseNumber: "3-1-1", city: "大阪市", state: "大阪府", zipCode: "530-0001", countrycode: "JP" },
  ],
  ["京都府京都市下京区東塩小路町721-1", { houseNumber: "721-1", city: "京都市", state: "京都府", countrycode: "JP" }],
];

describe("address parser: the table", () => {
  it("holds at least 40 addresses across the seven countries", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    const countries = new Set(TABLE.map(([, e]) => e.countrycode));
    expect([...countries].sort()).toEqual(["DE", "FR", "GB", "IN", "JP", "NL", "US"]);
  });

  it.each(TABLE)("%s", (address, expected) => {
    const parsed = parseAddress(address);
    const got = Object.fromEntries(FIELDS.filter((f) => parsed[f] !== undefined).map((f) => [f, parsed[f]]));
    expect(got).toEqual(expected);
  });
});

describe("address parser: details", () => {
  it("keeps units, names and localities apart from the street", () => {
    expect(parseAddress("350 Fifth Avenue Suite 3000, New York, NY 10118").extraInfo).toBe("Suite 3000");
    expect(parseAddress("Flat 3, 12 High Street, Oxford OX1 4AA").extraInfo).toBe("Flat 3");
    expect(parseAddress("Buckingham Palace, London SW1A 1AA").name).toBe("Buckingham Palace");
    expect(parseAddress("Tour Eiffel, 5 Avenue Anatole France, 75007 Paris").name).toBe("Tour Eiffel");
    expect(parseAddress("No. 10, 2nd Cross, Indiranagar, Bangalore - 560038").dependentLocality).toBe("Indiranagar");
    expect(parseAddress("c/o Beispiel GmbH, Königsallee 60-62, 40212 Düsseldorf").name).toBe("c/o Beispiel GmbH");
  });

  it("reads US street types and directions", () => {
    const p = parseAddress("1600 Pennsylvania Avenue NW, Washington, DC 20500");
    expect(p).toMatchObject({ streetType: "Avenue", postDirection: "NW" });
    expect(parseAddress("233 S Wacker Dr, Chicago, IL 60606").preDirection).toBe("S");
  });

  it("reads Japanese wards and districts", () => {
    expect(parseAddress("2-8-1 Nishi-Shinjuku, Shinjuku-ku, Tokyo 163-8001")).toMatchObject({
      ward: "Shinjuku-ku",
      quarter: "Nishi-Shinjuku",
    });
    expect(parseAddress("〒100-8111 東京都千代田区千代田1-1")).toMatchObject({ ward: "千代田区", quarter: "千代田" });
  });

  it("names the country in English when the address does not, and keeps the written name when it does", () => {
    expect(parseAddress("Dam 1, 1012 JS Amsterdam").country).toBe("Netherlands");
    expect(parseAddress("Coolsingel 40, 3011 AD Rotterdam, Nederland").country).toBe("Nederland");
  });

  it("takes the country hint when the address does not tell", () => {
    const p = parseAddress("Kerkstraat 12, 9000 Gent", "BE");
    expect(p).toMatchObject({ countrycode: "BE", houseNumber: "12", streetName: "Kerkstraat", zipCode: "9000", city: "Gent" });
  });

  it("reads a country alone, and a city alone", () => {
    expect(parseAddress("Netherlands")).toEqual({ countrycode: "NL", country: "Netherlands" });
    expect(parseAddress("Amsterdam")).toEqual({ city: "Amsterdam" });
    expect(parseAddress("   ")).toEqual({});
  });

  it("reads a trailing country without a comma", () => {
    expect(parseAddress("Dam 1, 1012 JS Amsterdam Netherlands")).toMatchObject({
      city: "Amsterdam",
      countrycode: "NL",
      zipCode: "1012 JS",
    });
  });
});
