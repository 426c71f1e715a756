import { randomUUID } from "node:crypto";
import Ajv from "ajv";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { certificateContent } from "../../src/emulator/services/certificates/certificate-content";
import { renderCertificatePdf } from "../../src/emulator/services/certificates/pdf-document";
import { renderCertificateXml } from "../../src/emulator/services/certificates/xml-document";
import { certificatesInitialState } from "../../src/emulator/services/certificates/local";
import { readSpec } from "../../src/platform/schemas/swagger-schemas";
import { seedFromYaml, type TestEmulator } from "../helpers/emulator";
import { devRecords, startCertificateEmulator } from "../services/certificates/certificates-kit";

/**
 * The local issuers answer as the specs say: 401 before anything else, 400 in the spec's error
 * form naming the field, 404 for no record or no such operation, and injected faults as the
 * spec's 5xx bodies. Every error body is validated against the spec's response schema.
 */
const spec = readSpec("apisetu/newindia/openapi.yaml") as {
  components: { responses: Record<string, { content: { "application/json": { schema: object } } }> };
};
const ajv = new Ajv({ strict: false, allErrors: true });
function expectSpecError(status: number, body: unknown): void {
  const schema = spec.components.responses[`${status}Error`].content["application/json"].schema;
  const validate = ajv.compile(schema);
  expect(validate(body), `${status} ${JSON.stringify(body)}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

const hl = devRecords().find((r) => r.doctype === "hlipc")!;
const KEYS = { "x-apisetu-apikey": "any-key-1234", "x-apisetu-clientid": "any-client" };

let t: TestEmulator;
beforeAll(async () => {
  t = await startCertificateEmulator();
});
afterAll(async () => {
  await t?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = KEYS, raw?: string) {
  const res = await request(`${t.url}/apisetu${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: raw ?? JSON.stringify(body),
  });
  const buf = Buffer.from(await res.body.arrayBuffer());
  const type = String(res.headers["content-type"] ?? "");
  return {
    status: res.statusCode,
    type,
    buf,
    json: type.includes("json") ? (JSON.parse(buf.toString("utf8")) as Record<string, unknown>) : undefined,
  };
}

const good = () => ({ txnId: randomUUID(), format: "pdf", certificateParameters: { ...hl.parameters } });

