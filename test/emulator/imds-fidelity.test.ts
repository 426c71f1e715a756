import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMDS_CATEGORY_SINCE, IMDS_DOCUMENTED_VERSIONS, imdsVersionsFor } from "../../src/services/imds/api-versions";
import { seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";

/**
 * IMDS as the widely used clients call it. Each request below is built exactly as that client's
 * source builds it (path, query parameters in its order and encoding, headers), then the token is
 * used against the emulator's Resource Manager, which must accept its audience.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const UAMI = {
  clientId: "5e4c1d2b-8a7f-4d3e-9b6c-1a2b3c4d5e6f",
  objectId: "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
  resourceId: `/subscriptions/${SUB}/resourceGroups/rg-ci/providers/Microsoft.ManagedIdentity/userAssignedIdentities/stackwarden-ci`,
};

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
imds:
  userIdentities:
    - { clientId: ${UAMI.clientId}, objectId: ${UAMI.objectId}, resourceId: ${UAMI.resourceId} }
sql:
  subscriptionId: ${SUB}
  servers:
    - name: s1
      resourceGroup: rg
      databases: [{ name: orders, transparentDataEncryption: Enabled }]
`),
  });
});
afterAll(() => t.close());

interface Raw {
  status: number;
  body: Record<string, unknown>;
}

/** One request with exactly these headers (node:http adds only Host and Connection). */
function raw(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, t.url);
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "GET", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** Resource Manager's verdict on a token: 200, or the error code of its 401. */
async function armAccepts(token: string): Promise<string> {
  const r = await fetch(
    `${t.url}/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s1/databases/orders/transparentDataEncryption/current?api-version=2014-04-01`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  return r.status === 200 ? "200" : ((await r.json()) as { error: { code: string } }).error.code;
}

function claimsOf(token: string): { aud: string; oid: string; appid: string } {
  return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()) as { aud: string; oid: string; appid: string };
}

/** What every client reads from a token response: strings, times in Unix seconds. */
function expectTokenResponse(r: Raw, resource: string): string {
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body).toMatchObject({ token_type: "Bearer", resource });
  for (const k of ["access_token", "expires_in", "expires_on", "not_before"]) expect(typeof r.body[k], k).toBe("string");
  expect(Number(r.body.expires_on)).toBeGreaterThan(Date.now() / 1000);
  return r.body.access_token as string;
}

describe("the documented version list", () => {
  it("GET /metadata/versions answers IMDS's shape: every documented version, oldest first", async () => {
    const r = await raw("/metadata/versions", { Metadata: "true" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ apiVersions: [...IMDS_DOCUMENTED_VERSIONS] });
    expect(IMDS_DOCUMENTED_VERSIONS[0]).toBe("2017-03-01");
    expect(IMDS_DOCUMENTED_VERSIONS).toContain("2018-02-01");
    expect([...IMDS_DOCUMENTED_VERSIONS].sort()).toEqual([...IMDS_DOCUMENTED_VERSIONS]);
    // Unversioned, but still IMDS: the Metadata header is required.
    expect((await raw("/metadata/versions", {})).status).toBe(400);
  });

  it("each category accepts every documented version from the one it was introduced in, and none before", async () => {
    const paths = {
      instance: "/metadata/instance",
      attested: "/metadata/attested/document",
      identity: "/metadata/identity/oauth2/token?resource=https%3A%2F%2Fmanagement.azure.com%2F",
    } as const;
    for (const [category, path] of Object.entries(paths) as [keyof typeof paths, string][]) {
      const accepted = imdsVersionsFor(category);
      expect(accepted[0]).toBe(IMDS_CATEGORY_SINCE[category]);
      for (const v of IMDS_DOCUMENTED_VERSIONS) {
        const r = await raw(`${path}${path.includes("?") ? "&" : "?"}api-version=${v}`, { Metadata: "true" });
        expect(r.status, `${category} @${v}`).toBe(accepted.includes(v) ? 200 : 400);
      }
    }
    expect(imdsVersionsFor("identity")).toContain("2018-02-01");
    expect(imdsVersionsFor("identity")).not.toContain("2017-12-01");
    expect(imdsVersionsFor("attested")[0]).toBe("2018-10-01");
  });

  it("the token path answers with and without a trailing slash", async () => {
    for (const path of ["/metadata/identity/oauth2/token", "/metadata/identity/oauth2/token/"]) {
      const r = await raw(`${path}?api-version=2018-02-01&resource=https://management.azure.com/`, { Metadata: "true" });
      expectTokenResponse(r, "https://management.azure.com/");
    }
  });
});

