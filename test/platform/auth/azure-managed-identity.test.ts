import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultCredential } from "../../../src/clients/default-credential";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// @azure/identity's ManagedIdentityCredential (the chain's managed identity when STACKWARDEN_IMDS_ENDPOINT
// is not set) against the emulator's IMDS: what it sends there, and that the emulator, like IMDS,
// accepts it. AZURE_POD_IDENTITY_AUTHORITY_HOST is the one way to point it elsewhere than
// 169.254.169.254; MSAL reads it from process.env and keeps the first source it made for the whole
// process, which is why this file has a process (a vitest fork) of its own and one IMDS host.
// With that variable set, @azure/identity assumes IMDS is there and does not probe it.

const SUB = "00000000-0000-0000-0000-000000000000";
const USER_CLIENT = "11111111-2222-3333-4444-555555555555";

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

let t: TestEmulator;
let recorder: Server;
const seen: Seen[] = [];

beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
imds:
  userIdentities:
    - { clientId: ${USER_CLIENT}, objectId: 99999999-8888-7777-6666-555555555555 }
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-mi
      resourceGroup: rg-mi
      location: East US
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
`),
  });
  // A recording hop in front of the emulator's IMDS, so the test sees the request as sent.
  recorder = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host") headers[k] = v;
    fetch(`${t.url}${req.url}`, { headers }).then(
      async (r) => {
        res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
        res.end(Buffer.from(await r.arrayBuffer()));
      },
      () => {
        res.writeHead(502);
        res.end();
      },
    );
  });
  await new Promise<void>((r) => recorder.listen(0, "127.0.0.1", r));
  process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});
afterAll(async () => {
  delete process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST;
  await new Promise((r) => recorder.close(r));
  await t.close();
});

describe("@azure/identity's managed identity against the emulator's IMDS", () => {
  it("sends IMDS's documented token request, gets a token ARM accepts, and is named as the credential that answered", async () => {
    const credential = defaultCredential({ AZURE_CLIENT_ID: USER_CLIENT });
    const token = await credential.getToken(ARM_SCOPE);
    expect(credential.answeredBy()).toEqual({ id: "ManagedIdentityCredential", label: "managed identity" });

    expect(seen).toHaveLength(1);
    const url = new URL(seen[0].url, "http://imds");
    // MSAL canonicalizes an endpoint read from AZURE_POD_IDENTITY_AUTHORITY_HOST (a trailing slash); IMDS and the emulator take both.
    expect(url.pathname).toBe("/metadata/identity/oauth2/token/");
    // api-version 2018-02-01, the v1 resource without "/.default" (and without a trailing slash), the user-assigned client_id.
    expect(Object.fromEntries(url.searchParams)).toEqual({
      "api-version": "2018-02-01",
      resource: "https://management.azure.com",
      client_id: USER_CLIENT,
    });
    expect(seen[0].headers.metadata).toBe("true");
    expect(seen[0].headers["x-forwarded-for"]).toBeUndefined();

    const claims = JSON.parse(Buffer.from(token!.token.split(".")[1], "base64url").toString("utf8")) as Record<string, string>;
    expect(claims).toMatchObject({ aud: "https://management.azure.com", appid: USER_CLIENT });
    const sql = new SqlClient({ endpoint: t.url, credential, retry: FAST_RETRY });
    const tde = await sql.getTransparentDataEncryption({
      subscriptionId: SUB,
      resourceGroup: "rg-mi",
      server: "sql-mi",
      database: "orders",
    });
    expect(tde.properties?.status).toBe("Enabled");
    // The chain's cache serves the ARM call: IMDS was asked once.
    expect(seen).toHaveLength(1);
  });

  it("an identity IMDS does not have: the chain's line says what IMDS answered, once, without retrying a 400", async () => {
    seen.length = 0;
    const credential = defaultCredential({ AZURE_TOKEN_CREDENTIALS: "prod", AZURE_CLIENT_ID: "ghost-identity" });
    const e = (await credential.getToken(ARM_SCOPE).catch((x: unknown) => x)) as Error;
    expect(e.message).toMatch(
      /; managed identity: ManagedIdentityCredential: Authentication failed\. Message invalid_request: .*Identity not found.*\. Sign in with az login/,
    );
    expect(e.message).not.toContain("\n");
    expect(seen).toHaveLength(1);
  });
});
