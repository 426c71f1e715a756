import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultCredential } from "../../../src/clients/default-credential";
import { ImdsManagedIdentityCredential } from "../../../src/services/imds/imds-credential";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import type { TokenCredential } from "../../../src/platform/http/token-credential";
import { ApiError } from "../../../src/platform/http";
import { SqlClient } from "../../../src/services/sql/client";
import type { DatabaseRef } from "../../../src/services/sql/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCliWith, stackDir } from "../../interfaces/cli/cli-harness";

// A 401 to a token the credential still holds (expired early by clock skew, or revoked): the
// transport asks a credential that can discard tokens for a new one and sends once more; any
// other credential's 401 is reported as it is. The emulator's clock stands in for the skew.

const SUB = "00000000-0000-0000-0000-000000000000";
const TOKEN_ROUTE = "GET /metadata/identity/oauth2/token";
const TDE_ROUTE =
  "GET /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Sql/servers/{serverName}/databases/{databaseName}/transparentDataEncryption/{transparentDataEncryptionName}";
const ORDERS: DatabaseRef = { subscriptionId: SUB, resourceGroup: "rg-auth", server: "sql-auth", database: "orders" };

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    seed: seedFromYaml(`
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-auth
      resourceGroup: rg-auth
      location: East US
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
`),
  });
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  t.emu.settings.tokenTtlSeconds = 3600;
  for (const k of Object.keys(t.emu.stats.byRoute)) delete t.emu.stats.byRoute[k];
});

function clientWith(credential: TokenCredential) {
  const warnings: string[] = [];
  const client = new SqlClient({
    endpoint: t.url,
    credential,
    retry: FAST_RETRY,
    logger: { debug() {}, warn: (l) => warnings.push(l), debugEnabled: false },
  });
  return { client, warnings };
}
const count = (route: string) => t.emu.stats.byRoute[route] ?? 0;

describe("a bearer token the service refuses with 401", () => {
  it.each([
    ["managed identity", () => new ImdsManagedIdentityCredential({ endpoint: t.imdsEndpoint, retry: FAST_RETRY })],
    ["the CLI's default chain (managed identity chosen)", () => defaultCredential({ STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint })],
  ])("%s: the cached token is discarded and the request is sent once more with a new one", async (_name, credentialOf) => {
    const { client, warnings } = clientWith(credentialOf());
    expect((await client.getTransparentDataEncryption(ORDERS)).properties?.status).toBe("Enabled");
    // The service's clock runs two hours ahead: the token the credential holds is expired there only.
    t.emu.advanceClock(2 * 3600_000);
    expect((await client.getTransparentDataEncryption(ORDERS)).properties?.status).toBe("Enabled");
    expect(count(TOKEN_ROUTE)).toBe(2);
    expect(count(TDE_ROUTE)).toBe(3);
    expect(warnings).toEqual([
      expect.stringMatching(/^TransparentDataEncryptions_Get GET http:\/\/.+: 401 to the cached token; retrying once with a new one$/),
    ]);
    // The new token is the one kept: the next call needs neither IMDS nor a second try.
    await client.getTransparentDataEncryption(ORDERS);
    expect([count(TOKEN_ROUTE), count(TDE_ROUTE)]).toEqual([2, 4]);
  });

  it("a static token cannot be renewed: the 401 is reported at once, with ARM's code", async () => {
    const token = (await t.credential.getToken("https://management.azure.com/.default")).token;
    const { client, warnings } = clientWith(new StaticTokenCredential(token));
    t.emu.advanceClock(2 * 3600_000);
    const e = (await client.getTransparentDataEncryption(ORDERS).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect([e.status, e.code]).toEqual([401, "ExpiredAuthenticationToken"]);
    expect(count(TDE_ROUTE)).toBe(1);
    expect(warnings).toEqual([]);
  });

  it("a new token that is refused too: one more try only, then the 401", async () => {
    let discarded = 0;
    const credential = {
      getToken: async () => ({ token: "not-a-jwt", expiresOnTimestamp: Date.now() + 3600_000 }),
      discardToken: () => {
        discarded += 1;
      },
    };
    const { client } = clientWith(credential);
    const e = (await client.getTransparentDataEncryption(ORDERS).catch((x: unknown) => x)) as ApiError;
    expect([e.status, e.code]).toEqual([401, "InvalidAuthenticationToken"]);
    expect(e.message).not.toContain("not-a-jwt");
    expect(discarded).toBe(1);
    expect(count(TDE_ROUTE)).toBe(2);
  });
});

describe("a token for another audience", () => {
  it("a key vault token given as AZURE_ACCESS_TOKEN: plan gets ARM's 401 InvalidAuthenticationTokenAudience, in one line", async () => {
    const vault = (await t.credential.getToken("https://vault.azure.net/.default")).token;
    const dir = stackDir({
      "stack.yaml": `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: rg-auth, server: sql-auth, database: orders, transparentDataEncryption: Enabled }\n`,
    });
    const r = await runCliWith(["plan", "--config", "stack.yaml"], {
      cwd: dir,
      env: { STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: t.imdsEndpoint, AZURE_ACCESS_TOKEN: vault },
    });
    expect(r.code).toBe(1);
    expect(r.transcript.filter((l) => l.startsWith("err "))).toHaveLength(1);
    expect(r.err).toMatch(
      /^stackwarden: SW_ACCESS_DENIED: TransparentDataEncryptions_Get failed: HTTP 401 InvalidAuthenticationTokenAudience: The access token has been obtained for wrong audience or resource 'https:\/\/vault\.azure\.net\/'/,
    );
    expect(r.err).not.toContain(vault);
  });
});
