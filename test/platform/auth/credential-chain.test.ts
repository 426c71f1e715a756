import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultCredential } from "../../../src/clients/default-credential";
import { CredentialChain, type ChainLink } from "../../../src/platform/auth/credential-chain";
import { credentialAnswerOf } from "../../../src/platform/auth/credential-answer";
import { CredentialUnavailableError } from "../../../src/platform/auth/credential-errors";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { SettingsError } from "../../../src/platform/settings/endpoints";
import { ApiError } from "../../../src/platform/http";
import { silentLogger } from "../../../src/platform/http/logger";
import { HttpTransport } from "../../../src/platform/http/transport";
import { ImdsManagedIdentityCredential } from "../../../src/services/imds/imds-credential";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// The chain stackwarden authenticates with (src/clients/default-credential.ts), against the
// emulator's IMDS: its order, the AZURE_ACCESS_TOKEN override, AZURE_TOKEN_CREDENTIALS, and the one
// line it fails with. The Azure CLI link is driven through a stand-in `az` in azure-cli-credential.test.ts.

const TOKEN_ROUTE = "GET /metadata/identity/oauth2/token";
const USER_CLIENT = "11111111-2222-3333-4444-555555555555";
const TENANT = "0b0b0b0b-1111-2222-3333-444444444444";

/** An unsigned JWT-shaped token with the given claims. */
function jwt(claims: Record<string, unknown>): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b({ alg: "none", typ: "JWT" })}.${b(claims)}.c2lnbmF0dXJl`;
}
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;
function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString("utf8")) as Record<string, unknown>;
}
async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    () => {
      throw new Error("expected a failure");
    },
    (e: unknown) => e as Error,
  );
}

let t: TestEmulator;
let tokenFile: string;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
imds:
  tenantId: ${TENANT}
  userIdentities:
    - { clientId: ${USER_CLIENT}, objectId: 99999999-8888-7777-6666-555555555555 }
`),
  });
  tokenFile = join(mkdtempSync(join(tmpdir(), "stackwarden-chain-")), "azure-identity-token");
  writeFileSync(tokenFile, "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6eDp5In0.c2ln\n");
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  for (const k of Object.keys(t.emu.stats.byRoute)) delete t.emu.stats.byRoute[k];
});
/** Whether Node has loaded @azure/identity (stackwarden requires it lazily; this file imports nothing of it at the top). */
const azureIdentityLoaded = () => Object.keys(require.cache).some((k) => k.includes("@azure/identity"));
const imdsTokens = () => t.emu.stats.byRoute[TOKEN_ROUTE] ?? 0;

