import { inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestSchemaValidator } from "../../../src/emulator/services/certificates/request-validation";
import { ApiError, type Logger } from "../../../src/platform/http";
import { CertificatesClient, parseCertificateError } from "../../../src/services/certificates/client";
import { documentKind } from "../../../src/services/certificates/document-kind";
import { namingStyleFromEnv } from "../../../src/platform/settings/naming-style";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, text, type ScriptedServer } from "../../platform/http/scripted-server";

/**
 * What the client sends, checked on the wire by a scripted server: path, headers, a body that
 * validates against the operation's published request schema, a fresh txnId per call; and how it
 * reads answers by content type and maps the spec's error bodies.
 */
const KEY = "planted-apisetu-key-7f3a";
/** A credential as well: STACKWARDEN_APISETU_CLIENT_ID is one of the contract's key variables. */
const CLIENT = "planted-apisetu-client-2e9d";
const NAME = "Planted Holder Name";
const POLICY = "PLANTED-POLICY-0042";
const params = { FullName: NAME, UDF1: POLICY, UDF2: "CUST-1", UDF3: "01/04/2024" };

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});

function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, debugEnabled: true, debug: (l) => lines.push(l), warn: (l) => lines.push(l) };
}

function client(opts: Partial<ConstructorParameters<typeof CertificatesClient>[0]> = {}) {
  return new CertificatesClient({ endpoint: `${srv.url}/gw`, apiKey: KEY, clientId: CLIENT, retry: FAST_RETRY, ...opts });
}

const pdf = Buffer.from("%PDF-1.3\n% a stand-in body: the client hands bytes on unparsed\n");

describe("what the client sends", () => {
  it("POSTs the spec's body to <endpoint>/<issuer>/v3/<doctype>/certificate with the spec's headers", async () => {
    srv.script((_q, res) => text(res, 200, pdf.toString("latin1"), "application/pdf"));
    const doc = await client().issue("hlipc", { certificateParameters: params });
    const seen = srv.seen[0];
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/gw/newindia/v3/hlipc/certificate");
    expect(seen.headers["x-apisetu-apikey"]).toBe(KEY);
    expect(seen.headers["x-apisetu-clientid"]).toBe(CLIENT);
    expect(seen.headers["x-gateway-apikey"]).toBeUndefined();
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.headers.accept).toMatch(/^application\/pdf/);
    const body = JSON.parse(seen.body) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["txnId", "format", "certificateParameters"]);
    expect(body).toMatchObject({ format: "pdf", certificateParameters: params, txnId: doc.txnId });
    const validate = requestSchemaValidator("hlipc");
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    expect(doc).toMatchObject({
      issuer: "newindia",
      doctype: "hlipc",
      format: "pdf",
      kind: "pdf",
      status: 200,
      contentType: "application/pdf",
    });
    expect(doc.bytes.equals(pdf)).toBe(true);
  });

  it("a fresh UUID txnId on every call", async () => {
    srv.script((_q, res) => text(res, 200, "%PDF-", "application/pdf"));
    const c = client();
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await c.issue("trcer", { certificateParameters: { ADMN_NO: "1", FullName: "X" } })).txnId);
    expect(ids.size).toBe(5);
    expect(srv.seen.map((s) => (JSON.parse(s.body) as { txnId: string }).txnId)).toEqual([...ids]);
  });

  it("sends X-GATEWAY-APIKEY and X-GATEWAY-CLIENTID with STACKWARDEN_PROVIDER_NAMES=described", async () => {
    srv.script((_q, res) => text(res, 200, "%PDF-", "application/pdf"));
    await client({ naming: namingStyleFromEnv({ STACKWARDEN_PROVIDER_NAMES: "described" }) }).issue("sscer", {
      certificateParameters: { FullName: "X", RROLL: "1", YEAR: "2019" },
    });
    const h = srv.seen[0].headers;
    expect(h["x-gateway-apikey"]).toBe(KEY);
    expect(h["x-gateway-clientid"]).toBe(CLIENT);
    expect(h["x-apisetu-apikey"]).toBeUndefined();
  });

  it("sends xml for govid when asked, and a consentArtifact in the spec's shape", async () => {
    srv.script((_q, res) => text(res, 200, `<?xml version="1.0"?><Certificate type="GOVID"/>`, "application/xml"));
    const consentArtifact = {
      consent: {
        consentId: "ea9c43aa-7f5a-4bf3-a0be-e1caa24737ba",
        timestamp: "2024-06-15T10:00:00.000Z",
        dataConsumer: { id: "c" },
        dataProvider: { id: "p" },
        purpose: { description: "probe" },
        user: { idType: "MOBILE", idNumber: "0", mobile: "0", email: "a@example.invalid" },
        data: { id: "d" },
        permission: {
          access: "VIEW",
          dateRange: { from: "2024-06-15T10:00:00.000Z", to: "2024-06-16T10:00:00.000Z" },
          frequency: { unit: "DAY", value: 1, repeats: 1 },
        },
      },
      signature: { signature: "sig" },
    };
    const doc = await client().issue("govid", { format: "xml", certificateParameters: { CERT_NO: "C1", FullName: "X" }, consentArtifact });
    expect(doc.kind).toBe("xml");
    const body = JSON.parse(srv.seen[0].body) as Record<string, unknown>;
    expect(body.consentArtifact).toEqual(consentArtifact);
    expect(srv.seen[0].headers.accept).toMatch(/^application\/xml/);
    expect(requestSchemaValidator("govid")(body)).toBe(true);
  });

  it("refuses, before sending, a format the doctype's spec does not offer and missing or unknown parameters", async () => {
    srv.script((_q, res) => text(res, 200, "%PDF-", "application/pdf"));
    const c = client();
    await expect(c.issue("hlipc", { format: "xml" as "pdf", certificateParameters: params })).rejects.toThrow(
      'newindia/hlipc: format "xml" is not offered; its spec allows pdf',
    );
    await expect(c.issue("hlipc", { certificateParameters: { ...params, UDF3: "" } })).rejects.toThrow(
      "newindia/hlipc: certificateParameters.UDF3 (Policy Start Date) is required",
    );
    await expect(c.issue("trcer", { certificateParameters: { ADMN_NO: "1", FullName: "X", RROLL: "2" } as never })).rejects.toThrow(
      'lawcollegeandaman/trcer: certificateParameters has no field "RROLL"; the spec defines ADMN_NO, FullName',
    );
    expect(srv.seen).toHaveLength(0);
  });
});

