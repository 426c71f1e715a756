import { setTimeout as delay } from "node:timers/promises";
import { inspect } from "node:util";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INDEX_STATE_HEADER } from "../../../src/emulator/services/geocoding/geocoding-runtime";
import { ApiError, type Logger } from "../../../src/platform/http";
import { GeocodingClient } from "../../../src/services/geocoding/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../../platform/http/scripted-server";

/**
 * Who may call the geocoding service: the spec's 401, 403 and 429 from the emulator's key gate,
 * and how the client explains each (and the spec's 412 and 500) without ever showing the key.
 * Parsing needs no index, so these tests do not wait for one.
 */
const GOOD = "gk-good-key-7f3a91";
const OFFICE = "gk-office-key-2b7c";
const SPENT = "gk-spent-key-c04d";
const WRONG = "gk-wrong-key-5e6f";
const KEYS = [GOOD, OFFICE, SPENT, WRONG];

let t: TestEmulator;
let base: string;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
geocoding:
  apiKeys:
    - { key: ${GOOD}, quota: { requests: 1, perSeconds: 3 } }
    - { key: ${OFFICE}, allowedIps: [10.9.9.9] }
    - { key: ${SPENT}, quota: { requests: 0, perSeconds: 60 } }
`),
  });
  base = `${t.url}/geocoding`;
});
afterAll(async () => {
  await t.close();
});

function capture(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debugEnabled: true, debug: (l) => lines.push(l), warn: (l) => lines.push(l) };
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error("the call must fail");
}

function expectNoKey(text: string): void {
  for (const k of KEYS) expect(text.includes(k), `leaked ${k} in: ${text}`).toBe(false);
}

const surfaces = (e: Error) => [e.message, e.stack ?? "", inspect(e), JSON.stringify(e)].join("\n");
const parse = (c: GeocodingClient) => c.parseAddress({ address: "Dam 1, 1012 JS Amsterdam" });

describe("the key gate", () => {
  it("401 without a key, and the client says to set STACKWARDEN_GEOCODING_API_KEY", async () => {
    const e = await failure(parse(new GeocodingClient({ endpoint: base, retry: FAST_RETRY })));
    expect(e).toMatchObject({ status: 401, code: "GeocodingUnauthorized", attempts: 1 });
    expect(e.message).toMatch(/needs an API key: set STACKWARDEN_GEOCODING_API_KEY/);
    expect(e.message).toMatch(/api_key parameter is missing/);
  });

  it("401 for a key that matches no subscription; the key is in no error surface", async () => {
    const logger = capture();
    const e = await failure(parse(new GeocodingClient({ endpoint: base, apiKey: WRONG, retry: FAST_RETRY, logger })));
    expect(e).toMatchObject({ status: 401, code: "GeocodingUnauthorized" });
    expect(e.message).toMatch(/refused the API key .*check STACKWARDEN_GEOCODING_API_KEY/);
    expect(e.url).toContain("api_key=REDACTED");
    expectNoKey(surfaces(e));
    expectNoKey(logger.lines.join("\n"));
  });

  it("403 for a key used from an address it is not allowed from", async () => {
    const e = await failure(parse(new GeocodingClient({ endpoint: base, apiKey: OFFICE, retry: FAST_RETRY })));
    expect(e).toMatchObject({ status: 403, code: "GeocodingForbidden" });
    expect(e.message).toMatch(/another key will not help/);
    expect(e.message).toMatch(/127\.0\.0\.1 is not allowed/);
    expectNoKey(surfaces(e));
  });

  it("429 with Retry-After once a key's quota is spent", async () => {
    const res = await request(`${base}/addressparser/parse?format=json&address=x&api_key=${SPENT}`);
    const body = await res.body.json();
    expect(res.statusCode).toBe(429);
    expect(res.headers["retry-after"]).toBe("60");
    expect(JSON.stringify(body)).toMatch(/quota of 0 requests per 60 s is spent/);
  });

  it("a 429 whose Retry-After fits the retry budget is waited out and retried by the transport", async () => {
    const logger = capture();
    const client = new GeocodingClient({ endpoint: base, apiKey: GOOD, retry: FAST_RETRY, logger });
    // The quota is one request in 3 s: the second call is refused once, then retried after Retry-After.
    const first = await parse(client);
    const second = await parse(client);
    expect([first, second].map((a) => a.result?.[0]?.city)).toEqual(["Amsterdam", "Amsterdam"]);
    const retried = logger.lines.filter((l) => /: 429 on attempt 1; retrying in \d+ ms/.test(l));
    expect(retried).toHaveLength(1);
    expect(retried[0]).toContain("api_key=REDACTED");
    expectNoKey(logger.lines.join("\n"));
  });

  it("a 429 asking for longer than the budget is an error that says so", async () => {
    const e = await failure(parse(new GeocodingClient({ endpoint: base, apiKey: SPENT, retry: FAST_RETRY })));
    expect(e).toMatchObject({ status: 429, code: "GeocodingRateLimited", attempts: 1 });
    expect(e.message).toMatch(/request rate is exceeded .*slow down or raise the key's quota/);
    expectNoKey(surfaces(e));
  });
});

describe("the spec's other errors, from a service that sends them", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("412: the parameter problem, with the service's words", async () => {
    server.script((_q, res) => json(res, 412, { error: "Missing parameter: address is required" }));
    const e = await failure(parse(new GeocodingClient({ endpoint: server.url, apiKey: GOOD, retry: FAST_RETRY })));
    expect(e).toMatchObject({ status: 412, code: "GeocodingMissingParameter", attempts: 1 });
    expect(e.message).toMatch(/parameter missing or invalid \(the service said: Missing parameter: address is required\)/);
  });

  it("500: retried, then an internal error that says to try later; a key echoed back is scrubbed", async () => {
    server.script((q, res) => json(res, 500, { error: `internal failure for ${q.url}` }));
    const e = await failure(parse(new GeocodingClient({ endpoint: server.url, apiKey: GOOD, retry: { ...FAST_RETRY, maxAttempts: 3 } })));
    expect(e).toMatchObject({ status: 500, code: "GeocodingInternalError", attempts: 3 });
    expect(e.message).toMatch(/failed internally; try again later/);
    expect(server.seen).toHaveLength(3);
    expect(server.seen[0].url).toContain(`api_key=${GOOD}`);
    expectNoKey(surfaces(e));
  });

  it("sends format=json, the key as api_key, and every parameter as the spec names it", async () => {
    server.script((_q, res) => json(res, 200, { numFound: 0, QTime: 0, result: null }));
    const client = new GeocodingClient({ endpoint: `${server.url}/api`, apiKey: GOOD, retry: FAST_RETRY });
    const res = await client.fulltextSearch({ q: "dam", country: "nl", lat: 52.37, lng: 4.89, radius: 500, suggest: true, from: 2, to: 4 });
    expect(res.result).toEqual([]);
    await client.findStreets({ lat: 1, lng: 2, oneway: true, streettype: "pedestrian" });
    const [full, street] = server.seen.map((s) => new URL(s.url, server.url));
    expect(full.pathname).toBe("/api/fulltext/search");
    expect(Object.fromEntries(full.searchParams)).toEqual({
      format: "json",
      api_key: GOOD,
      q: "dam",
      allwordsrequired: "false",
      country: "NL",
      lat: "52.37",
      lng: "4.89",
      radius: "500",
      suggest: "true",
      from: "2",
      to: "4",
    });
    expect(street.pathname).toBe("/api/street/find");
    expect(Object.fromEntries(street.searchParams)).toMatchObject({ lat: "1", lng: "2", oneway: "true", streettype: "pedestrian" });
  });

  it("logs coordinates and paging, never the key, and never the free text of an address or query", async () => {
    server.script((_q, res) => json(res, 200, { numFound: 0, QTime: 0, result: [] }));
    const logger = capture();
    const client = new GeocodingClient({ endpoint: server.url, apiKey: GOOD, retry: FAST_RETRY, logger });
    await client.reverseGeocode({ lat: 52.37, lng: 4.89, from: 1, to: 2 });
    await client.geocode({ address: "Kerkstraat 1, 1017 GA Amsterdam" });
    await client.fulltextSearch({ q: "kerkstraat" });
    const lines = logger.lines.join("\n");
    expect(lines).toMatch(/reversegeocode GET .*lat=52\.37&lng=4\.89&from=1&to=2/);
    expect(lines).toContain("api_key=REDACTED");
    expect(lines).toContain("address=REDACTED");
    expect(lines).toContain("q=REDACTED");
    expect(lines).not.toMatch(/Kerkstraat|kerkstraat/);
    expectNoKey(lines);
  });

  it("refuses a body that is not a JSON object", async () => {
    server.script((_q, res) => json(res, 200, [1, 2]));
    const e = await failure(parse(new GeocodingClient({ endpoint: server.url, retry: FAST_RETRY })));
    expect(e).toMatchObject({ code: "InvalidResponse" });
  });
});

/** The emulator's index state, read through address parsing (which needs no index and starts no build). */
async function indexState(url: string): Promise<string | string[] | undefined> {
  const res = await request(`${url}/geocoding/addressparser/parse?format=json&address=Dam%201`);
  await res.body.dump();
  expect(res.statusCode).toBe(200);
  return res.headers[INDEX_STATE_HEADER];
}

describe("lazy indexes", () => {
  it("the emulator's other APIs answer while the first geocoding request waits for the indexes", async () => {
    const fresh = await startTestEmulator();
    try {
      // By default nothing is built until a request needs an index: parsing does not.
      expect(await indexState(fresh.url)).toBe("not-started");
      await delay(200);
      expect(await indexState(fresh.url)).toBe("not-started");
      const order: string[] = [];
      const geo = new GeocodingClient({ endpoint: `${fresh.url}/geocoding`, retry: FAST_RETRY })
        .reverseGeocode({ lat: 52.3667, lng: 4.9, to: 1 })
        .then((r) => {
          order.push("geocoding");
          return r;
        });
      const imds = await request(`${fresh.url}/metadata/instance?api-version=2020-10-01`, { headers: { metadata: "true" } });
      await imds.body.json();
      order.push("imds");
      expect(imds.statusCode).toBe(200);
      expect((await geo).result?.[0]?.countrycode).toBe("NL");
      expect(order).toEqual(["imds", "geocoding"]);
      expect(await indexState(fresh.url)).toMatch(/^(building|ready)$/);
    } finally {
      await fresh.close();
    }
  });

  it("a seed with indexAtStart: true builds every index at start, before any request needs one", async () => {
    const fresh = await startTestEmulator({ seed: seedFromYaml("geocoding:\n  indexAtStart: true\n") });
    try {
      expect(await indexState(fresh.url)).toBe("building");
      // Only address parsing is asked while the build runs to its end on its own.
      const deadline = Date.now() + 120_000;
      let state = await indexState(fresh.url);
      while (state !== "ready" && Date.now() < deadline) {
        await delay(100);
        state = await indexState(fresh.url);
      }
      expect(state).toBe("ready");
      expect(Object.keys(fresh.emu.stats.byRoute).filter((k) => k.includes("/geocoding/"))).toEqual(["GET /geocoding/addressparser/parse"]);
      // The first request that needs the full-text index finds it built.
      const res = await new GeocodingClient({ endpoint: `${fresh.url}/geocoding`, retry: FAST_RETRY }).fulltextSearch({
        q: "Amsterdam",
        country: "NL",
      });
      expect(res.result?.[0]).toMatchObject({ name: "Amsterdam", country_code: "NL" });
    } finally {
      await fresh.close();
    }
  }, 150_000);
});
