import { join } from "node:path";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import type { Logger } from "../../../src/platform/http";
import { GeocodingClient } from "../../../src/services/geocoding/client";
import { GEOCODING_OPERATIONS, GEOCODING_PATHS, GEOCODING_SPEC } from "../../../src/services/geocoding/types";
import { responseValidator } from "../../../src/platform/schemas/swagger-schemas";
import { azureRegions } from "../../../src/domain/residency/azure-regions";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

/**
 * The client against the emulator's geocoding service, on the real GeoNames data: every answer
 * is checked against the spec's schema, and what it says is held against public knowledge.
 */
let t: TestEmulator;
let client: GeocodingClient;
let base: string;
const warnings: string[] = [];
const logger: Logger = { debug() {}, warn: (l) => warnings.push(l), debugEnabled: false };

beforeAll(async () => {
  t = await startTestEmulator({ seed: loadSeedFile(join(PROJECT_ROOT, "test/fixtures/geocoding/estate.yaml"), LOCAL_SERVICES) });
  base = `${t.url}/geocoding`;
  client = new GeocodingClient({ endpoint: base, retry: FAST_RETRY, logger });
});
afterAll(async () => {
  await t.close();
});

/** A raw GET, for what the client would refuse to send or would not show. */
async function raw(path: string, query: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const res = await request(`${base}${path}?${qs}`);
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    body: res.headers["content-type"]?.toString().includes("json") ? JSON.parse(text) : text,
  };
}

/**
 * The countries of Azure's 40 regions, written down from public knowledge of where each region is
 * (not read from the data): East Asia is Hong Kong, which has its own ISO code (HK); Southeast
 * Asia is Singapore. Where the published reference point differs from the region's best-known
 * city it still lies in the same country: UK West's point is on the Wirral near Liverpool (the
 * region is Cardiff), Germany North's is Bremen (Berlin), West Central US's is in Utah (Wyoming),
 * France Central's is the middle of France (Paris), France South's the Tarn (Marseille).
 */
const REGION_COUNTRIES: Record<string, string> = {
  eastasia: "HK",
  southeastasia: "SG",
  centralus: "US",
  eastus: "US",
  eastus2: "US",
  westus: "US",
  northcentralus: "US",
  southcentralus: "US",
  northeurope: "IE",
  westeurope: "NL",
  japanwest: "JP",
  japaneast: "JP",
  brazilsouth: "BR",
  australiaeast: "AU",
  australiasoutheast: "AU",
  southindia: "IN",
  centralindia: "IN",
  westindia: "IN",
  canadacentral: "CA",
  canadaeast: "CA",
  uksouth: "GB",
  ukwest: "GB",
  westcentralus: "US",
  westus2: "US",
  koreacentral: "KR",
  koreasouth: "KR",
  francecentral: "FR",
  francesouth: "FR",
  australiacentral: "AU",
  australiacentral2: "AU",
  uaecentral: "AE",
  uaenorth: "AE",
  southafricanorth: "ZA",
  southafricawest: "ZA",
  switzerlandnorth: "CH",
  switzerlandwest: "CH",
  germanynorth: "DE",
  germanywestcentral: "DE",
  norwaywest: "NO",
  norwayeast: "NO",
};