describe("401: the key and client id", () => {
  it("refuses a request without a key or without a client id", async () => {
    for (const headers of [
      {},
      { "x-apisetu-apikey": "k-1234" },
      { "x-apisetu-clientid": "c" },
      { "x-apisetu-apikey": " ", "x-apisetu-clientid": "c" },
    ] as Record<string, string>[]) {
      const r = await post("/newindia/v3/hlipc/certificate", good(), headers);
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: "invalid_authentication", errorDescription: "Authentication failed" });
      expectSpecError(401, r.json);
    }
  });

  it("comes before validation: a bad body without a key is a 401", async () => {
    const r = await post("/newindia/v3/hlipc/certificate", { nonsense: true }, {});
    expect(r.status).toBe(401);
  });

  it("accepts both spellings of the headers", async () => {
    const r = await post("/newindia/v3/hlipc/certificate", good(), { "x-gateway-apikey": "gk-1234", "x-gateway-clientid": "gc" });
    expect(r.status).toBe(200);
    expect(r.type).toBe("application/pdf");
  });

  it("with a seed that names the keys, refuses any other key (authentication) or client id (authorization)", async () => {
    const seed = seedFromYaml(`
certificates:
  accept: { apiKeys: [right-key-1234], clientIds: [right-client] }
  records:
    - { doctype: trcer, issueDate: 2020-01-01, parameters: { ADMN_NO: "1", FullName: Test Person } }
`);
    const own = await startCertificateEmulator(seed);
    try {
      const call = async (headers: Record<string, string>) => {
        const res = await request(`${own.url}/apisetu/lawcollegeandaman/v3/trcer/certificate`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: JSON.stringify({ txnId: randomUUID(), format: "pdf", certificateParameters: { ADMN_NO: "1", FullName: "Test Person" } }),
        });
        const text = await res.body.text();
        return { status: res.statusCode, body: res.statusCode === 200 ? undefined : JSON.parse(text) };
      };
      expect(await call({ "x-apisetu-apikey": "wrong-key-1234", "x-apisetu-clientid": "right-client" })).toEqual({
        status: 401,
        body: { error: "invalid_authentication", errorDescription: "Authentication failed" },
      });
      expect(await call({ "x-apisetu-apikey": "right-key-1234", "x-apisetu-clientid": "other-client" })).toEqual({
        status: 401,
        body: { error: "invalid_authorization", errorDescription: "You are not authorized to use this API" },
      });
      expect((await call({ "x-apisetu-apikey": "right-key-1234", "x-apisetu-clientid": "right-client" })).status).toBe(200);
      expect((await call({ "x-gateway-apikey": "right-key-1234", "x-gateway-clientid": "right-client" })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});

describe("400: the request is checked against the spec's request schema", () => {
  const cases: [string, (b: ReturnType<typeof good>) => unknown, string, string][] = [
    ["no txnId", ({ txnId: _t, ...b }) => b, "missing_parameter", "txnId"],
    ["a txnId that is not a UUID", (b) => ({ ...b, txnId: "12345" }), "invalid_txnid", "txnId"],
    ["no format", ({ format: _f, ...b }) => b, "missing_parameter", "format"],
    ["xml for a doctype that offers pdf only", (b) => ({ ...b, format: "xml" }), "invalid_format", "format"],
    ["a format no spec knows", (b) => ({ ...b, format: "json" }), "invalid_format", "format"],
    ["no certificateParameters", ({ certificateParameters: _c, ...b }) => b, "missing_parameter", "certificateParameters"],
    [
      "a missing parameter",
      (b) => ({ ...b, certificateParameters: { ...b.certificateParameters, UDF2: undefined } }),
      "missing_parameter",
      "certificateParameters.UDF2",
    ],
    [
      "a parameter of the wrong type",
      (b) => ({ ...b, certificateParameters: { ...b.certificateParameters, UDF1: 99001002003 } }),
      "invalid_parameter",
      "certificateParameters.UDF1",
    ],
    [
      "a consentArtifact whose consentId is not a UUID",
      (b) => ({ ...b, consentArtifact: consent({ consentId: "not-a-uuid" }) }),
      "invalid_consentid",
      "consentArtifact.consent.consentId",
    ],
    [
      "a consentArtifact without its signature",
      (b) => ({ ...b, consentArtifact: { consent: consent().consent } }),
      "missing_parameter",
      "consentArtifact.signature",
    ],
  ];
  it.each(cases)("%s", async (_name, mutate, code, field) => {
    const r = await post("/newindia/v3/hlipc/certificate", mutate(good()));
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: code, field });
    expectSpecError(400, r.json);
  });

  it("a body that is not JSON, or none", async () => {
    const bad = await post("/newindia/v3/hlipc/certificate", undefined, KEYS, "{ not json");
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: "invalid_parameter", errorDescription: "Bad request", field: "body" });
    const none = await post("/newindia/v3/hlipc/certificate", undefined, KEYS, "");
    expect(none.status).toBe(400);
    expect(none.json).toMatchObject({ error: "missing_parameter", field: "body" });
    const array = await post("/newindia/v3/hlipc/certificate", [good()]);
    expect(array.json).toMatchObject({ error: "invalid_parameter", field: "body" });
  });

  it("never quotes a value back", async () => {
    const r = await post("/newindia/v3/hlipc/certificate", { ...good(), txnId: "Planted-Txn-Value" });
    expect(r.buf.toString("utf8")).not.toContain("Planted");
  });

  it("a valid consentArtifact is accepted", async () => {
    const r = await post("/newindia/v3/hlipc/certificate", { ...good(), consentArtifact: consent() });
    expect(r.status).toBe(200);
  });
});

describe("404", () => {
  it("no record matches: record_not_found", async () => {
    const r = await post("/newindia/v3/hlipc/certificate", { ...good(), certificateParameters: { ...hl.parameters, UDF2: "ZZ00000000" } });
    expect(r.status).toBe(404);
    expect(r.json).toEqual({ error: "record_not_found", errorDescription: "No record found" });
    expectSpecError(404, r.json);
  });

  it("a record of another doctype with the same parameters is not found", async () => {
    const r = await post("/newindia/v3/cripc/certificate", good());
    expect(r.status).toBe(404);
  });

  it("no such operation: url_not_found, for unknown doctypes, a doctype under another issuer and other methods", async () => {
    for (const path of ["/newindia/v3/nosuch/certificate", "/mbose/v3/hlipc/certificate", "/newindia/v2/hlipc/certificate"]) {
      const r = await post(path, good());
      expect(r.status).toBe(404);
      expect(r.json).toEqual({ error: "url_not_found", errorDescription: "Your API url or path is incorrect" });
    }
    const get = await request(`${t.url}/apisetu/newindia/v3/hlipc/certificate`, { headers: KEYS });
    expect(get.statusCode).toBe(404);
    expect(await get.body.json()).toEqual({ error: "url_not_found", errorDescription: "Your API url or path is incorrect" });
  });
});

