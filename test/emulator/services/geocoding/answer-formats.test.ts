import { XMLParser } from "fast-xml-parser";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../../src/emulator/services";
import { REFUSED_FORMATS } from "../../../../src/emulator/services/geocoding/answer-formats";
import { startTestEmulator, type TestEmulator } from "../../../helpers/emulator";

// The spec's `format` (default XML; enum XML, JSON, PHP, RUBY, PYTHON, YAML, and for fulltext ATOM
// and GEORSS): the emulator serves XML, JSON and YAML, and refuses the others with a documented
// 501, never the 412 the spec keeps for a missing parameter.

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
});
afterAll(() => t?.close());

/** Each operation with a query it answers. */
const OPERATIONS: Record<string, string> = {
  "/reversegeocoding/reversegeocode": "lat=52.37&lng=4.89",
  "/geocoding/geocode": "address=Dam%201%2C%20Amsterdam",
  "/addressparser/parse": "address=Dam%201%2C%201012%20JS%20Amsterdam&country=NL",
  "/geoloc/search": "lat=52.37&lng=4.89&radius=20000",
  "/street/find": "lat=52.373&lng=4.893&radius=2000",
  "/fulltext/search": "q=Amsterdam",
};

async function get(path: string, query: string): Promise<{ status: number; type: string; text: string }> {
  const res = await fetch(`${t.url}/geocoding${path}?${query}`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

const xml = new XMLParser({ ignoreAttributes: false, parseTagValue: true, isArray: (name) => name === "result" });

describe("format=XML, the spec's default, is served by every operation", () => {
  for (const [path, query] of Object.entries(OPERATIONS)) {
    it(`${path}: the same answer as JSON, as XML under <results>, each list item a <result>`, async () => {
      const asJson = await get(path, `${query}&format=json`);
      expect(asJson.status, asJson.text).toBe(200);
      const body = JSON.parse(asJson.text) as { numFound: number; result?: Record<string, unknown>[] };
      const asXml = await get(path, `${query}&format=XML`);
      expect(asXml.status, asXml.text).toBe(200);
      expect(asXml.type).toMatch(/^application\/xml/);
      expect(asXml.text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<results>/);
      const doc = xml.parse(asXml.text) as { results: { numFound: number; result?: Record<string, unknown>[] } };
      expect(doc.results.numFound).toBe(body.numFound);
      expect(doc.results.result?.length ?? 0).toBe(body.result?.length ?? 0);
      const first = body.result?.[0];
      if (first && typeof first.countryCode === "string") expect(doc.results.result![0].countryCode).toBe(first.countryCode);
    });
  }

  it("lower case works as well, and `indent` pretty-prints", async () => {
    const r = await get("/reversegeocoding/reversegeocode", "lat=52.37&lng=4.89&format=xml&indent=true");
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/\n {2}<numFound>/);
  });
});

describe("the other formats", () => {
  it("no format: JSON (what stackwarden's client asks for)", async () => {
    const r = await get("/reversegeocoding/reversegeocode", "lat=52.37&lng=4.89");
    expect(r.type).toMatch(/^application\/json/);
    expect(JSON.parse(r.text)).toMatchObject({ numFound: expect.any(Number), result: expect.any(Array) });
  });

  it("YAML: the same answer", async () => {
    const json = JSON.parse((await get("/geocoding/geocode", "address=Dam%201%2C%20Amsterdam&format=json")).text) as { result: unknown[] };
    const r = await get("/geocoding/geocode", "address=Dam%201%2C%20Amsterdam&format=YAML");
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/yaml/);
    const yaml = parseYaml(r.text) as { result: unknown[] };
    expect(yaml.result).toEqual(json.result);
  });

  for (const format of REFUSED_FORMATS) {
    it(`${format}: refused with 501 NotImplemented naming what is served, not 412`, async () => {
      const r = await get("/fulltext/search", `q=Amsterdam&format=${format}`);
      expect(r.status).toBe(501);
      expect(JSON.parse(r.text)).toEqual({
        error: `format ${format} is not served by the emulator; it serves JSON, XML, YAML`,
        code: "NotImplemented",
      });
    });
  }

  it("a value the spec does not list: 400; a missing parameter is still the spec's 412", async () => {
    const bad = await get("/reversegeocoding/reversegeocode", "lat=52.37&lng=4.89&format=CSV");
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toMatchObject({ code: "BadFormat" });
    const missing = await get("/reversegeocoding/reversegeocode", "lat=52.37&format=XML");
    expect(missing.status).toBe(412);
    expect(missing.text).toContain("Missing parameter: lng is required");
  });
});