describe("reverse geocoding", () => {
  it("places each of the 40 Azure regions' points in the country it is known to be in", async () => {
    const regions = azureRegions();
    expect(Object.keys(REGION_COUNTRIES).sort()).toEqual(regions.map((r) => r.name).sort());
    const got: Record<string, string | undefined> = {};
    for (const r of regions) {
      const res = await client.reverseGeocode({ lat: r.latitude, lng: r.longitude, to: 1 });
      got[r.name] = res.result?.[0]?.countrycode;
    }
    expect(got).toEqual(REGION_COUNTRIES);
  });

  it("gives a point the country it is in, not that of the nearest town across a border", async () => {
    // 52.22 N 6.98 E is in the Netherlands, 3 km from Gronau (Germany), its nearest town.
    const nl = await client.reverseGeocode({ lat: 52.22, lng: 6.98 });
    expect(nl.result!.every((a) => a.countrycode === "NL")).toBe(true);
    // 51.83 N 6.10 E is in Germany; its nearest town is Tolkamer (the Netherlands).
    const de = await client.reverseGeocode({ lat: 51.83, lng: 6.1, to: 1 });
    expect(de.result![0]).toMatchObject({ countrycode: "DE", city: "Kleve", geocodinglevel: "CITY" });
  });

  it("gives a point far from any town its country, at COUNTRY level", async () => {
    const res = await client.reverseGeocode({ lat: -27.5, lng: 127.5 });
    expect(res.result).toEqual([
      { countrycode: "AU", country: "Australia", lat: -27.5, lng: 127.5, distance: 0, geocodinglevel: "COUNTRY" },
    ]);
  });

  it("gives the open sea no country", async () => {
    for (const [lat, lng] of [
      [0, 0],
      [40, -40],
    ]) {
      const res = await client.reverseGeocode({ lat, lng });
      expect(res.numFound).toBe(0);
      expect(res.result).toEqual([]);
      expect(res.message).toMatch(/open sea/);
    }
  });

  it("puts seeded streets within 1 km first, then places, each nearest first, with distances in metres", async () => {
    const res = await client.reverseGeocode({ lat: 52.3731, lng: 4.8935 });
    expect(res.result![0]).toMatchObject({
      streetName: "Dam",
      city: "Amsterdam",
      countrycode: "NL",
      geocodinglevel: "STREET",
      distance: 19,
    });
    const streets = res.result!.filter((a) => a.geocodinglevel === "STREET");
    const places = res.result!.filter((a) => a.geocodinglevel === "CITY");
    expect(res.result).toEqual([...streets, ...places]);
    expect(streets.map((a) => a.streetName)).toEqual(["Dam", "Damrak", "Prinsengracht"]);
    for (const list of [streets, places]) {
      const d = list.map((a) => a.distance!);
      expect(d).toEqual([...d].sort((a, b) => a - b));
    }
    expect(res.result!.some((a) => a.city === "Amsterdam" && a.geocodinglevel === "CITY")).toBe(true);
  });
});

describe("paging", () => {
  it("pages full-text hits: from/to pages join up to the whole, numFound counts them all", async () => {
    const all = await client.fulltextSearch({ q: "paris" });
    const first = await client.fulltextSearch({ q: "paris", from: 1, to: 5 });
    const second = await client.fulltextSearch({ q: "paris", from: 6, to: 10 });
    expect(all.result).toHaveLength(10);
    expect(all.numFound).toBeGreaterThan(10);
    expect(first.numFound).toBe(all.numFound);
    expect(first.resultsSize).toBe(5);
    expect([...first.result!, ...second.result!].map((r) => r.feature_id)).toEqual(all.result!.map((r) => r.feature_id));
    const beyond = await client.fulltextSearch({ q: "paris", from: all.numFound! + 1, to: all.numFound! + 5 });
    expect(beyond.result).toEqual([]);
  });

  it("pages places around a point, nearest first", async () => {
    const q = { lat: 52.37, lng: 4.89, radius: 30_000 };
    const all = await client.geolocSearch({ ...q, from: 1, to: 10 });
    const a = await client.geolocSearch({ ...q, from: 1, to: 4 });
    const b = await client.geolocSearch({ ...q, from: 5, to: 10 });
    expect(all.numFound).toBe(10);
    expect(a.numFound).toBe(4);
    expect([...a.result!, ...b.result!].map((r) => r.featureId)).toEqual(all.result!.map((r) => r.featureId));
  });

  it("pages reverse-geocoding answers", async () => {
    const all = await client.reverseGeocode({ lat: 48.8566, lng: 2.3522, from: 1, to: 6 });
    const tail = await client.reverseGeocode({ lat: 48.8566, lng: 2.3522, from: 4, to: 6 });
    expect(tail.result).toEqual(all.result!.slice(3));
  });

  it("holds a page to 10 results on the server, and refuses to ask for more on the client", async () => {
    const r = await raw(GEOCODING_PATHS.fulltextSearch, { q: "springfield", format: "json", from: 1, to: 50 });
    expect(r.body.result).toHaveLength(10);
    expect(() => client.fulltextSearch({ q: "springfield", from: 1, to: 11 })).toThrow(/at most 10 results a page/);
    expect(() => client.geolocSearch({ lat: 1, lng: 1, from: 0 })).toThrow(/from must be an integer ≥ 1/);
  });
});

