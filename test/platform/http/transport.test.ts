import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, parseErrorBody } from "../../../src/platform/http/api-error";
import { HttpTransport } from "../../../src/platform/http/transport";
import { silentLogger } from "../../../src/platform/http/logger";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, text, type ScriptedServer } from "./scripted-server";

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});

/** A service whose request ids travel in Azure's headers, as the ARM layer names them (the transport itself knows none). */
const AZURE_IDS = { client: "x-ms-client-request-id", response: ["x-ms-request-id"] };
const transport = (over: Partial<ConstructorParameters<typeof HttpTransport>[0]> = {}) =>
  new HttpTransport({
    baseUrl: srv.url,
    retry: FAST_RETRY,
    logger: silentLogger,
    query: { "api-version": "2014-04-01" },
    requestIds: AZURE_IDS,
    ...over,
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error("expected the call to fail");
}

describe("HttpTransport against a real server", () => {
  it("retries 503s, then returns the body; the client request id is the same on every attempt", async () => {
    srv.script((_q, res, n) =>
      n < 2
        ? json(res, 503, { error: { code: "ServerBusy", message: "busy" } })
        : json(res, 200, { name: "db1" }, { "x-ms-request-id": "rid-ok" }),
    );
    const res = await transport().request<{ name: string }>({ operation: "Things_Get", method: "GET", path: "/things/db1" });
    expect(res.body).toEqual({ name: "db1" });
    expect(res.attempts).toBe(3);
    expect(res.requestId).toBe("rid-ok");
    expect(srv.seen).toHaveLength(3);
    const ids = srv.seen.map((r) => r.headers["x-ms-client-request-id"]);
    expect(ids[0]).toMatch(UUID);
    expect(new Set(ids).size).toBe(1);
    expect(res.clientRequestId).toBe(ids[0]);
    expect(srv.seen[0].url).toBe("/things/db1?api-version=2014-04-01");
    expect(srv.seen[0].headers["user-agent"]).toMatch(/^stackwarden\//);
  });

  it("gives a fresh x-ms-client-request-id to every call", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const t = transport();
    for (let i = 0; i < 5; i++) await t.json({ operation: "Things_Get", method: "GET", path: "/things" });
    const ids = srv.seen.map((r) => r.headers["x-ms-client-request-id"]);
    expect(new Set(ids).size).toBe(5);
    for (const id of ids) expect(id).toMatch(UUID);
  });

  it("gives up after maxAttempts with an ApiError carrying status, ARM code, message and request id", async () => {
    srv.script((_q, res, n) =>
      json(res, 503, { error: { code: "ServerBusy", message: `The server is busy (${n}).` } }, { "x-ms-request-id": `rid-${n}` }),
    );
    const e = await failure(
      transport({ retry: { ...FAST_RETRY, maxAttempts: 3 } }).json({ operation: "Things_Get", method: "GET", path: "/things/x" }),
    );
    expect(srv.seen).toHaveLength(3);
    expect(e.status).toBe(503);
    expect(e.code).toBe("ServerBusy");
    expect(e.detail).toBe("The server is busy (2).");
    expect(e.requestId).toBe("rid-2");
    expect(e.attempts).toBe(3);
    expect(e.operation).toBe("Things_Get");
    expect(e.clientRequestId).toBe(srv.seen[0].headers["x-ms-client-request-id"]);
    expect(e.message).toBe("Things_Get failed: HTTP 503 ServerBusy: The server is busy (2). (x-ms-request-id: rid-2)");
  });

  it("does not retry a 404 and maps an ARM error body", async () => {
    srv.script((_q, res) =>
      json(res, 404, { error: { code: "ResourceNotFound", message: "The Resource 'x' was not found." } }, { "x-ms-request-id": "rid-404" }),
    );
    const e = await failure(transport().json({ operation: "Things_Get", method: "GET", path: "/things/x" }));
    expect(srv.seen).toHaveLength(1);
    expect([e.status, e.code, e.requestId, e.attempts]).toEqual([404, "ResourceNotFound", "rid-404", 1]);
  });

  it("an error without a body gets the HTTP reason as its code", async () => {
    srv.script((_q, res) => {
      res.writeHead(409, { "content-length": "0" });
      res.end();
    });
    const e = await failure(transport().json({ operation: "Things_Put", method: "PUT", path: "/things/x", json: { a: 1 } }));
    expect([e.status, e.code]).toEqual([409, "Conflict"]);
    expect(srv.seen[0].body).toBe('{"a":1}');
    expect(srv.seen[0].headers["content-type"]).toBe("application/json");
  });

  it("does not retry a POST after a 503, but does after a 429", async () => {
    srv.script((_q, res) => json(res, 503, { error: { code: "ServerBusy", message: "busy" } }));
    const e = await failure(transport().json({ operation: "Things_Action", method: "POST", path: "/things/x/action", json: {} }));
    expect(e.status).toBe(503);
    expect(srv.seen).toHaveLength(1);

    srv.script((_q, res, n) =>
      n === 0
        ? json(res, 429, { error: { code: "TooManyRequests", message: "slow down" } }, { "retry-after-ms": "5" })
        : json(res, 200, { ok: true }),
    );
    const res = await transport().request({ operation: "Things_Action", method: "POST", path: "/things/x/action", json: { go: 1 } });
    expect(res.body).toEqual({ ok: true });
    expect(srv.seen.map((r) => r.body)).toEqual(['{"go":1}', '{"go":1}']);
  });

  it("retries a dropped connection", async () => {
    srv.script((_q, res, n) => (n === 0 ? res.socket!.destroy() : json(res, 200, { fine: true })));
    const res = await transport().request({ operation: "Things_Get", method: "GET", path: "/things/x" });
    expect(res.body).toEqual({ fine: true });
    expect(res.attempts).toBe(2);
    expect(srv.seen).toHaveLength(2);
  });

  it("a connection that always drops ends in an ApiError with a transport code", async () => {
    srv.script((_q, res) => res.socket!.destroy());
    const e = await failure(
      transport({ retry: { ...FAST_RETRY, maxAttempts: 2 } }).json({ operation: "Things_Get", method: "GET", path: "/things/x" }),
    );
    expect(e.status).toBe(0);
    expect(e.code).toBe("UND_ERR_SOCKET");
    expect(e.attempts).toBe(2);
    expect(e.message).toMatch(/^Things_Get failed: UND_ERR_SOCKET: no response from http:\/\/127\.0\.0\.1:\d+ after 2 attempt\(s\)/);
    expect(e.message).toContain(`x-ms-client-request-id: ${String(srv.seen[0].headers["x-ms-client-request-id"])}`);
  });

  it("a body that is not JSON is an ApiError naming the operation and request id", async () => {
    srv.script((_q, res) =>
      text(res, 200, "<html><body>Gateway login</body></html>", "application/json", { "x-ms-request-id": "rid-html" }),
    );
    const e = await failure(transport().json({ operation: "Things_Get", method: "GET", path: "/things/x" }));
    expect(e.code).toBe("InvalidResponse");
    expect(e.status).toBe(200);
    expect(e.message).toContain("Things_Get failed");
    expect(e.message).toContain("rid-html");
    expect(e.message).toContain("not valid JSON");

    // Served as HTML, json() still refuses it rather than handing a string on as data.
    srv.script((_q, res) => text(res, 200, "<html>captive portal</html>", "text/html", { "x-ms-request-id": "rid-portal" }));
    const e2 = await failure(transport().json({ operation: "Things_Get", method: "GET", path: "/things/x" }));
    expect(e2.code).toBe("InvalidResponse");
    expect(e2.message).toContain("Things_Get failed");
    expect(e2.message).toContain("rid-portal");
  });

  it("a truncated JSON body is an ApiError that says so", async () => {
    srv.script((_q, res) =>
      text(res, 200, '{"value":[{"id":"a"},{"id":', "application/json; charset=utf-8", { "x-ms-request-id": "rid-cut" }),
    );
    const e = await failure(transport().json({ operation: "Things_List", method: "GET", path: "/things" }));
    expect(e.code).toBe("InvalidResponse");
    expect(e.message).toContain("Things_List failed");
    expect(e.message).toContain("possibly truncated");
    expect(e.requestId).toBe("rid-cut");
  });

  it("a body cut off by a closed connection is an ApiError naming the operation", async () => {
    srv.script((_q, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500", "x-ms-request-id": "rid-short" });
      res.write('{"value":[{"id":"a"}');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const e = await failure(
      transport({ retry: { ...FAST_RETRY, maxAttempts: 2 } }).json({ operation: "Things_List", method: "GET", path: "/things" }),
    );
    expect(e.message).toContain("Things_List failed");
    expect(e.status).toBe(0);
    expect(e.clientRequestId).toMatch(UUID);
  });

  it("a non-JSON error body becomes the message", async () => {
    srv.script((_q, res) => text(res, 502, "upstream connect error", "text/plain", { "x-ms-request-id": "rid-502" }));
    const e = await failure(
      transport({ retry: { ...FAST_RETRY, maxAttempts: 1 } }).json({ operation: "Things_Get", method: "GET", path: "/x" }),
    );
    expect([e.status, e.code, e.detail, e.requestId]).toEqual([502, "BadGateway", "upstream connect error", "rid-502"]);
  });

  it("times out an attempt that gets no answer, and retries it", async () => {
    srv.script((_q, res, n) => {
      if (n > 0) json(res, 200, { late: false });
    });
    const res = await transport({ timeoutMs: 150 }).request({ operation: "Things_Get", method: "GET", path: "/slow" });
    expect(res.body).toEqual({ late: false });
    expect(res.attempts).toBe(2);

    srv.script(() => {
      /* never answers */
    });
    const started = Date.now();
    const e = await failure(
      transport({ retry: { ...FAST_RETRY, maxAttempts: 1 } }).json({
        operation: "Things_Get",
        method: "GET",
        path: "/slow",
        timeoutMs: 100,
      }),
    );
    expect(e.status).toBe(0);
    expect(e.code).toBe("UND_ERR_HEADERS_TIMEOUT");
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("an AbortSignal cancels a request in flight", async () => {
    srv.script(() => {
      /* never answers */
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const e = await failure(transport().json({ operation: "Things_Get", method: "GET", path: "/hang", signal: ac.signal }));
    expect(e.code).toBe("RequestAborted");
    expect(e.status).toBe(0);
    expect(srv.seen).toHaveLength(1);
  });

  it("an AbortSignal cancels the wait between retries", async () => {
    srv.script((_q, res) => json(res, 503, { error: { code: "ServerBusy", message: "busy" } }, { "retry-after": "20" }));
    const ac = new AbortController();
    const started = Date.now();
    const p = transport({ retry: { ...FAST_RETRY, maxElapsedMs: 60_000 } }).json({
      operation: "Things_Get",
      method: "GET",
      path: "/busy",
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 100);
    const e = await failure(p);
    expect(e.code).toBe("RequestAborted");
    expect(srv.seen).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(10_000); // far below the 20 s the server asked for
  });

  it("an AbortSignal cancels the wait for a bearer token, and says so", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const slowCredential = {
      getToken: (_s: string | string[], o?: { abortSignal?: AbortSignal }) =>
        new Promise<never>((_r, reject) => o?.abortSignal?.addEventListener("abort", () => reject(new Error("token wait aborted")))),
    };
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const e = await failure(
      transport({ auth: { kind: "bearer", credential: slowCredential, scopes: ["https://management.azure.com/.default"] } }).json({
        operation: "Things_Get",
        method: "GET",
        path: "/x",
        signal: ac.signal,
      }),
    );
    expect(e.code).toBe("RequestAborted");
    expect(srv.seen).toHaveLength(0);
  });

  it("an already aborted signal sends nothing", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const e = await failure(transport().json({ operation: "Things_Get", method: "GET", path: "/x", signal: AbortSignal.abort() }));
    expect(e.code).toBe("RequestAborted");
    expect(srv.seen).toHaveLength(0);
  });

  it("merges query parameters: path, request and transport defaults", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const t = transport();
    await t.json({ operation: "A", method: "GET", path: "/a?$top=5" });
    await t.json({
      operation: "B",
      method: "GET",
      path: "/b",
      query: { "api-version": "2020-01-01", $filter: "name eq 'x'", skip: undefined },
    });
    await t.json({ operation: "C", method: "GET", path: "/c", query: { skip: undefined } });
    await t.json({ operation: "D", method: "GET", path: "/d?api-version=1999-01-01" });
    const urls = srv.seen.map((r) => new URL(r.url, srv.url));
    expect(urls[0].pathname).toBe("/a");
    expect(Object.fromEntries(urls[0].searchParams)).toEqual({ $top: "5", "api-version": "2014-04-01" });
    expect(Object.fromEntries(urls[1].searchParams)).toEqual({ "api-version": "2020-01-01", $filter: "name eq 'x'" });
    expect(srv.seen[2].url).toBe("/c?api-version=2014-04-01");
    expect(Object.fromEntries(urls[3].searchParams)).toEqual({ "api-version": "1999-01-01" });
  });

  it("keeps the base URL's path prefix", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const t = new HttpTransport({ baseUrl: `${srv.url}/metadata/`, logger: silentLogger });
    await t.json({ operation: "Instance", method: "GET", path: "/instance" });
    expect(srv.seen[0].url).toBe("/metadata/instance");
  });

  it("refuses an endpoint that is not an http(s) URL", () => {
    expect(() => new HttpTransport({ baseUrl: "not a url" })).toThrow(/invalid endpoint URL "not a url"/);
    expect(() => new HttpTransport({ baseUrl: "ftp://example.com" })).toThrow(/only http and https/);
  });

  it("query-key auth puts api_key in the URL, but never in the error message", async () => {
    const key = "gk-7f3a9c1e5b2d4f60";
    srv.script((q, res) =>
      json(res, 403, { error: { code: "Forbidden", message: `key rejected for ${q.url}` } }, { "x-ms-request-id": "rid-key" }),
    );
    const t = transport({ auth: { kind: "query", name: "api_key", value: key }, safeNames: { query: ["address"] } });
    const e = await failure(t.json({ operation: "Geocode", method: "GET", path: "/geocoding/geocode", query: { address: "Paris" } }));
    expect(new URL(srv.seen[0].url, srv.url).searchParams.get("api_key")).toBe(key);
    expect(e.message).toContain("key rejected for /geocoding/geocode");
    expect(e.message).not.toContain(key);
    expect(e.url).not.toContain(key);
    expect(JSON.stringify(e)).not.toContain(key);
    expect(new URL(e.url).searchParams.get("api_key")).toBe("REDACTED");
    expect(new URL(e.url).searchParams.get("address")).toBe("Paris");
  });

  it("header auth sends the key headers on every request", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const t = transport({ auth: { kind: "header", headers: { "X-APISETU-APIKEY": "hk-123456789", "X-APISETU-CLIENTID": "client-7" } } });
    await t.json({ operation: "A", method: "POST", path: "/cripc/certificate", json: {} });
    expect(srv.seen[0].headers["x-apisetu-apikey"]).toBe("hk-123456789");
    expect(srv.seen[0].headers["x-apisetu-clientid"]).toBe("client-7");
  });

  it("bytes() returns the raw body and maps errors", async () => {
    const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff]);
    srv.script((_q, res, n) => {
      if (n === 0) {
        res.writeHead(200, { "content-type": "application/pdf", "content-length": String(pdf.length) });
        res.end(pdf);
      } else json(res, 400, { error: { code: "BadDoc", message: "no such document" } });
    });
    const t = transport();
    const ok = await t.bytes({ operation: "Doc_Get", method: "GET", path: "/doc" });
    expect(Buffer.compare(ok.body, pdf)).toBe(0);
    const e = await failure(t.bytes({ operation: "Doc_Get", method: "GET", path: "/doc" }));
    expect([e.status, e.code, e.detail]).toEqual([400, "BadDoc", "no such document"]);
  });
});

describe("parseErrorBody", () => {
  it("reads ARM, OData, OAuth and IMDS error shapes", () => {
    expect(parseErrorBody({ error: { code: "ResourceNotFound", message: "gone" } })).toEqual({ code: "ResourceNotFound", message: "gone" });
    expect(parseErrorBody({ code: "BadArgument", message: "no" })).toEqual({ code: "BadArgument", message: "no" });
    expect(parseErrorBody({ error: "invalid_request", error_description: "Identity not found" })).toEqual({
      code: "invalid_request",
      message: "Identity not found",
    });
    expect(parseErrorBody({ error: "Bad request. Required metadata header not specified" })).toEqual({
      message: "Bad request. Required metadata header not specified",
    });
    expect(parseErrorBody({ error: "too_many_requests" })).toEqual({ code: "too_many_requests", message: undefined });
    expect(parseErrorBody({ error: { code: "", message: 5 } })).toEqual({ code: undefined, message: undefined });
    expect(parseErrorBody("text")).toEqual({});
    expect(parseErrorBody(null)).toEqual({});
  });
});
