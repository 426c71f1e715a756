import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CachedTokenCredential } from "../../../src/platform/auth/cached-token-credential";
import type { GetTokenOptions } from "../../../src/platform/http/token-credential";
import { HttpTransport } from "../../../src/platform/http/transport";
import { silentLogger } from "../../../src/platform/http/logger";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server";

// The bearer stage takes a cached token without awaiting getToken (PeekableTokenCredential): the
// tokens sent, their refresh and the 401 renewal stay what getToken alone gave.

let srv: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
});

const SCOPES = ["https://management.azure.com/.default"];

/** A cache over a source that numbers its tokens, counting the calls of getToken (the promise path). */
class CountingCredential extends CachedTokenCredential {
  getTokenCalls = 0;
  clock = 1_000_000;
  constructor() {
    let issued = 0;
    super(async () => ({ token: `token-${++issued}`, expiresOnTimestamp: this.clock + 3_600_000 }), {
      describe: "a numbered source",
      now: () => this.clock,
    });
  }
  override getToken(scopes: string | string[], options?: GetTokenOptions) {
    this.getTokenCalls += 1;
    return super.getToken(scopes, options);
  }
}

const get = (credential: CountingCredential) =>
  new HttpTransport({
    baseUrl: srv.url,
    retry: FAST_RETRY,
    logger: silentLogger,
    auth: { kind: "bearer", credential, scopes: SCOPES },
  }).json({
    operation: "Things_Get",
    method: "GET",
    path: "/x",
  });

describe("the bearer stage with a cached token", () => {
  it("sends the cached token without asking getToken again, until its refresh is due", async () => {
    srv.script((_q, res) => json(res, 200, {}));
    const credential = new CountingCredential();
    for (let i = 0; i < 3; i++) await get(credential);
    expect(srv.seen.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-1", "Bearer token-1"]);
    // Only the first request, with nothing cached yet, awaited getToken.
    expect([credential.getTokenCalls, credential.fetches]).toEqual([1, 1]);
    expect(credential.peekToken(SCOPES)?.token).toBe("token-1");
    // Past the refresh margin (5 minutes before expiry) the cache has nothing to hand out at once.
    credential.clock += 3_600_000 - 299_000;
    expect(credential.peekToken(SCOPES)).toBeUndefined();
    await get(credential);
    expect(srv.seen.at(-1)!.headers.authorization).toBe("Bearer token-2");
    expect([credential.getTokenCalls, credential.fetches]).toEqual([2, 2]);
  });

  it("a 401 to the cached token is sent once more with a new one", async () => {
    const credential = new CountingCredential();
    srv.script((_q, res) => json(res, 200, {}));
    await get(credential);
    srv.script((q, res) =>
      q.headers.authorization === "Bearer token-1"
        ? json(res, 401, { error: { code: "ExpiredAuthenticationToken", message: "expired" } })
        : json(res, 200, {}),
    );
    await get(credential);
    expect(srv.seen.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2"]);
    expect(credential.fetches).toBe(2);
  });
});