describe("filters", () => {
  it("full text: country", async () => {
    const us = await client.fulltextSearch({ q: "paris", country: "US" });
    expect(us.result!.length).toBeGreaterThan(0);
    expect(us.result!.every((r) => r.country_code === "US")).toBe(true);
    const fr = await client.fulltextSearch({ q: "paris", country: "fr", to: 1 });
    expect(fr.result![0]).toMatchObject({ name: "Paris", country_code: "FR", feature_code: "PPLC" });
  });

  it("full text: every word required, or any", async () => {
    const all = await client.fulltextSearch({ q: "new york", allwordsrequired: true });
    const any = await client.fulltextSearch({ q: "new york", allwordsrequired: false });
    expect(all.numFound).toBeLessThan(any.numFound!);
    for (const r of all.result!) expect(r.name!.toLowerCase()).toMatch(/new.*york|york.*new/);
    expect(all.result![0]).toMatchObject({ name: "New York City", country_code: "US" });
  });

  it("full text: within a radius of a point, nearer ones first", async () => {
    const res = await client.fulltextSearch({ q: "paris", lat: 33.66, lng: -95.56, radius: 50_000 });
    expect(res.numFound).toBe(1);
    expect(res.result![0]).toMatchObject({ name: "Paris", country_code: "US", adm1_code: "TX" });
  });

  it("full text: accents and case do not count; prefixes only when suggesting", async () => {
    expect((await client.fulltextSearch({ q: "DUSSELDORF", to: 1 })).result![0]).toMatchObject({ name: "Düsseldorf", country_code: "DE" });
    expect((await client.fulltextSearch({ q: "amsterd" })).numFound).toBe(0);
    expect((await client.fulltextSearch({ q: "amsterd", suggest: true, to: 1 })).result![0].name).toBe("Amsterdam");
  });

  it("full text: finds seeded streets by name and by postcode", async () => {
    const res = await client.fulltextSearch({ q: "1012 JS", allwordsrequired: true });
    expect(res.result![0]).toMatchObject({ name: "Dam", placetype: "Street", is_in: "Amsterdam", zipcodes: ["1012 JS"] });
  });

  it("geoloc: radius, place type and the distance flag", async () => {
    const near = await client.geolocSearch({ lat: 47.3769, lng: 8.5417, radius: 3000 });
    expect(near.result!.length).toBeGreaterThan(0);
    for (const f of near.result!) expect(f.distance!).toBeLessThanOrEqual(3000);
    const d = near.result!.map((f) => f.distance!);
    expect(d).toEqual([...d].sort((a, b) => a - b));
    const subdivisions = await client.geolocSearch({ lat: 47.3769, lng: 8.5417, radius: 3000, placetype: "CitySubdivision" });
    expect(subdivisions.result!.length).toBeGreaterThan(0);
    expect(subdivisions.result!.every((f) => f.placeType === "CitySubdivision")).toBe(true);
    const cities = await client.geolocSearch({ lat: 47.3769, lng: 8.5417, radius: 3000, placetype: "city" });
    expect(cities.result!.every((f) => f.placeType === "City")).toBe(true);
    expect((await client.geolocSearch({ lat: 47.3769, lng: 8.5417, placetype: "Airport" })).result).toEqual([]);
    const bare = await client.geolocSearch({ lat: 47.3769, lng: 8.5417, radius: 3000, distance: false, to: 1 });
    expect(bare.result![0].distance).toBeUndefined();
  });

  it("street/find: radius, one-way and street type", async () => {
    const all = await client.findStreets({ lat: 52.373, lng: 4.893, radius: 2000 });
    expect(all.result!.map((s) => s.name)).toEqual(["Dam", "Damrak", "Prinsengracht"]);
    expect((await client.findStreets({ lat: 52.373, lng: 4.893, radius: 100 })).result!.map((s) => s.name)).toEqual(["Dam"]);
    expect((await client.findStreets({ lat: 52.373, lng: 4.893, oneway: true })).result!.map((s) => s.name)).toEqual(["Prinsengracht"]);
    expect((await client.findStreets({ lat: 52.373, lng: 4.893, streettype: "secondary" })).result!.map((s) => s.name)).toEqual(["Damrak"]);
    expect((await client.findStreets({ lat: 0, lng: 0 })).result).toEqual([]);
  });
});

