import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CredentialUnavailableError } from "../../../src/platform/auth/credential-errors";
import { defaultCredential } from "../../../src/clients/default-credential";
import { ImdsManagedIdentityCredential } from "../../../src/services/imds/imds-credential";
import { ARM_SCOPE, scopesToResource } from "../../../src/platform/auth/scopes";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

const TOKEN_ROUTE = "GET /metadata/identity/oauth2/token";
const USER_CLIENT = "11111111-2222-3333-4444-555555555555";
const USER_OBJECT = "99999999-8888-7777-6666-555555555555";

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
imds:
  tenantId: 0b0b0b0b-1111-2222-3333-444444444444
  userIdentities:
    - clientId: ${USER_CLIENT}
      objectId: ${USER_OBJECT}
      resourceId: /subscriptions/s1/resourceGroups/rg/providers/Microsoft.ManagedIdentity/userAssignedIdentities/deployer
`),
  });
});
afterAll(async () => {
  await t.close();
});

async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.url}/_emulator/${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}
async function tokenRequests(): Promise<number> {
  const stats = (await admin("GET", "stats")) as { byRoute: Record<string, number> };
  return stats.byRoute[TOKEN_ROUTE] ?? 0;
}
function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8")) as Record<string, unknown>;
}

beforeEach(async () => {
  await admin("PUT", "faults", { rules: [] });
  await admin("PUT", "settings", { tokenTtlSeconds: 3600 });
  await admin("POST", "stats/reset");
});

describe("ImdsManagedIdentityCredential against the emulator's IMDS", () => {
  it("maps the ARM scope to the IMDS resource", () => {
    expect(scopesToResource(ARM_SCOPE)).toBe("https://management.azure.com/");
    expect(scopesToResource(["https://vault.azure.net"])).toBe("https://vault.azure.net");
    expect(() => scopesToResource(["a/.default", "b/.default"])).toThrow(/exactly one scope/);
  });

  it("caches the token, refreshes it ahead of expiry, and fetches again once it expired", async () => {
    await admin("PUT", "settings", { tokenTtlSeconds: 120 });
    let clock = Date.now();
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, now: () => clock, clientId: undefined });

    const first = await cred.getToken(ARM_SCOPE);
    expect(first.token.split(".")).toHaveLength(3);
    expect(claims(first.token).aud).toBe("https://management.azure.com/");
    // The lifetime is short, so the refresh point is half-way (60 s before expiry), not 5 minutes before.
    // (expires_on is in whole seconds, so the lifetime is a little under 120 s.)
    const margin = first.expiresOnTimestamp - first.refreshAfterTimestamp!;
    expect(margin).toBeGreaterThan(58_000);
    expect(margin).toBeLessThanOrEqual(60_000);
    expect(first.expiresOnTimestamp).toBeGreaterThan(clock + 100_000);

    clock += 30_000;
    expect((await cred.getToken(ARM_SCOPE)).token).toBe(first.token);
    expect(cred.fetches).toBe(1);

    clock = first.refreshAfterTimestamp! + 1;
    const second = await cred.getToken(ARM_SCOPE);
    expect(second.token).not.toBe(first.token);
    expect(cred.fetches).toBe(2);

    clock = second.expiresOnTimestamp + 10_000;
    const third = await cred.getToken(ARM_SCOPE);
    expect(third.token).not.toBe(second.token);
    expect(cred.fetches).toBe(3);
    expect(await tokenRequests()).toBe(3);
  });

  it("keeps one cache entry per resource", async () => {
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const arm = await cred.getToken(ARM_SCOPE);
    const vault = await cred.getToken("https://vault.azure.net/.default");
    await cred.getToken(ARM_SCOPE);
    await cred.getToken("https://vault.azure.net/.default");
    expect(claims(arm.token).aud).toBe("https://management.azure.com/");
    expect(claims(vault.token).aud).toBe("https://vault.azure.net/");
    expect(cred.fetches).toBe(2);
  });

  it("hands out the cached token while a refresh fails, as long as it has not expired", async () => {
    await admin("PUT", "settings", { tokenTtlSeconds: 600 });
    let clock = Date.now();
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, now: () => clock, clientId: undefined });
    const first = await cred.getToken(ARM_SCOPE);
    // 400 is not retried by IMDS's policy, so the refresh fails at once.
    await admin("PUT", "faults", { rules: [{ match: "/metadata/identity", status: 400, count: 5 }] });
    clock = first.refreshAfterTimestamp! + 1;
    expect((await cred.getToken(ARM_SCOPE)).token).toBe(first.token);
    clock = first.expiresOnTimestamp + 1;
    await expect(cred.getToken(ARM_SCOPE)).rejects.toThrow(CredentialUnavailableError);
  });

  it("20 concurrent callers share one token request", async () => {
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cred.getToken(ARM_SCOPE)));
    expect(new Set(tokens.map((x) => x.token)).size).toBe(1);
    expect(cred.fetches).toBe(1);
    expect(await tokenRequests()).toBe(1);
  });

  it("20 concurrent callers also share one refresh", async () => {
    await admin("PUT", "settings", { tokenTtlSeconds: 120 });
    let clock = Date.now();
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, now: () => clock, clientId: undefined });
    const first = await cred.getToken(ARM_SCOPE);
    clock = first.refreshAfterTimestamp! + 1;
    const tokens = await Promise.all(Array.from({ length: 20 }, () => cred.getToken(ARM_SCOPE)));
    expect(new Set(tokens.map((x) => x.token)).size).toBe(1);
    expect(tokens[0].token).not.toBe(first.token);
    expect(await tokenRequests()).toBe(2);
  });

  it("one caller's abort ends only its own wait, not the refresh the others share", async () => {
    await admin("PUT", "faults", { latencyMs: 300, rules: [] });
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const ac = new AbortController();
    const first = cred.getToken(ARM_SCOPE, { abortSignal: ac.signal }).then(
      () => "token",
      (e: Error) => e.message,
    );
    const others = Promise.all(Array.from({ length: 5 }, () => cred.getToken(ARM_SCOPE)));
    setTimeout(() => ac.abort(), 30);
    expect(await first).toBe(`managed identity via IMDS at ${t.imdsEndpoint}: RequestAborted: the request was cancelled`);
    const tokens = await others;
    expect(new Set(tokens.map((x) => x.token)).size).toBe(1);
    expect(cred.fetches).toBe(1);
    expect(await tokenRequests()).toBe(1);
    // An already aborted signal fails at once, without a request.
    await expect(
      new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, clientId: undefined }).getToken("https://other/.default", {
        abortSignal: AbortSignal.abort(),
      }),
    ).rejects.toThrow(/RequestAborted/);
    expect(await tokenRequests()).toBe(1);
  });

  it("an endpoint left undefined means the well-known IMDS address", () => {
    expect(new ImdsManagedIdentityCredential({ endpoint: undefined }).endpoint).toBe("http://169.254.169.254/metadata");
  });

  it("retries a 410 from IMDS and then succeeds", async () => {
    await admin("PUT", "faults", { rules: [{ match: "/metadata/identity", status: 410, count: 2 }] });
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const token = await cred.getToken(ARM_SCOPE);
    expect(token.token).toBeTruthy();
    expect(cred.fetches).toBe(1);
    expect(await tokenRequests()).toBe(3);
    expect((await admin("GET", "stats")).faultsInjected).toBe(2);
  });

  it("a clientId selects a seeded user-assigned identity", async () => {
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: USER_CLIENT });
    const c = claims((await cred.getToken(ARM_SCOPE)).token);
    expect(c.appid).toBe(USER_CLIENT);
    expect(c.oid).toBe(USER_OBJECT);
    expect(c.tid).toBe("0b0b0b0b-1111-2222-3333-444444444444");
  });

  it("AZURE_CLIENT_ID selects the identity through defaultCredential", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_CLIENT_ID: ` ${USER_CLIENT} ` });
    const token = await cred.getToken(ARM_SCOPE);
    expect(claims(token!.token).appid).toBe(USER_CLIENT);
  });

  it("without a clientId, the system identity answers", async () => {
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    expect(claims((await cred.getToken(ARM_SCOPE)).token).appid).not.toBe(USER_CLIENT);
  });

  it("an unknown clientId fails with a message naming the identity and the endpoint", async () => {
    const cred = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: "no-such-client" });
    const e = await cred.getToken(ARM_SCOPE).then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e).toBeInstanceOf(CredentialUnavailableError);
    expect(e!.message).toBe(
      `managed identity via IMDS at ${t.imdsEndpoint} (client_id no-such-client): HTTP 400 invalid_request: Identity not found`,
    );
    expect(await tokenRequests()).toBe(1); // a 400 is final: no retries
  });

  it("no IMDS at the address: fails at the first refused connection, with the hint for machines outside Azure", async () => {
    const cred = new ImdsManagedIdentityCredential({
      endpoint: "http://127.0.0.1:9/metadata",
      retry: { ...FAST_RETRY, maxAttempts: 5 },
      clientId: undefined,
    });
    await expect(cred.getToken(ARM_SCOPE)).rejects.toThrow(
      /^managed identity via IMDS at http:\/\/127\.0\.0\.1:9\/metadata: ECONNREFUSED: no response .* after 1 attempt\(s\) .*\(no IMDS here\)$/,
    );
  });
});
