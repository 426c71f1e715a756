import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { responseValidator } from "../../src/platform/schemas/swagger-schemas";
import { IMDS_SPEC_VERSIONS } from "../../src/services/imds/types";
import { PROJECT_ROOT } from "../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * Every IMDS response the emulator sends, for each operation and each api-version published in
 * specs/imds, validates against that version's schema: 200s against the operation's response,
 * errors against its `default` response (IdentityErrorResponse or ErrorResponse).
 */
const SPEC_VERSIONS = readdirSync(join(PROJECT_ROOT, "specs", "imds"))
  .filter((d) => statSync(join(PROJECT_ROOT, "specs", "imds", d)).isDirectory())
  .sort();
const spec = (v: string) => `imds/${v}/imds.json`;

const OPS = {
  Instances_GetMetadata: { path: "/metadata/instance", query: "", identity: false },
  Attested_GetDocument: { path: "/metadata/attested/document", query: "&nonce=abc123", identity: false },
  Identity_GetInfo: { path: "/metadata/identity/info", query: "", identity: true },
  Identity_GetToken: { path: "/metadata/identity/oauth2/token", query: "&resource=https%3A%2F%2Fmanagement.azure.com%2F", identity: true },
} as const;
type Op = keyof typeof OPS;

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(async () => {
  await t.close();
});

async function get(
  path: string,
  headers: Record<string, string> = { Metadata: "true" },
): Promise<{ status: number; body: unknown; contentType: string | null }> {
  const res = await fetch(t.url + path, { headers });
  return { status: res.status, body: await res.json(), contentType: res.headers.get("content-type") };
}

function expectValid(check: { valid: boolean; errors: string[] }, what: string): void {
  expect(check.errors, what).toEqual([]);
  expect(check.valid, what).toBe(true);
}

describe("IMDS responses validate against the published schemas", () => {
  it("the spec versions the client knows are exactly the folders of specs/imds", () => {
    expect(SPEC_VERSIONS.length).toBeGreaterThanOrEqual(10);
    expect([...IMDS_SPEC_VERSIONS].sort()).toEqual(SPEC_VERSIONS);
  });

  it("the validators are not vacuous: wrong shapes are rejected", () => {
    expect(responseValidator(spec("2020-10-01"), "Instances_GetMetadata")({ compute: { name: 5 } }).valid).toBe(false);
    expect(responseValidator(spec("2020-10-01"), "Identity_GetToken")({ access_token: 1 }).valid).toBe(false);
    expect(responseValidator(spec("2020-10-01"), "Identity_GetToken", "default")({ error: "not_a_known_code" }).valid).toBe(false);
    expect(responseValidator(spec("2018-10-01"), "Instances_GetMetadata", "default")({ error: { code: "x" } }).valid).toBe(false);
  });

  for (const version of SPEC_VERSIONS) {
    describe(`api-version ${version}`, () => {
      for (const op of Object.keys(OPS) as Op[]) {
        it(`${op}: 200 and its errors`, async () => {
          const { path, query, identity } = OPS[op];
          const ok = await get(`${path}?api-version=${version}${query}`);
          expect(ok.status).toBe(200);
          expect(ok.contentType).toMatch(/^application\/json/);
          expectValid(responseValidator(spec(version), op)(ok.body), `${op} 200 @${version}`);

          const errorSchema = responseValidator(spec(version), op, "default");
          const errors = [
            await get(`${path}?api-version=${version}${query}`, {}), // no Metadata header
            await get(`${path}?api-version=${version}${query}`, { Metadata: "true", "X-Forwarded-For": "10.1.2.3" }),
            await get(`${path}?api-version=1999-01-01${query}`),
            await get(`${path}?${query.slice(1)}`),
          ];
          if (op === "Identity_GetToken") {
            errors.push(await get(`${path}?api-version=${version}`)); // no resource
            errors.push(await get(`${path}?api-version=${version}${query}&client_id=nobody`));
          }
          if (op === "Attested_GetDocument") errors.push(await get(`${path}?api-version=${version}&nonce=not-alphanumeric!`));
          for (const e of errors) {
            expect(e.status).toBe(400);
            expectValid(errorSchema(e.body), `${op} error ${JSON.stringify(e.body)} @${version}`);
            if (identity) expect(Object.keys(e.body as object).sort()).toEqual(["error", "error_description"]);
            else expect(typeof (e.body as { error: unknown }).error).toBe("string");
          }
        });
      }
    });
  }

  it("injected faults on IMDS paths use the IMDS error shapes", async () => {
    await fetch(`${t.url}/_emulator/faults`, {
      method: "PUT",
      body: JSON.stringify({ rules: [{ match: "/metadata", status: 429, count: 4, retryAfterMs: 1500 }] }),
    });
    try {
      for (const op of Object.keys(OPS) as Op[]) {
        const res = await fetch(`${t.url}${OPS[op].path}?api-version=2020-10-01${OPS[op].query}`, { headers: { Metadata: "true" } });
        expect(res.status).toBe(429);
        expect(res.headers.get("retry-after")).toBe("2");
        expect(res.headers.get("retry-after-ms")).toBe("1500");
        expectValid(responseValidator(spec("2020-10-01"), op, "default")(await res.json()), `${op} fault`);
      }
    } finally {
      await fetch(`${t.url}/_emulator/faults`, { method: "PUT", body: JSON.stringify({ rules: [] }) });
    }
  });
});

describe("IMDS front door", () => {
  it("requires the Metadata header, and it must say true", async () => {
    for (const headers of [{}, { Metadata: "false" }, { Metadata: "yes" }] as Record<string, string>[]) {
      const r = await get("/metadata/instance?api-version=2020-10-01", headers);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: "Bad request. Required metadata header not specified" });
    }
    const id = await get("/metadata/identity/oauth2/token?api-version=2020-10-01&resource=x", {});
    expect(id.status).toBe(400);
    expect(id.body).toEqual({ error: "invalid_request", error_description: "Bad request. Required metadata header not specified" });
    expect((await get("/metadata/instance?api-version=2020-10-01", { Metadata: "TRUE" })).status).toBe(200);
  });

  it("refuses proxied requests (X-Forwarded-For), even with the Metadata header", async () => {
    const r = await get("/metadata/instance?api-version=2020-10-01", { Metadata: "true", "X-Forwarded-For": "203.0.113.9" });
    expect(r.status).toBe(400);
    expect((r.body as { error: string }).error).toMatch(/X-Forwarded-For/);
    const id = await get("/metadata/identity/info?api-version=2020-10-01", { Metadata: "true", "X-Forwarded-For": "203.0.113.9" });
    expect(id.status).toBe(400);
    expect((id.body as { error: string }).error).toBe("bad_request");
  });

  it("requires a known api-version and lists the newest ones", async () => {
    const missing = await get("/metadata/instance");
    expect(missing.status).toBe(400);
    // IMDS's documented answer, word for word.
    expect(missing.body).toEqual({
      error: "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds",
      "newest-versions": ["2025-04-07", "2024-07-17", "2024-03-15"],
    });
    const unknown = await get("/metadata/instance?api-version=2017-01-01");
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual(missing.body);
    const idMissing = await get("/metadata/identity/info");
    expect(idMissing.body).toEqual({
      error: "bad_request",
      error_description:
        "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds",
    });
  });
});