describe("fault injection answers in the spec's error form", () => {
  it.each([500, 502, 503, 504])("%i", async (status) => {
    t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 0, rules: [{ match: "/apisetu/newindia", status, count: 1 }] });
    try {
      const r = await post("/newindia/v3/hlipc/certificate", good());
      expect(r.status).toBe(status);
      expectSpecError(status, r.json);
      expect(await post("/newindia/v3/hlipc/certificate", good())).toMatchObject({ status: 200 });
    } finally {
      t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
    }
  });

  it("a 429 carries Retry-After and a body of the same shape", async () => {
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 0,
      rules: [{ match: "/apisetu/", status: 429, count: 1, retryAfterMs: 2000 }],
    });
    try {
      const res = await request(`${t.url}/apisetu/mbose/v3/sscer/certificate`, { method: "POST", headers: KEYS, body: "{}" });
      expect(res.statusCode).toBe(429);
      expect(res.headers["retry-after"]).toBe("2");
      expect(await res.body.json()).toMatchObject({ error: "too_many_requests" });
    } finally {
      t.emu.faults.configure({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [] });
    }
  });
});

describe("documents and records", () => {
  it("renders the same PDF bytes and XML for a record every time, from scratch", async () => {
    const content = certificateContent(hl);
    const [a, b] = [await renderCertificatePdf(content), await renderCertificatePdf(certificateContent(structuredClone(hl)))];
    expect(a.equals(b)).toBe(true);
    const govid = devRecords().find((r) => r.doctype === "govid")!;
    expect(renderCertificateXml(certificateContent(govid))).toBe(renderCertificateXml(certificateContent(structuredClone(govid))));
  });

  it("the example estate has records for all 12 doctypes", () => {
    expect(new Set(devRecords().map((r) => r.doctype)).size).toBe(12);
  });

  it("refuses a seed whose records cannot be told apart, and a record without a doctype's required parameter", () => {
    expect(() =>
      certificatesInitialState({
        records: [
          { doctype: "trcer", issueDate: "2020-01-01", parameters: { ADMN_NO: "1", FullName: "A  B" } },
          { doctype: "trcer", issueDate: "2021-01-01", parameters: { ADMN_NO: "1", FullName: "a b" } },
        ],
      }),
    ).toThrow(/certificates\.records\[1\]: a trcer record with the same parameters is already certificates\.records\[0\]/);
    expect(() =>
      seedFromYaml(
        `certificates:\n  records:\n    - { doctype: hlipc, issueDate: 2020-01-01, parameters: { FullName: X, UDF1: "1", UDF2: "2" } }\n`,
      ),
    ).toThrow(/inline-seed\.yaml:3:\d+: certificates\.records\[0\]\.parameters: missing required key "UDF3"/);
    expect(() =>
      seedFromYaml(
        `certificates:\n  records:\n    - { doctype: trcer, issueDate: 2020-01-01, parameters: { FullName: X, ADMN_NO: "1", UDF1: "x" } }\n`,
      ),
    ).toThrow(/certificates\.records\[0\]\.parameters\.UDF1: unknown key/);
  });
});

function consent(over: Partial<{ consentId: string }> = {}) {
  return {
    consent: {
      consentId: over.consentId ?? randomUUID(),
      timestamp: "2024-06-15T10:00:00.000Z",
      dataConsumer: { id: "consumer-1" },
      dataProvider: { id: "newindia" },
      purpose: { description: "post-deploy probe" },
      user: { idType: "MOBILE", idNumber: "0000000000", mobile: "0000000000", email: "nobody@example.invalid" },
      data: { id: "hlipc" },
      permission: {
        access: "VIEW",
        dateRange: { from: "2024-06-15T10:00:00.000Z", to: "2024-06-16T10:00:00.000Z" },
        frequency: { unit: "DAY", value: 1, repeats: 1 },
      },
    },
    signature: { signature: "c2lnbmF0dXJl" },
  };
}
