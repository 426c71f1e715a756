import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainedTokenCredential } from "../../../src/platform/auth/chained-credential";
import { CredentialUnavailableError } from "../../../src/platform/auth/credential-errors";
import { defaultCredential } from "../../../src/clients/default-credential";
import { ImdsManagedIdentityCredential } from "../../../src/services/imds/imds-credential";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import type { TokenCredential } from "../../../src/platform/http/token-credential";
import { silentLogger } from "../../../src/platform/http/logger";
import { HttpTransport } from "../../../src/platform/http/transport";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/** An unsigned JWT-shaped token with the given claims. */
function jwt(claims: Record<string, unknown>): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b({ alg: "none", typ: "JWT" })}.${b(claims)}.c2lnbmF0dXJl`;
}
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

let t: TestEmulator;
let srv: ScriptedServer;
beforeAll(async () => {
  t = await startTestEmulator();
  srv = await startScriptedServer((_q, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
  await t.close();
  await srv.close();
});

describe("StaticTokenCredential", () => {
  it("hands the token out as it is, with the JWT's expiry", async () => {
    const exp = inSeconds(600);
    const token = jwt({ exp, aud: "https://management.azure.com/" });
    const got = await new StaticTokenCredential(token).getToken();
    expect(got).toEqual({ token, expiresOnTimestamp: exp * 1000, tokenType: "Bearer" });
  });

  it("an opaque token never expires as far as it can tell", async () => {
    const got = await new StaticTokenCredential("opaque-token-value").getToken();
    expect(got.expiresOnTimestamp).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("an expired JWT is refused before any request is sent", async () => {
    const expired = jwt({ exp: inSeconds(-60) });
    srv.script((_q, res) => json(res, 200, {}));
    const http = new HttpTransport({
      baseUrl: srv.url,
      auth: { kind: "bearer", credential: new StaticTokenCredential(expired), scopes: [ARM_SCOPE] },
      retry: FAST_RETRY,
      logger: silentLogger,
    });
    const e = await http.json({ operation: "Things_Get", method: "GET", path: "/x" }).then(
      () => undefined,
      (x: unknown) => x as Error & { code: string },
    );
    expect(e?.code).toBe("CredentialUnavailable");
    expect(e?.message).toMatch(/the static token expired at \d{4}-\d\d-\d\dT.*; set a fresh AZURE_ACCESS_TOKEN/);
    expect(e?.message).not.toContain(expired);
    expect(srv.seen).toHaveLength(0);
  });

  it("honours the injected clock", async () => {
    const exp = inSeconds(100);
    const cred = new StaticTokenCredential(jwt({ exp }), () => exp * 1000 + 1);
    await expect(cred.getToken()).rejects.toThrow(CredentialUnavailableError);
  });

  it("fromEnv reads AZURE_ACCESS_TOKEN, trimmed, and nothing when it is blank", async () => {
    expect(StaticTokenCredential.fromEnv({})).toBeUndefined();
    expect(StaticTokenCredential.fromEnv({ AZURE_ACCESS_TOKEN: "   " })).toBeUndefined();
    expect((await StaticTokenCredential.fromEnv({ AZURE_ACCESS_TOKEN: " tok-1 \n" })!.getToken()).token).toBe("tok-1");
  });
});

describe("ChainedTokenCredential and defaultCredential", () => {
  it("AZURE_ACCESS_TOKEN wins and IMDS is never asked", async () => {
    const token = jwt({ exp: inSeconds(600) });
    const before = t.emu.stats.total;
    const cred = defaultCredential({ AZURE_ACCESS_TOKEN: token, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    expect((await cred.getToken(ARM_SCOPE))!.token).toBe(token);
    expect(t.emu.stats.total).toBe(before);
  });

  it("an expired AZURE_ACCESS_TOKEN is an error, not a silent fall back to IMDS", async () => {
    const cred = defaultCredential({ AZURE_ACCESS_TOKEN: jwt({ exp: inSeconds(-5) }), STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    await expect(cred.getToken(ARM_SCOPE)).rejects.toThrow(
      /^no credential could get a token\. environment token: the static token expired at /,
    );
  });

  it("without AZURE_ACCESS_TOKEN the managed identity answers", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint });
    const token = await cred.getToken(ARM_SCOPE);
    expect(t.emu.tokens.verify(token!.token, t.emu.now()).ok).toBe(true);
  });

  it("the error lists what each credential tried", async () => {
    const cred = defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_CLIENT_ID: "ghost-identity" });
    const e = await cred.getToken(ARM_SCOPE).then(
      () => undefined,
      (x: unknown) => x as Error,
    );
    expect(e).toBeInstanceOf(CredentialUnavailableError);
    expect(e!.message).toBe(
      "no credential could get a token. environment token: AZURE_ACCESS_TOKEN is not set; " +
        `managed identity: managed identity via IMDS at ${t.imdsEndpoint} (client_id ghost-identity): HTTP 400 invalid_request: Identity not found`,
    );
  });

  it("tries in order, remembers the first that works, and says when one returns nothing", async () => {
    const calls: string[] = [];
    const failing: TokenCredential = {
      getToken: async () => {
        calls.push("a");
        throw new CredentialUnavailableError("not here");
      },
    };
    const empty: TokenCredential = {
      getToken: async () => {
        calls.push("b");
        return null;
      },
    };
    const imds = new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY, clientId: undefined });
    const chain = new ChainedTokenCredential([
      { name: "a", credential: failing },
      { name: "b", credential: empty },
      { name: "imds", credential: imds },
    ]);
    await chain.getToken(ARM_SCOPE);
    await chain.getToken(ARM_SCOPE);
    expect(calls).toEqual(["a", "b"]);
    expect(imds.fetches).toBe(1);

    const none = new ChainedTokenCredential([
      { name: "a", credential: failing },
      { name: "b", credential: empty },
    ]);
    await expect(none.getToken(ARM_SCOPE)).rejects.toThrow("no credential could get a token. a: not here; b: returned no token");
  });
});
