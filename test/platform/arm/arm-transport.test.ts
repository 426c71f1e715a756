import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARM_SAFE_NAMES, ArmTransport, armTransport } from "../../../src/platform/arm/arm-transport";
import { AZURE_REQUEST_IDS } from "../../../src/platform/arm/azure-request-ids";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import { ApiError } from "../../../src/platform/http/api-error";
import { silentLogger, type Logger } from "../../../src/platform/http/logger";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("the ARM layer supplies Azure's request ids", () => {
  it("names x-ms-client-request-id to send and x-ms-request-id to read, and declares them safe to print", () => {
    expect(AZURE_REQUEST_IDS).toEqual({ client: "x-ms-client-request-id", response: ["x-ms-request-id"] });
    expect(ARM_SAFE_NAMES.headers).toEqual(
      expect.arrayContaining(["x-ms-request-id", "x-ms-client-request-id", "x-ms-correlation-request-id"]),
    );
  });

  it("an ARM transport sends a fresh x-ms-client-request-id per call and quotes x-ms-request-id in errors and debug lines", async () => {
    srv.script((_q, res, n) =>
      n === 0
        ? json(res, 200, { value: [] }, { "x-ms-request-id": "rid-ok" })
        : json(res, 404, { error: { code: "ResourceNotFound", message: "gone" } }, { "x-ms-request-id": "rid-404" }),
    );
    const lines: string[] = [];
    const logger: Logger = { debug: (l) => lines.push(l), warn: (l) => lines.push(l), debugEnabled: true };
    const t = new ArmTransport({ baseUrl: srv.url, retry: FAST_RETRY, logger, query: { "api-version": "2021-01-01" } });
    const res = await t.request({ operation: "Things_List", method: "GET", path: "/things" });
    expect([res.requestId, res.requestIdHeader]).toEqual(["rid-ok", "x-ms-request-id"]);
    expect(res.clientRequestId).toMatch(UUID);
    const e = (await t.json({ operation: "Things_Get", method: "GET", path: "/things/x" }).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.message).toBe("Things_Get failed: HTTP 404 ResourceNotFound: gone (x-ms-request-id: rid-404)");
    const sent = srv.seen.map((r) => r.headers["x-ms-client-request-id"]);
    expect(sent[0]).toMatch(UUID);
    expect(new Set(sent).size).toBe(2);
    expect(e.clientRequestId).toBe(sent[1]);
    expect(lines.filter((l) => l.includes("->")).map((l) => l.replace(/.*\(/, "("))).toEqual([
      "(attempts 1, x-ms-request-id rid-ok)",
      "(attempts 1, x-ms-request-id rid-404)",
    ]);
  });

  it("armTransport builds one for an api-version with a bearer token, and pages by value/nextLink", async () => {
    srv.script((q, res) =>
      q.url.includes("skiptoken")
        ? json(res, 200, { value: [{ id: "b" }] })
        : json(res, 200, { value: [{ id: "a" }], nextLink: `${srv.url}/things?api-version=2021-01-01&$skiptoken=2` }),
    );
    const t = armTransport(
      {
        endpoint: srv.url,
        credential: new StaticTokenCredential("tok-arm-transport-test"),
        retry: FAST_RETRY,
        logger: silentLogger,
        pacing: false,
      },
      "2021-01-01",
    );
    expect(await t.list({ operation: "Things_List", method: "GET", path: "/things" })).toEqual([{ id: "a" }, { id: "b" }]);
    expect(srv.seen.map((r) => r.url)).toEqual(["/things?api-version=2021-01-01", "/things?api-version=2021-01-01&%24skiptoken=2"]);
    expect(srv.seen[0].headers.authorization).toBe("Bearer tok-arm-transport-test");
  });

  it("a page without a value array fails the list with ARM's redacted URL (api-version shown, a signature hidden)", async () => {
    srv.script((_q, res) => json(res, 200, { items: [] }));
    const t = new ArmTransport({ baseUrl: srv.url, retry: FAST_RETRY, logger: silentLogger, query: { "api-version": "2021-01-01" } });
    const e = (await t
      .list({ operation: "Things_List", method: "GET", path: "/things", query: { sig: "s3cr3t" } })
      .catch((x: unknown) => x)) as ApiError;
    expect([e.code, e.detail]).toEqual(["InvalidResponse", 'page 1 has no "value" array']);
    expect(e.url).toBe(`${srv.url}/things?api-version=2021-01-01&sig=REDACTED`);
  });
});