describe("geocoding and parsing", () => {
  it('places "Dam 1, 1012 JS Amsterdam" at its seeded house number, in NL', async () => {
    const res = await client.geocode({ address: "Dam 1, 1012 JS Amsterdam" });
    expect(res.parsedAddress).toMatchObject({
      houseNumber: "1",
      streetName: "Dam",
      zipCode: "1012 JS",
      city: "Amsterdam",
      countrycode: "NL",
    });
    expect(res.result![0]).toMatchObject({
      streetName: "Dam",
      houseNumber: "1",
      city: "Amsterdam",
      countrycode: "NL",
      lat: 52.37299,
      lng: 4.8941,
      geocodinglevel: "HOUSE_NUMBER",
    });
  });

  it("places a street the seed knows under another spelling of its city", async () => {
    const res = await client.geocode({ address: "Marienplatz 8, 80331 München" });
    expect(res.result![0]).toMatchObject({ streetName: "Marienplatz", countrycode: "DE", geocodinglevel: "HOUSE_NUMBER" });
  });

  it("falls back to the city when the seed does not know the street", async () => {
    const res = await client.geocode({ address: "Kalverstraat 92, 1012 PH Amsterdam" });
    expect(res.result![0]).toMatchObject({ name: "Amsterdam", countrycode: "NL", geocodinglevel: "CITY" });
  });

  it.each([
    ["Amsterdam", "Amsterdam", "NL"],
    ["Paris", "Paris", "FR"],
    ["1600 Pennsylvania Avenue NW, Washington, DC 20500", "Washington, D.C.", "US"],
    ["100 Main Street, Springfield, IL 62701", "Springfield", "US"],
    ["Flat 12, MG Road, Bangalore, Karnataka 560001", "Bengaluru", "IN"],
    ["Binnenhof 1a, 2513 AA Den Haag", "The Hague", "NL"],
    ["〒100-8111 東京都千代田区千代田1-1", "Tokyo", "JP"],
    ["3-1-1 Umeda, Kita-ku, Osaka-shi, Osaka 530-0001", "Osaka", "JP"],
  ])("resolves %s to %s (%s)", async (address, city, country) => {
    const res = await client.geocode({ address });
    expect(res.result![0]).toMatchObject({ countrycode: country, geocodinglevel: "CITY" });
    expect(res.result![0].name).toBe(city);
  });

  it("takes the state into account: Springfield, Illinois, not Missouri", async () => {
    const res = await client.geocode({ address: "100 Main Street, Springfield, IL 62701" });
    expect(res.result![0].state).toBe("IL");
  });

  it("answers no result, with a message, for an address it cannot place", async () => {
    const res = await client.geocode({ address: "Nowhere Lane 1, 99999 Qqqqville", country: "DE" });
    expect(res.numFound).toBe(0);
    expect(res.result).toEqual([]);
    expect(res.message).toMatch(/no place matched "Qqqqville" in DE/);
  });

  it("parses without waiting for any index", async () => {
    const res = await client.parseAddress({ address: "221B Baker Street, London NW1 6XE" });
    expect(res.numFound).toBe(1);
    expect(res.result![0]).toMatchObject({
      houseNumber: "221B",
      streetName: "Baker Street",
      zipCode: "NW1 6XE",
      city: "London",
      countrycode: "GB",
    });
  });
});