describe("what the client makes of the answers", () => {
  it("maps the spec's error body to an ApiError with its code, description and field", async () => {
    srv.script((_q, res) =>
      json(res, 400, {
        error: "missing_parameter",
        errorDescription: "Please provide all mandatory parameters",
        field: "certificateParameters.UDF2",
      }),
    );
    const e = (await client()
      .issue("hlipc", { certificateParameters: params })
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 400, code: "missing_parameter", operation: "newindia.hlipc" });
    expect(e.message).toBe(
      `newindia.hlipc failed: HTTP 400 missing_parameter: Please provide all mandatory parameters (field certificateParameters.UDF2) (x-ms-client-request-id: ${e.clientRequestId})`,
    );
  });

  it("404 record_not_found is not retried; 503 is (a certificate pull is a read)", async () => {
    srv.script((_q, res) => json(res, 404, { error: "record_not_found", errorDescription: "No record found" }));
    const e = (await client()
      .issue("hlipc", { certificateParameters: params })
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ status: 404, code: "record_not_found", detail: "No record found", attempts: 1 });
    srv.script((_q, res, n) =>
      n === 0
        ? json(res, 503, { error: "service_unavailable", errorDescription: "Publisher service is temporarily unavailable" })
        : text(res, 200, "%PDF-", "application/pdf"),
    );
    const doc = await client().issue("hlipc", { certificateParameters: params });
    expect(doc.status).toBe(200);
    expect(srv.seen).toHaveLength(2);
    expect(srv.seen[1].body).toBe(srv.seen[0].body); // the same txnId: the same request
  });

  it("an error with a body of another shape keeps its status and a short excerpt", async () => {
    srv.script((_q, res) => text(res, 502, "<html>upstream down</html>", "text/html"));
    const e = (await client({ retry: { maxAttempts: 1 } })
      .issue("hlipc", { certificateParameters: params })
      .catch((x: unknown) => x)) as ApiError;
    expect(e).toMatchObject({ status: 502, code: "HTTP502", detail: "<html>upstream down</html>" });
  });

  it("a 200 whose JSON body is the spec's error is an error; other content types are handed on as `other`", async () => {
    srv.script((_q, res) => json(res, 200, { error: "record_not_found", errorDescription: "No record found" }));
    await expect(client().issue("hlipc", { certificateParameters: params })).rejects.toMatchObject({
      status: 200,
      code: "record_not_found",
    });
    srv.script((_q, res) => text(res, 200, "<html>portal</html>", "text/html"));
    const doc = await client().issue("hlipc", { certificateParameters: params });
    expect(doc).toMatchObject({ kind: "other", contentType: "text/html" });
  });

  it("scrubs the key, the client id and the parameters from errors and logs, even when the issuer echoes them", async () => {
    for (const naming of ["real", "described"] as const) {
      const [keyHeader, clientHeader] =
        naming === "real" ? ["x-apisetu-apikey", "x-apisetu-clientid"] : ["x-gateway-apikey", "x-gateway-clientid"];
      srv.script((q, res) =>
        json(res, 401, {
          error: "invalid_authentication",
          errorDescription: `Authentication failed for ${String(q.headers[keyHeader])} (client ${String(q.headers[clientHeader])}) asking about ${q.body}`,
        }),
      );
      const logger = captureLogger();
      const e = (await client({ logger, naming })
        .issue("hlipc", { certificateParameters: params })
        .catch((x: unknown) => x)) as ApiError;
      expect(e.status).toBe(401);
      expect(e.message).toContain("Authentication failed for REDACTED (client REDACTED)");
      const surfaces = [e.message, e.stack ?? "", inspect(e, { depth: 5 }), JSON.stringify(e), logger.lines.join("\n")].join("\n");
      for (const secret of [KEY, CLIENT, NAME, POLICY]) expect(surfaces, naming).not.toContain(secret);
      expect(logger.lines.some((l) => l.includes("newindia.hlipc POST") && l.includes("-> 401"))).toBe(true);
    }
  });

  it("scrubs the key and the client id from an error body that is not the spec's", async () => {
    srv.script((q, res) =>
      text(res, 502, `gateway saw ${String(q.headers["x-apisetu-clientid"])} / ${String(q.headers["x-apisetu-apikey"])}`, "text/plain"),
    );
    const logger = captureLogger();
    const e = (await client({ logger, retry: { ...FAST_RETRY, maxAttempts: 1 } })
      .issue("hlipc", { certificateParameters: params })
      .catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(502);
    expect(e.message).toContain("gateway saw REDACTED / REDACTED");
    const surfaces = [e.message, e.stack ?? "", inspect(e, { depth: 5 }), JSON.stringify(e), logger.lines.join("\n")].join("\n");
    for (const secret of [KEY, CLIENT]) expect(surfaces).not.toContain(secret);
  });

  it("reads content types and error bodies tolerantly", () => {
    expect(documentKind("application/pdf")).toBe("pdf");
    expect(documentKind("Application/PDF; charset=binary")).toBe("pdf");
    expect(documentKind("application/xml; charset=utf-8")).toBe("xml");
    expect(documentKind("text/xml")).toBe("xml");
    expect(documentKind("application/vnd.digilocker+xml")).toBe("xml");
    expect(documentKind("application/json")).toBe("other");
    expect(documentKind("")).toBe("other");
    expect(parseCertificateError('{"error":"x"}')).toEqual({ error: "x", errorDescription: "x" });
    expect(parseCertificateError('{"error":"x","errorDescription":null,"field":""}')).toEqual({ error: "x", errorDescription: "x" });
    expect(parseCertificateError('{"message":"x"}')).toBeUndefined();
    expect(parseCertificateError("not json")).toBeUndefined();
  });
});
