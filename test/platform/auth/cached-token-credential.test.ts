import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CachedTokenCredential } from "../../../src/platform/auth/cached-token-credential";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { ImdsClient } from "../../../src/services/imds/client";
import { imdsTokenSource } from "../../../src/services/imds/imds-credential";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// The cache in front of every credential of the chain (its IMDS behaviour is tested through
// ImdsManagedIdentityCredential in imds-credential.test.ts): here, a source that says when it wants
// to be asked again, as MSAL's refresh_on does for @azure/identity's credentials.

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(async () => {
  await t.close();
});

describe("CachedTokenCredential", () => {
  it("refreshes at the source's own refresh time when that comes before its margin", async () => {
    let clock = Date.now();
    const imds = imdsTokenSource(new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY }));
    let asked = 0;
    const cred = new CachedTokenCredential(
      async (scopes) => {
        asked += 1;
        // IMDS tokens live an hour; this source wants to be asked again after ten minutes.
        return { ...(await imds(scopes)), refreshAfterTimestamp: clock + 600_000 };
      },
      { describe: "a source with refresh_on", now: () => clock },
    );
    const first = await cred.getToken(ARM_SCOPE);
    expect(first.refreshAfterTimestamp).toBe(clock + 600_000);
    clock += 599_000;
    expect((await cred.getToken(ARM_SCOPE)).token).toBe(first.token);
    clock += 2_000;
    expect((await cred.getToken(ARM_SCOPE)).token).not.toBe(first.token);
    expect([asked, cred.fetches]).toEqual([2, 2]);
  });

  it("without one, the refresh comes 5 minutes before expiry (an hour-long token)", async () => {
    const clock = Date.now();
    const cred = new CachedTokenCredential(imdsTokenSource(new ImdsClient({ endpoint: t.imdsEndpoint, retry: FAST_RETRY })), {
      describe: "IMDS",
      now: () => clock,
    });
    const token = await cred.getToken(ARM_SCOPE);
    expect(token.expiresOnTimestamp - token.refreshAfterTimestamp!).toBe(300_000);
  });
});
