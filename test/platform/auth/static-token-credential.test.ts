import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CredentialUnavailableError } from "../../../src/platform/auth/credential-errors";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import { silentLogger } from "../../../src/platform/http/logger";
import { HttpTransport } from "../../../src/platform/http/transport";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "../http/scripted-server";

/** An unsigned JWT-shaped token with the given claims. */
function jwt(claims: Record<string, unknown>): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b({ alg: "none", typ: "JWT" })}.${b(claims)}.c2lnbmF0dXJl`;
}
const inSeconds = (s: number) => Math.floor(Date.now() / 1000) + s;

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer((_q, res) => json(res, 200, { ok: true }));
});
afterAll(async () => {
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

  it("says it answered (as AZURE_ACCESS_TOKEN) once it has given a token", async () => {
    const cred = new StaticTokenCredential("opaque-token-value");
    expect(cred.answeredBy()).toBeUndefined();
    await cred.getToken();
    expect(cred.answeredBy()).toEqual({ id: "AZURE_ACCESS_TOKEN", label: "AZURE_ACCESS_TOKEN (a static token, used as is)" });
  });

  it("fromEnv reads AZURE_ACCESS_TOKEN, trimmed, and nothing when it is blank", async () => {
    expect(StaticTokenCredential.fromEnv({})).toBeUndefined();
    expect(StaticTokenCredential.fromEnv({ AZURE_ACCESS_TOKEN: "   " })).toBeUndefined();
    expect((await StaticTokenCredential.fromEnv({ AZURE_ACCESS_TOKEN: " tok-1 \n" })!.getToken()).token).toBe("tok-1");
  });
});
