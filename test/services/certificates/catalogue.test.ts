import { describe, expect, it } from "vitest";
import { readSpec } from "../../../src/platform/schemas/swagger-schemas";
import { DOCTYPE_INFO, DOCTYPES, ISSUER_INFO, ISSUERS, parameterField } from "../../../src/services/certificates/catalogue";
import { ALL_KEY_HEADER_NAMES, keyHeaderNames } from "../../../src/services/certificates/header-names";
import { apisetuSettingsFromEnv, isRealApiSetu, requireApiSetuKeys } from "../../../src/services/certificates/settings";
import { CERTIFICATE_ERRORS } from "../../../src/services/certificates/types";

interface Operation {
  operationId: string;
  summary: string;
  requestBody: {
    content: {
      "application/json": {
        schema: {
          properties: {
            certificateParameters: { properties: Record<string, { description: string; type: string }>; required: string[] };
            format: { enum: string[] };
          };
          required: string[];
        };
      };
    };
  };
  security: Record<string, unknown[]>[];
}
interface Spec {
  servers: { url: string }[];
  info: { title: string };
  paths: Record<string, { post: Operation }>;
  components: {
    responses: Record<string, { content: { "application/json": { schema: { properties: Record<string, { enum: string[] }> } } } }>;
    securitySchemes: Record<string, { in: string; name: string }>;
  };
}

const specOf = (issuer: string) => readSpec(`apisetu/${issuer}/openapi.yaml`) as unknown as Spec;

describe("the catalogue is the four specs", () => {
  it.each(ISSUERS)("%s: base address, title and operations", (issuer) => {
    const spec = specOf(issuer);
    expect(spec.servers[0].url).toBe(`https://apisetu.gov.in/${issuer}/v3`);
    expect(ISSUER_INFO[issuer].title).toBe(spec.info.title);
    expect(Object.keys(spec.paths).sort()).toEqual(ISSUER_INFO[issuer].doctypes.map((d) => `/${d}/certificate`).sort());
    expect(spec.components.securitySchemes).toEqual({
      apiKey: { in: "header", name: "X-APISETU-APIKEY", type: "apiKey" },
      clientId: { in: "header", name: "X-APISETU-CLIENTID", type: "apiKey" },
    });
  });

  it("has the 12 operations, each with its spec's title, formats and parameters", () => {
    expect(DOCTYPES).toHaveLength(12);
    for (const doctype of DOCTYPES) {
      const info = DOCTYPE_INFO[doctype];
      const op = specOf(info.issuer).paths[`/${doctype}/certificate`].post;
      expect(op.operationId).toBe(doctype);
      expect(info.title).toBe(op.summary);
      const schema = op.requestBody.content["application/json"].schema;
      expect(schema.required).toEqual(["txnId", "format"]);
      expect(info.formats).toEqual(schema.properties.format.enum);
      const params = schema.properties.certificateParameters;
      expect(info.parameters.map((f) => f.name).sort()).toEqual(Object.keys(params.properties).sort());
      for (const f of info.parameters) {
        expect(f.description).toBe(params.properties[f.name].description);
        expect(params.properties[f.name].type).toBe("string");
        expect(f.required).toBe(params.required.includes(f.name));
        expect(parameterField(doctype, f.alias)).toBe(f);
        expect(parameterField(doctype, f.name)).toBe(f);
      }
      expect(op.security).toEqual([{ apiKey: [], clientId: [] }]);
    }
    expect(DOCTYPE_INFO.govid.formats).toEqual(["xml", "pdf"]);
    expect(DOCTYPES.filter((d) => d !== "govid").every((d) => DOCTYPE_INFO[d].formats.join() === "pdf")).toBe(true);
  });

  it("knows every error code and description the specs list", () => {
    const responses = specOf("newindia").components.responses;
    for (const [status, byCode] of Object.entries(CERTIFICATE_ERRORS)) {
      const schema = responses[`${status}Error`].content["application/json"].schema;
      expect(Object.keys(byCode)).toEqual(schema.properties.error.enum);
      expect(Object.values(byCode)).toEqual(schema.properties.errorDescription.enum);
    }
    // The four specs share their components word for word.
    for (const issuer of ISSUERS) expect(specOf(issuer).components).toEqual(specOf("newindia").components);
  });
});

describe("header names and settings", () => {
  it("sends the spec's names by default and the described ones on request", () => {
    expect(keyHeaderNames()).toEqual({ apiKey: "X-APISETU-APIKEY", clientId: "X-APISETU-CLIENTID" });
    expect(keyHeaderNames("described")).toEqual({ apiKey: "X-GATEWAY-APIKEY", clientId: "X-GATEWAY-CLIENTID" });
    expect(ALL_KEY_HEADER_NAMES).toHaveLength(2);
  });

  it("reads the endpoint and keys from the environment", () => {
    expect(apisetuSettingsFromEnv({})).toEqual({
      endpoint: "https://apisetu.gov.in",
      naming: "real",
      apiKey: undefined,
      clientId: undefined,
    });
    const s = apisetuSettingsFromEnv({
      STACKWARDEN_APISETU_ENDPOINT: "http://127.0.0.1:9/apisetu/",
      STACKWARDEN_APISETU_API_KEY: "k",
      STACKWARDEN_APISETU_CLIENT_ID: "c",
      STACKWARDEN_PROVIDER_NAMES: "described",
    });
    expect(s).toEqual({ endpoint: "http://127.0.0.1:9/apisetu", apiKey: "k", clientId: "c", naming: "described" });
    expect(() => apisetuSettingsFromEnv({ STACKWARDEN_APISETU_ENDPOINT: "ftp://x" })).toThrow(/STACKWARDEN_APISETU_ENDPOINT/);
    expect(() => requireApiSetuKeys(apisetuSettingsFromEnv({ STACKWARDEN_APISETU_CLIENT_ID: "c" }))).toThrow(
      /^STACKWARDEN_APISETU_API_KEY is not set/,
    );
    expect(() => requireApiSetuKeys(apisetuSettingsFromEnv({}))).toThrow(
      /STACKWARDEN_APISETU_API_KEY and STACKWARDEN_APISETU_CLIENT_ID are not set/,
    );
    expect(isRealApiSetu("https://apisetu.gov.in")).toBe(true);
    expect(isRealApiSetu("https://APISETU.gov.in/x")).toBe(true);
    expect(isRealApiSetu("http://127.0.0.1:4000/apisetu")).toBe(false);
  });
});