describe("the chain's order", () => {
  it("on the emulator, the managed identity answers after the two links the environment does not configure, without loading @azure/identity", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    expect((cred as CredentialChain).links.map((l) => l.id)).toEqual([
      "EnvironmentCredential",
      "WorkloadIdentityCredential",
      "ManagedIdentityCredential",
      "AzureCliCredential",
      "AzureDeveloperCliCredential",
    ]);
    expect(cred.answeredBy()).toBeUndefined();
    const token = await cred.getToken(ARM_SCOPE);
    expect(t.emu.tokens.verify(token!.token, t.emu.now()).ok).toBe(true);
    expect(cred.answeredBy()).toEqual({ id: "ManagedIdentityCredential", label: `managed identity via IMDS at ${t.imdsEndpoint}` });
    expect(credentialAnswerOf(cred)).toEqual(cred.answeredBy());
    // The links before it were judged from the environment alone: @azure/identity (~220 ms to load) was not needed.
    expect(azureIdentityLoaded()).toBe(false);
    // It loads when a link of its is reached (the Azure Developer CLI's: not installed here, so it fails at once).
    const azd = defaultCredential({ AZURE_TOKEN_CREDENTIALS: "AzureDeveloperCliCredential" });
    expect((await failure(azd.getToken(ARM_SCOPE))).message).toMatch(/tried in order: Azure Developer CLI: /);
    expect(azureIdentityLoaded()).toBe(true);
  });

  it("caches the token: the chain is walked once, and IMDS asked once", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    const [a, b] = await Promise.all([cred.getToken(ARM_SCOPE), cred.getToken(ARM_SCOPE)]);
    expect((await cred.getToken(ARM_SCOPE))!.token).toBe(a!.token);
    expect(b!.token).toBe(a!.token);
    expect(imdsTokens()).toBe(1);
  });

  it("AZURE_CLIENT_ID selects the user-assigned identity", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_CLIENT_ID: ` ${USER_CLIENT} ` });
    expect(claims((await cred.getToken(ARM_SCOPE))!.token)).toMatchObject({ appid: USER_CLIENT, tid: TENANT });
    expect(cred.answeredBy()?.label).toBe(`managed identity via IMDS at ${t.imdsEndpoint} (client_id ${USER_CLIENT})`);
  });

  it("a token file without a tenant: workload identity is noted and skipped, the managed identity answers", async () => {
    const cred = defaultCredential({
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      AZURE_FEDERATED_TOKEN_FILE: tokenFile,
      AZURE_CLIENT_ID: USER_CLIENT,
    });
    expect(claims((await cred.getToken(ARM_SCOPE))!.token).appid).toBe(USER_CLIENT);
    expect(cred.answeredBy()?.id).toBe("ManagedIdentityCredential");
  });

  it("the link that answered is asked alone from then on; the links before it are not walked again", async () => {
    const asked: string[] = [];
    const link = (id: string, answer: () => Promise<string | null>): ChainLink => ({
      id,
      label: id,
      create: () => ({
        getToken: async () => {
          asked.push(id);
          const token = await answer();
          return token === null ? null : { token, expiresOnTimestamp: Date.now() + 3600_000 };
        },
      }),
    });
    const imds = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const chain = new CredentialChain([
      link("absent", () => Promise.reject(new CredentialUnavailableError("not here"))),
      link("empty", async () => null),
      { id: "imds", label: "IMDS", create: () => imds },
    ]);
    await chain.getToken(ARM_SCOPE);
    chain.discardToken((await chain.getToken(ARM_SCOPE)).token);
    await chain.getToken(ARM_SCOPE);
    expect(asked).toEqual(["absent", "empty"]);
    // A token discarded by the chain is discarded by the link too, so IMDS is asked again.
    expect(imds.fetches).toBe(2);
  });
});

