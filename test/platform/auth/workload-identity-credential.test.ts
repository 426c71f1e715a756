import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CredentialUnavailableError } from "../../../src/platform/auth/credential-errors";
import { defaultCredential } from "../../../src/clients/default-credential";
import { WorkloadIdentityCredential } from "../../../src/platform/auth/workload-identity-credential";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/**
 * Workload identity against a local server standing in for Microsoft Entra ID's token endpoint:
 * the request Entra ID documents (client credentials with a JWT client assertion), caching, a
 * rotated token file, refusals that name what to check and never the assertion.
 */
const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "11111111-2222-3333-4444-555555555555";
const ASSERTION = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6c3RhY2t3YXJkZW46c3RhY2t3YXJkZW4ifQ.c2ln";

let entra: ScriptedServer;
let dir: string;
let tokenFile: string;

beforeAll(async () => {
  entra = await startScriptedServer();
  dir = mkdtempSync(join(tmpdir(), "stackwarden-wi-"));
  tokenFile = join(dir, "azure-identity-token");
  writeFileSync(tokenFile, `${ASSERTION}\n`);
});
afterAll(async () => {
  await entra.close();
});

const FAST = { baseDelayMs: 1, maxDelayMs: 5, maxAttempts: 2 };

describe("WorkloadIdentityCredential", () => {
  it("exchanges the federated token for an access token with the documented form, and caches it", async () => {
    entra.script((_req, res) => json(res, 200, { token_type: "Bearer", expires_in: 3599, access_token: "arm-token-1" }));
    let now = 1_000_000;
    const cred = new WorkloadIdentityCredential({
      tenantId: TENANT,
      clientId: CLIENT,
      tokenFile,
      authorityHost: `${entra.url}/`,
      now: () => now,
    });
    const t = await cred.getToken("https://management.azure.com/.default");
    expect(t).toMatchObject({ token: "arm-token-1", expiresOnTimestamp: now + 3_599_000, tokenType: "Bearer" });
    expect(entra.seen).toHaveLength(1);
    const req = entra.seen[0];
    expect(req.method).toBe("POST");
    expect(req.url).toBe(`/${TENANT}/oauth2/v2.0/token`);
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(req.body))).toEqual({
      grant_type: "client_credentials",
      client_id: CLIENT,
      scope: "https://management.azure.com/.default",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: ASSERTION,
    });
    // A v1 resource is asked for as its v2 scope; the cached token serves it.
    now += 60_000;
    expect((await cred.getToken("https://management.azure.com/")).token).toBe("arm-token-1");
    expect(cred.fetches).toBe(1);
  });

  it("reads the token file again for each new token (Kubernetes rotates it)", async () => {
    let n = 0;
    entra.script((_req, res) => json(res, 200, { expires_in: "600", access_token: `t${++n}` }));
    let now = 0;
    const cred = new WorkloadIdentityCredential({
      tenantId: TENANT,
      clientId: CLIENT,
      tokenFile,
      authorityHost: entra.url,
      now: () => now,
    });
    await cred.getToken("https://management.azure.com/.default");
    writeFileSync(tokenFile, "rotated.assertion.sig");
    now += 301_000; // past the 5-minute refresh margin of a 10-minute token
    expect((await cred.getToken("https://management.azure.com/.default")).token).toBe("t2");
    expect(new URLSearchParams(entra.seen[1].body).get("client_assertion")).toBe("rotated.assertion.sig");
    writeFileSync(tokenFile, ASSERTION);
  });

  it("a refused federation says what to check, without the assertion", async () => {
    entra.script((_req, res) =>
      json(res, 400, {
        error: "invalid_request",
        error_description: "AADSTS70021: No matching federated identity record found for presented assertion.",
      }),
    );
    const cred = new WorkloadIdentityCredential({ tenantId: TENANT, clientId: CLIENT, tokenFile, authorityHost: entra.url, retry: FAST });
    const e = await cred.getToken("https://management.azure.com/.default").catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CredentialUnavailableError);
    const message = (e as Error).message;
    expect(message).toContain("AADSTS70021");
    expect(message).toContain("subject: system:serviceaccount:<namespace>:<service account>");
    expect(message).not.toContain(ASSERTION);
    expect(message).not.toContain("\n");
  });

  it("a missing token file is reported with the pod label to check; no request is sent", async () => {
    entra.script((_req, res) => json(res, 500, {}));
    const cred = new WorkloadIdentityCredential({
      tenantId: TENANT,
      clientId: CLIENT,
      tokenFile: join(dir, "missing"),
      authorityHost: entra.url,
    });
    await expect(cred.getToken("https://management.azure.com/.default")).rejects.toThrow(
      `workload identity: cannot read the federated token file ${join(dir, "missing")} (ENOENT); is the pod labelled azure.workload.identity/use: "true"?`,
    );
    expect(entra.seen).toHaveLength(0);
  });
});

describe("the default credential", () => {
  it("uses workload identity when AZURE_FEDERATED_TOKEN_FILE is set, AZURE_ACCESS_TOKEN before it", async () => {
    entra.script((_req, res) => json(res, 200, { expires_in: 3600, access_token: "from-entra" }));
    const env = {
      AZURE_FEDERATED_TOKEN_FILE: tokenFile,
      AZURE_CLIENT_ID: CLIENT,
      AZURE_TENANT_ID: TENANT,
      AZURE_AUTHORITY_HOST: entra.url,
    };
    expect((await defaultCredential(env).getToken("https://management.azure.com/.default"))?.token).toBe("from-entra");
    expect(
      (await defaultCredential({ ...env, AZURE_ACCESS_TOKEN: "static" }).getToken("https://management.azure.com/.default"))?.token,
    ).toBe("static");
  });

  it("a token file without client and tenant is a configuration error naming both", () => {
    expect(() => defaultCredential({ AZURE_FEDERATED_TOKEN_FILE: tokenFile })).toThrow(
      /^AZURE_FEDERATED_TOKEN_FILE is set but AZURE_CLIENT_ID and AZURE_TENANT_ID are not: workload identity needs all three/,
    );
  });
});