describe("the spec's shapes", () => {
  const cases: [string, string, Record<string, string | number>][] = [
    [GEOCODING_OPERATIONS.reverseGeocode, GEOCODING_PATHS.reverseGeocode, { lat: 52.3731, lng: 4.8935 }],
    [GEOCODING_OPERATIONS.reverseGeocode, GEOCODING_PATHS.reverseGeocode, { lat: 0, lng: 0 }],
    [GEOCODING_OPERATIONS.geolocSearch, GEOCODING_PATHS.geolocSearch, { lat: 47.3769, lng: 8.5417 }],
    [GEOCODING_OPERATIONS.fulltextSearch, GEOCODING_PATHS.fulltextSearch, { q: "dam", allwordsrequired: "false" }],
    [GEOCODING_OPERATIONS.geocode, GEOCODING_PATHS.geocode, { address: "Dam 1, 1012 JS Amsterdam" }],
    [GEOCODING_OPERATIONS.parseAddress, GEOCODING_PATHS.parseAddress, { address: "10 Downing Street, London SW1A 2AA" }],
    [GEOCODING_OPERATIONS.findStreets, GEOCODING_PATHS.findStreets, { lat: 52.373, lng: 4.893 }],
  ];

  it.each(cases)("%s answers with the published schema (%s %o)", async (op, path, query) => {
    const r = await raw(path, { ...query, format: "json" });
    expect(r.status).toBe(200);
    const check = responseValidator(GEOCODING_SPEC, op)(r.body);
    expect(check.errors).toEqual([]);
    expect(r.body).toHaveProperty("QTime");
    expect(r.body).toHaveProperty("numFound");
    expect(r.body).toHaveProperty("result");
  });

  it("the client noticed no schema drift in any answer", () => {
    expect(warnings).toEqual([]);
  });

  it("answers 412 for a missing or unreadable parameter; a format it does not serve is a 501, not a 412 (answer-formats.test.ts)", async () => {
    const missing = await raw(GEOCODING_PATHS.geolocSearch, { lng: 3, format: "json" });
    expect(missing).toMatchObject({ status: 412, body: { error: "Missing parameter: lat is required" } });
    expect((await raw(GEOCODING_PATHS.reverseGeocode, { lat: 200, lng: 3 })).status).toBe(412);
    expect((await raw(GEOCODING_PATHS.fulltextSearch, { q: "x", lat: 1 })).status).toBe(412);
    const php = await raw(GEOCODING_PATHS.parseAddress, { address: "x", format: "PHP" });
    expect(php).toMatchObject({ status: 501, body: { code: "NotImplemented" } });
  });

  it("wraps the JSON in the callback, and indents on request", async () => {
    const r = await raw(GEOCODING_PATHS.parseAddress, { address: "Dam 1, 1012 JS Amsterdam", callback: "onParsed" });
    expect(r.headers["content-type"]).toMatch(/javascript/);
    expect(r.text).toMatch(/^onParsed\(\{.*\}\);$/s);
    const indented = await raw(GEOCODING_PATHS.parseAddress, { address: "Dam 1", indent: "on" });
    expect(indented.text).toContain('\n  "numFound"');
  });

  it("refuses bad input on the client before sending it", () => {
    expect(() => client.reverseGeocode({ lat: 95, lng: 0 })).toThrow(/latitude must be a number between -90 and 90/);
    expect(() => client.geocode({ address: "  " })).toThrow(/address must be a non-empty string/);
    expect(() => client.fulltextSearch({ q: "x", country: "NLD" })).toThrow(/alpha-2/);
    expect(() => client.fulltextSearch({ q: "x", lat: 1 })).toThrow(/both lat and lng/);
  });
});
