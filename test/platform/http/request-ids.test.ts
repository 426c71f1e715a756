import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http/api-error";
import type { Logger } from "../../../src/platform/http/logger";
import { readRequestId } from "../../../src/platform/http/request-ids";
import { HttpTransport, type TransportOptions } from "../../../src/platform/http/transport";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server";

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A convention that is not Azure's: the caller names the headers, the transport knows none. */
const OTHER_IDS = { client: "X-Correlation-Id", response: ["x-request-id", "x-amzn-requestid"] };

function debugLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debug: (l) => lines.push(l), warn: (l) => lines.push(l), debugEnabled: true };
}

const transport = (over: Partial<TransportOptions> = {}) => new HttpTransport({ baseUrl: srv.url, retry: FAST_RETRY, ...over });

async function failure(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe("request ids: the caller names the headers", () => {
  it("a transport told no names sends no id and reads none, not even Azure's", async () => {
    srv.script((_q, res) => json(res, 404, { error: { code: "NotFound", message: "no such thing" } }, { "x-ms-request-id": "rid-1" }));
    const logger = debugLogger();
    const e = await failure(transport({ logger }).json({ operation: "Things_Get", method: "GET", path: "/things/x" }));
    expect(Object.keys(srv.seen[0].headers).filter((h) => /request-id|correlation/.test(h))).toEqual([]);
    expect([e.requestId, e.requestIdHeader, e.clientRequestId, e.clientRequestIdHeader]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(e.message).toBe("Things_Get failed: HTTP 404 NotFound: no such thing");
    expect(logger.lines.find((l) => l.includes("-> 404"))).toMatch(/\(attempts 1\)$/);

    srv.script((_q, res) => json(res, 200, { ok: true }, { "x-ms-request-id": "rid-2" }));
    const res = await transport().request({ operation: "Things_Get", method: "GET", path: "/things/x" });
    expect([res.requestId, res.clientRequestId]).toEqual([undefined, undefined]);
  });

  it("sends a fresh id in the named header, the same on every retry of a call", async () => {
    srv.script((_q, res, n) => (n === 0 ? json(res, 503, { error: { code: "Busy", message: "busy" } }) : json(res, 200, {})));
    const res = await transport({ requestIds: OTHER_IDS }).request({ operation: "Things_Get", method: "GET", path: "/things/x" });
    const sent = srv.seen.map((r) => r.headers["x-correlation-id"]);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toMatch(UUID);
    expect(sent[1]).toBe(sent[0]);
    expect([res.clientRequestId, res.clientRequestIdHeader]).toEqual([sent[0], "x-correlation-id"]);
    expect(srv.seen[0].headers["x-ms-client-request-id"]).toBeUndefined();
  });

  it("reads the first named header present into the response, the error and the debug line", async () => {
    srv.script((_q, res) => json(res, 409, { error: { code: "Conflict", message: "taken" } }, { "x-amzn-requestid": "amzn-9" }));
    const logger = debugLogger();
    const e = await failure(
      transport({ requestIds: OTHER_IDS, logger }).json({ operation: "Things_Put", method: "PUT", path: "/t", json: {} }),
    );
    expect([e.requestId, e.requestIdHeader]).toEqual(["amzn-9", "x-amzn-requestid"]);
    expect(e.message).toBe("Things_Put failed: HTTP 409 Conflict: taken (x-amzn-requestid: amzn-9)");
    expect(logger.lines.find((l) => l.includes("-> 409"))).toMatch(/\(attempts 1, x-amzn-requestid amzn-9\)$/);

    srv.script((_q, res) => json(res, 200, {}, { "x-request-id": "req-1", "x-amzn-requestid": "amzn-1" }));
    const res = await transport({ requestIds: OTHER_IDS }).request({ operation: "Things_Get", method: "GET", path: "/t" });
    expect([res.requestId, res.requestIdHeader]).toEqual(["req-1", "x-request-id"]);
  });

  it("without the service's id, an error names the id it sent; a debug line shows '-'", async () => {
    srv.script((_q, res) => json(res, 400, { error: { code: "Bad", message: "bad" } }));
    const logger = debugLogger();
    const e = await failure(transport({ requestIds: OTHER_IDS, logger }).json({ operation: "Things_Get", method: "GET", path: "/t" }));
    const sent = String(srv.seen[0].headers["x-correlation-id"]);
    expect(e.message).toBe(`Things_Get failed: HTTP 400 Bad: bad (x-correlation-id: ${sent})`);
    expect(logger.lines.find((l) => l.includes("-> 400"))).toMatch(/\(attempts 1, x-request-id -\)$/);
  });

  it("a call that got no answer still names the id it sent", async () => {
    const dead = new HttpTransport({ baseUrl: "http://127.0.0.1:9", requestIds: OTHER_IDS, retry: { retryUnreachable: false } });
    const e = await failure(dead.json({ operation: "Things_Get", method: "GET", path: "/t" }));
    expect(e.status).toBe(0);
    expect(e.clientRequestId).toMatch(UUID);
    expect(e.message).toContain(`(x-correlation-id: ${e.clientRequestId})`);
  });

  it("a call may set the id header itself; that is what is sent", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    await transport({ requestIds: OTHER_IDS }).json({ operation: "A", method: "GET", path: "/a", headers: { "x-correlation-id": "mine" } });
    expect(srv.seen[0].headers["x-correlation-id"]).toBe("mine");
  });
});

describe("readRequestId", () => {
  it("takes the first named header present, the first value of a repeated one", () => {
    expect(readRequestId({ b: "2", a: ["1", "x"] }, ["a", "b"])).toEqual({ header: "a", value: "1" });
    expect(readRequestId({ b: "2" }, ["a", "b"])).toEqual({ header: "b", value: "2" });
    expect(readRequestId({ b: "2" }, ["a"])).toBeUndefined();
    expect(readRequestId({ b: "2" }, undefined)).toBeUndefined();
  });
});

describe("ApiError.restate", () => {
  it("keeps status, URL, attempts and both ids with their headers; the message names the same header", () => {
    const e = new ApiError({
      operation: "Things_Get",
      status: 404,
      code: "NotFound",
      message: "Not Found",
      method: "GET",
      url: "https://h/things/x",
      requestId: "rid-7",
      requestIdHeader: "x-ms-request-id",
      clientRequestId: "c-7",
      clientRequestIdHeader: "x-ms-client-request-id",
      attempts: 2,
    });
    const r = e.restate({ message: "The thing 'x' was not found (Not Found)." });
    expect(r).toBeInstanceOf(ApiError);
    expect(r.message).toBe("Things_Get failed: HTTP 404 NotFound: The thing 'x' was not found (Not Found). (x-ms-request-id: rid-7)");
    expect([r.status, r.url, r.attempts, r.requestId, r.clientRequestId, r.clientRequestIdHeader]).toEqual([
      404,
      "https://h/things/x",
      2,
      "rid-7",
      "c-7",
      "x-ms-client-request-id",
    ]);
    expect(e.restate({ code: "Gone", message: "m" }).code).toBe("Gone");
  });

  it("an id without a named header is still shown", () => {
    const e = new ApiError({ operation: "Op", status: 500, code: "Boom", message: "m", method: "GET", url: "u", clientRequestId: "c-1" });
    expect(e.message).toBe("Op failed: HTTP 500 Boom: m (client request id: c-1)");
  });
});