describe("real clients' requests, as their sources build them", () => {
  it("azure-identity for JavaScript (imdsMsi.ts): the probe without query or Metadata gets a prompt 400; the token request works", async () => {
    // isAvailable: skipQuery + skipMetadataHeader, any answer proves IMDS is there.
    const probe = await raw("/metadata/identity/oauth2/token", { Accept: "application/json" });
    expect(probe.status).toBe(400);
    // getToken: URLSearchParams({ resource, "api-version": "2018-02-01", client_id? }), headers Accept + Metadata.
    const q = new URLSearchParams({ resource: "https://management.azure.com/", "api-version": "2018-02-01" });
    const token = expectTokenResponse(
      await raw(`/metadata/identity/oauth2/token?${q}`, { Accept: "application/json", Metadata: "true" }),
      "https://management.azure.com/",
    );
    expect(await armAccepts(token)).toBe("200");
    const qUser = new URLSearchParams({ resource: "https://management.azure.com/", "api-version": "2018-02-01", client_id: UAMI.clientId });
    const user = expectTokenResponse(
      await raw(`/metadata/identity/oauth2/token?${qUser}`, { Accept: "application/json", Metadata: "true" }),
      "https://management.azure.com/",
    );
    expect(claimsOf(user).appid).toBe(UAMI.clientId);
  });

  it("azure-identity for Python (imds.py): probe without Metadata gets a 400, then resource without the slash, object_id and msi_res_id", async () => {
    // get_request: format_parameters({"api-version": "2018-02-01", "resource": scope, **identity_config});
    // the scope has lost its "/.default", so the resource has no trailing slash.
    const base = "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fmanagement.azure.com";
    expect((await raw(base, {})).status).toBe(400);
    const system = expectTokenResponse(await raw(base, { Metadata: "true" }), "https://management.azure.com");
    expect(claimsOf(system).aud).toBe("https://management.azure.com");
    expect(await armAccepts(system)).toBe("200");
    const byObject = expectTokenResponse(
      await raw(`${base}&object_id=${UAMI.objectId}`, { Metadata: "true" }),
      "https://management.azure.com",
    );
    expect(claimsOf(byObject).oid).toBe(UAMI.objectId);
    const byResource = expectTokenResponse(
      await raw(`${base}&msi_res_id=${encodeURIComponent(UAMI.resourceId)}`, { Metadata: "true" }),
      "https://management.azure.com",
    );
    expect(claimsOf(byResource).appid).toBe(UAMI.clientId);
    // A 400 to the token request is how the credential learns the identity is not assigned here.
    const missing = await raw(`${base}&client_id=00000000-0000-0000-0000-0000000000ff`, { Metadata: "true" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: "invalid_request" });
  });

  it("azure-sdk-for-go azidentity (createIMDSAuthRequest): url.Values.Encode order, msi_res_id, x-client-* headers", async () => {
    // Keys sorted by Encode; resource is the scope without "/.default".
    const q = new URLSearchParams([
      ["api-version", "2018-02-01"],
      ["msi_res_id", UAMI.resourceId],
      ["resource", "https://management.azure.com"],
    ]);
    const r = await raw(`/metadata/identity/oauth2/token?${q}`, {
      Metadata: "true",
      "x-client-SKU": "MSAL.Go",
      "x-client-Ver": "1.4.2",
      "x-ms-client-request-id": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
    });
    const token = expectTokenResponse(r, "https://management.azure.com");
    expect(claimsOf(token).oid).toBe(UAMI.objectId);
    expect(await armAccepts(token)).toBe("200");
  });

  it("MSAL for Node (ManagedIdentitySources/Imds.ts): GET with a form content type, api-version 2018-02-01, then resource", async () => {
    const q = new URLSearchParams({ "api-version": "2018-02-01", resource: "https://management.azure.com/" });
    const r = await raw(`/metadata/identity/oauth2/token?${q}`, {
      Metadata: "true",
      "Content-Type": "application/x-www-form-urlencoded;charset=utf-8",
    });
    expect(await armAccepts(expectTokenResponse(r, "https://management.azure.com/"))).toBe("200");
    const user = new URLSearchParams({ "api-version": "2018-02-01", resource: "https://management.azure.com/", client_id: UAMI.clientId });
    expectTokenResponse(await raw(`/metadata/identity/oauth2/token?${user}`, { Metadata: "true" }), "https://management.azure.com/");
  });

  it("a token asked for another resource (a key vault) is issued, and Resource Manager refuses it", async () => {
    const r = await raw("/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fvault.azure.net", {
      Metadata: "true",
    });
    expect(await armAccepts(expectTokenResponse(r, "https://vault.azure.net"))).toBe("InvalidAuthenticationTokenAudience");
  });
});