describe("AZURE_ACCESS_TOKEN, the explicit override", () => {
  it("wins, and IMDS is never asked", async () => {
    const token = jwt({ exp: inSeconds(600) });
    const cred = defaultCredential({ AZURE_ACCESS_TOKEN: token, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    expect((await cred.getToken(ARM_SCOPE))!.token).toBe(token);
    expect(cred.answeredBy()).toEqual({ id: "AZURE_ACCESS_TOKEN", label: "AZURE_ACCESS_TOKEN (a static token, used as is)" });
    expect(imdsTokens()).toBe(0);
  });

  it("expired, it is an error naming the variable, not a silent fall back to the chain", async () => {
    const expired = jwt({ exp: inSeconds(-5) });
    const cred = defaultCredential({ AZURE_ACCESS_TOKEN: expired, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    const e = await failure(cred.getToken(ARM_SCOPE));
    expect(e.message).toMatch(/^the static token expired at \S+; set a fresh AZURE_ACCESS_TOKEN$/);
    expect(imdsTokens()).toBe(0);
  });
});

describe("AZURE_TOKEN_CREDENTIALS narrows the chain as it narrows DefaultAzureCredential", () => {
  it.each([
    ["prod", ["EnvironmentCredential", "WorkloadIdentityCredential", "ManagedIdentityCredential"]],
    ["dev", ["AzureCliCredential", "AzureDeveloperCliCredential"]],
    [" azureclicredential ", ["AzureCliCredential"]],
    ["ManagedIdentityCredential", ["ManagedIdentityCredential"]],
  ])("%s", (value, ids) => {
    const cred = defaultCredential({ AZURE_TOKEN_CREDENTIALS: value, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint }) as CredentialChain;
    expect(cred.links.map((l) => l.id)).toEqual(ids);
  });

  it("an unknown value is a SettingsError naming the variable and the values it takes", () => {
    expect(() => defaultCredential({ AZURE_TOKEN_CREDENTIALS: "AzurePowerShellCredential" })).toThrow(SettingsError);
    expect(() => defaultCredential({ AZURE_TOKEN_CREDENTIALS: "AzurePowerShellCredential" })).toThrow(
      'AZURE_TOKEN_CREDENTIALS: "AzurePowerShellCredential" is not one of prod, dev, EnvironmentCredential, WorkloadIdentityCredential, ManagedIdentityCredential, AzureCliCredential, AzureDeveloperCliCredential',
    );
  });
});

describe("when no credential works", () => {
  it("the error is one line naming each link tried and what it said", async () => {
    const cred = defaultCredential({
      AZURE_TOKEN_CREDENTIALS: "prod",
      STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint,
      AZURE_CLIENT_ID: "ghost-identity",
      AZURE_CLIENT_SECRET: "planted-secret-5e1f",
    });
    const e = await failure(cred.getToken(ARM_SCOPE));
    expect(e).toBeInstanceOf(CredentialUnavailableError);
    expect(e.message).toBe(
      "no Azure credential could get a token; tried in order: " +
        "environment service principal (client secret): AZURE_CLIENT_SECRET is set but AZURE_TENANT_ID is not set; " +
        "workload identity: AZURE_FEDERATED_TOKEN_FILE is not set; " +
        `managed identity via IMDS at ${t.imdsEndpoint} (client_id ghost-identity): HTTP 400 invalid_request: Identity not found. ` +
        "Sign in with az login (or azd auth login), or set AZURE_ACCESS_TOKEN",
    );
    expect(e.message).not.toContain("planted-secret-5e1f");
    expect(cred.answeredBy()).toBeUndefined();
  });

  it("no IMDS at the address: the link says so", async () => {
    const cred = defaultCredential({
      AZURE_TOKEN_CREDENTIALS: "ManagedIdentityCredential",
      STACKWARDEN_IMDS_ENDPOINT: "http://127.0.0.1:9/metadata",
    });
    const e = await failure(cred.getToken(ARM_SCOPE));
    expect(e.message).toMatch(
      /^no Azure credential could get a token; tried in order: managed identity via IMDS at http:\/\/127\.0\.0\.1:9\/metadata: ECONNREFUSED: .* \(no IMDS here\)\. Sign in with az login/,
    );
  });

  it("a credential that is configured but refused stops the chain, as DefaultAzureCredential does", async () => {
    let later = 0;
    const chain = new CredentialChain([
      {
        id: "EnvironmentCredential",
        label: "environment service principal (client secret)",
        create: () => ({
          getToken: () =>
            Promise.reject(
              new (require("@azure/identity") as typeof import("@azure/identity")).AuthenticationError(401, {
                error: "invalid_client",
                error_description: "AADSTS7000215: Invalid client secret provided.\nTrace ID: 1",
              }),
            ),
        }),
      },
      {
        id: "ManagedIdentityCredential",
        label: "managed identity",
        create: () => ({
          getToken: async () => {
            later += 1;
            return { token: "never", expiresOnTimestamp: Date.now() + 60_000 };
          },
        }),
      },
    ]);
    const e = await failure(chain.getToken(ARM_SCOPE));
    expect(e.message).toMatch(
      /^environment service principal \(client secret\) is configured but was refused: .*AADSTS7000215: Invalid client secret provided\. Trace ID: 1/,
    );
    expect(e.message).not.toContain("\n");
    expect(later).toBe(0);
  });

  it("what a link says is scrubbed of tokens, and the transport turns it into CredentialUnavailable before any request", async () => {
    const planted = jwt({ sub: "PLANTED", exp: inSeconds(600) });
    const chain = new CredentialChain([
      {
        id: "AzureCliCredential",
        label: "Azure CLI",
        create: () => ({
          getToken: () => Promise.reject(new Error(`az said: cached token ${planted} is for another tenant`)),
        }),
      },
    ]);
    const before = t.emu.stats.total;
    const http = new HttpTransport({
      baseUrl: t.url,
      auth: { kind: "bearer", credential: chain, scopes: [ARM_SCOPE] },
      retry: FAST_RETRY,
      logger: silentLogger,
    });
    const e = await failure(http.json({ operation: "Things_Get", method: "GET", path: "/subscriptions/s1/things" }));
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe("CredentialUnavailable");
    expect(e.message).toContain("Azure CLI: az said: cached token REDACTED is for another tenant");
    expect(e.message).not.toContain(planted);
    expect(t.emu.stats.total).toBe(before);
  });
});
