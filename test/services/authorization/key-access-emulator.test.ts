import { AuthorizationManagementClient } from "@azure/arm-authorization";
import { SqlManagementClient } from "@azure/arm-sql";
import type { TokenCredential as AzureTokenCredential } from "@azure/core-auth";
import type { Pipeline } from "@azure/core-rest-pipeline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationInitialState } from "../../../src/emulator/services/authorization/authorization-state";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { AuthorizationClient } from "../../../src/services/authorization/client";
import { SqlClient } from "../../../src/services/sql/client";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { recordingLogger } from "../keyvault/key-custody-kit";

/**
 * What the emulator serves for tde-key-access, read three ways: raw requests (the filters of
 * RoleAssignments_ListForScope as the spec describes them), this project's clients (checked
 * against the specs: no drift), and Azure's own SDKs (@azure/arm-authorization, @azure/arm-sql),
 * which must read the role assignments and a server's identity as they read Azure's.
 */
const SUB = "00000000-0000-0000-0000-0000000000a5";
const RG = `/subscriptions/${SUB}/resourceGroups/rg-keys`;
const VAULT = `${RG}/providers/Microsoft.KeyVault/vaults/kv-a`;
const SERVER_PRINCIPAL = "11111111-0000-4000-8000-0000000000a1";
const OTHER = "11111111-0000-4000-8000-0000000000a2";
const CRYPTO_USER = "e147488a-f6f5-4113-8e2d-b22465e65bf6";
const READER = "acdd72a7-3385-48ef-bd42-f606fba81ae7";
const UAI = `/subscriptions/${SUB}/resourceGroups/rg-ids/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id-tde`;

const SEED = `
sql:
  subscriptionId: ${SUB}
  servers:
    - name: sql-a
      resourceGroup: rg-data
      identity: { type: SystemAssigned, principalId: ${SERVER_PRINCIPAL} }
      encryptionProtector: { keyUri: https://kv-a.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef }
    - name: sql-b
      resourceGroup: rg-data
      identity:
        type: UserAssigned
        userAssignedIdentities: [{ id: ${UAI}, principalId: 22222222-0000-4000-8000-0000000000b1, clientId: 33333333-0000-4000-8000-0000000000b1 }]
        primaryUserAssignedIdentityId: ${UAI}
    - name: sql-c
      resourceGroup: rg-data
keyvault:
  subscriptionId: ${SUB}
  vaults:
    - name: kv-a
      resourceGroup: rg-keys
      enableRbacAuthorization: true
      networkAcls: { defaultAction: Deny, bypass: AzureServices, ipRules: [203.0.113.7] }
      accessPolicies: [{ objectId: ${OTHER}, permissions: { keys: [get] } }]
      keys: [{ name: tde, version: 0123456789abcdef0123456789abcdef }]
authorization:
  subscriptionId: ${SUB}
  roleDefinitions:
    - { name: 44444444-0000-4000-8000-0000000000c1, roleName: Key user, dataActions: [Microsoft.KeyVault/vaults/keys/*] }
  roleAssignments:
    - { scope: ${VAULT}, principalId: ${SERVER_PRINCIPAL}, roleDefinitionId: ${CRYPTO_USER} }
    - { scope: /subscriptions/${SUB}, principalId: ${OTHER}, roleDefinitionId: ${READER} }
    - { scope: ${VAULT}/keys/tde, principalId: ${OTHER}, roleDefinitionId: 44444444-0000-4000-8000-0000000000c1 }
    - { scope: /subscriptions/${SUB}/resourceGroups/rg-other, principalId: ${OTHER}, roleDefinitionId: ${READER} }
  listDeniedScopes: [/subscriptions/${SUB}/resourceGroups/rg-locked]
`;

let t: TestEmulator;
let token: () => Promise<string>;
beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  token = async () => (await t.credential.getToken(ARM_SCOPE))!.token;
});
afterAll(async () => {
  await t?.close();
});

async function get(path: string, query = "api-version=2022-04-01"): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${t.url}${path}?${query}`, { headers: { authorization: `Bearer ${await token()}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const scopesOf = (body: Record<string, unknown>) =>
  (body.value as { properties: { scope: string } }[]).map((a) => a.properties.scope.replace(`/subscriptions/${SUB}`, "~")).sort();

describe("RoleAssignments_ListForScope on the emulator", () => {
  it("without a filter: the assignments at, above and below the scope; atScope(): at and above; by principal: that principal's", async () => {
    const path = `${VAULT}/providers/Microsoft.Authorization/roleAssignments`;
    expect(scopesOf((await get(path)).body)).toEqual([
      "~",
      "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a",
      "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a/keys/tde",
    ]);
    expect(scopesOf((await get(path, "api-version=2022-04-01&$filter=atScope()")).body)).toEqual([
      "~",
      "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a",
    ]);
    for (const filter of [`principalId eq '${OTHER}'`, `assignedTo('${OTHER}')`]) {
      const r = await get(path, `api-version=2022-04-01&$filter=${encodeURIComponent(filter)}`);
      expect(scopesOf(r.body), filter).toEqual(["~", "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a/keys/tde"]);
    }
    const key = await get(
      `${VAULT}/keys/tde/providers/Microsoft.Authorization/roleAssignments`,
      "api-version=2022-04-01&$filter=atScope()",
    );
    expect(scopesOf(key.body)).toEqual([
      "~",
      "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a",
      "~/resourceGroups/rg-keys/providers/Microsoft.KeyVault/vaults/kv-a/keys/tde",
    ]);
  });

  it("an assignment names its role under its scope's subscription; an unknown filter is a 400, a denied scope a 403", async () => {
    const r = await get(`${RG}/providers/Microsoft.Authorization/roleAssignments`, "api-version=2022-04-01&$filter=atScope()");
    expect(r.body.value).toEqual([
      expect.objectContaining({
        type: "Microsoft.Authorization/roleAssignments",
        id: expect.stringMatching(new RegExp(`^/subscriptions/${SUB}/providers/Microsoft.Authorization/roleAssignments/[0-9a-f-]{36}$`)),
        properties: expect.objectContaining({
          roleDefinitionId: `/subscriptions/${SUB}/providers/Microsoft.Authorization/roleDefinitions/${READER}`,
          principalId: OTHER,
          principalType: "ServicePrincipal",
          scope: `/subscriptions/${SUB}`,
        }),
      }),
    ]);
    expect(
      (await get(`${RG}/providers/Microsoft.Authorization/roleAssignments`, "api-version=2022-04-01&$filter=roleName eq 'x'")).status,
    ).toBe(400);
    const denied = await get(`/subscriptions/${SUB}/resourceGroups/rg-locked/providers/Microsoft.Authorization/roleAssignments`);
    expect(denied.status).toBe(403);
    expect((denied.body.error as { code: string }).code).toBe("AuthorizationFailed");
  });

  it("a seed that names a role nobody defines, or a primary identity the server does not hold, is refused naming the field", () => {
    expect(() =>
      authorizationInitialState({
        roleAssignments: [{ scope: "/", principalId: OTHER, roleDefinitionId: "99999999-0000-4000-8000-000000000000" }],
      }),
    ).toThrow(/^authorization\.roleAssignments\[0\]\.roleDefinitionId: no role 99999999-/);
    expect(() =>
      seedFromYaml(`authorization:\n  roleAssignments:\n    - { scope: /x, principalId: ${OTHER}, roleDefinitionId: ${READER} }\n`),
    ).toThrow(/inline-seed\.yaml:3:\d+: authorization\.roleAssignments\[0\]\.scope/);
    expect(() =>
      seedFromYaml(`keyvault:\n  vaults:\n    - name: kv-x\n      resourceGroup: rg\n      networkAcls: { defaultAction: Block }\n`),
    ).toThrow(/inline-seed\.yaml:5:\d+: keyvault\.vaults\[0\]\.networkAcls\.defaultAction/);
    expect(() => seedFromYaml(`sql:\n  servers:\n    - name: s\n      resourceGroup: rg\n      identity: { type: Managed }\n`)).toThrow(
      /inline-seed\.yaml:5:\d+: sql\.servers\[0\]\.identity\.type/,
    );
  });
});

describe("this project's clients", () => {
  it("read a server's identity, an RBAC vault's assignments and their roles, with no drift from the specs", async () => {
    const logger = recordingLogger();
    const options = { endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger, validation: "all" as const };
    const sql = new SqlClient(options);
    const a = await sql.readServer({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-a" });
    expect(a.receipt).toMatchObject({ operation: "Servers_Get", apiVersion: "2021-11-01" });
    expect(a.value.identity).toMatchObject({ type: "SystemAssigned", principalId: SERVER_PRINCIPAL });
    expect(a.value.properties?.keyId).toBe("https://kv-a.vault.azure.net/keys/tde/0123456789abcdef0123456789abcdef");
    const b = await sql.readServer({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-b" });
    expect(b.value.properties?.primaryUserAssignedIdentityId).toBe(UAI);
    expect(b.value.identity?.userAssignedIdentities?.[UAI]).toEqual({
      principalId: "22222222-0000-4000-8000-0000000000b1",
      clientId: "33333333-0000-4000-8000-0000000000b1",
    });
    expect((await sql.readServer({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-c" })).value.identity).toBeUndefined();

    const auth = new AuthorizationClient(options);
    const listed = await auth.listRoleAssignmentsForScope(VAULT);
    expect(listed).toHaveLength(3);
    const role = await auth.readRoleDefinition(
      listed.find((x) => x.properties?.principalId === SERVER_PRINCIPAL)!.properties!.roleDefinitionId!,
    );
    expect(role.value.properties).toMatchObject({ roleName: "Key Vault Crypto Service Encryption User", type: "BuiltInRole" });
    expect(role.value.properties?.permissions?.[0].dataActions).toEqual([
      "Microsoft.KeyVault/vaults/keys/read",
      "Microsoft.KeyVault/vaults/keys/wrap/action",
      "Microsoft.KeyVault/vaults/keys/unwrap/action",
    ]);
    expect(logger.warnings).toEqual([]);
  });
});

describe("Azure's SDKs against the emulator", () => {
  const credential = (): AzureTokenCredential => ({
    getToken: async () => {
      const tk = await t.credential.getToken(ARM_SCOPE);
      return { token: tk!.token, expiresOnTimestamp: tk!.expiresOnTimestamp };
    },
  });
  const sdkOptions = () => ({
    endpoint: t.url,
    credentialScopes: [ARM_SCOPE],
    allowInsecureConnection: true,
    retryOptions: { maxRetries: 0 },
  });
  /**
   * The SDKs' bearer policy refuses a token over http (the emulator's plain loopback URL): the
   * same token goes in by a policy that sets the header, as the bearer policy would over https.
   */
  function overHttp<C extends { pipeline: Pipeline }>(client: C): C {
    client.pipeline.removePolicy({ name: "bearerTokenAuthenticationPolicy" });
    client.pipeline.addPolicy({
      name: "emulatorBearer",
      sendRequest: async (req, next) => {
        req.headers.set("authorization", `Bearer ${await token()}`);
        return next(req);
      },
    });
    return client;
  }

  it("@azure/arm-authorization lists the role assignments of a vault and reads their roles", async () => {
    const client = overHttp(new AuthorizationManagementClient(credential(), SUB, sdkOptions()));
    const assignments = [];
    for await (const a of client.roleAssignments.listForScope(VAULT.slice(1), { filter: "atScope()" })) assignments.push(a);
    expect(assignments.map((a) => [a.principalId, a.scope]).sort()).toEqual([
      [SERVER_PRINCIPAL, VAULT],
      [OTHER, `/subscriptions/${SUB}`],
    ]);
    const role = await client.roleDefinitions.getById(assignments.find((a) => a.principalId === SERVER_PRINCIPAL)!.roleDefinitionId!);
    expect(role).toMatchObject({ roleName: "Key Vault Crypto Service Encryption User", roleType: "BuiltInRole" });
    expect(role.permissions?.[0].dataActions).toContain("Microsoft.KeyVault/vaults/keys/unwrap/action");
  });

  it("@azure/arm-sql gets a server with its identity and primary user-assigned identity", async () => {
    const client = overHttp(new SqlManagementClient(credential(), SUB, sdkOptions()));
    const a = await client.servers.get("rg-data", "sql-a");
    expect(a.identity).toMatchObject({ type: "SystemAssigned", principalId: SERVER_PRINCIPAL });
    const b = await client.servers.get("rg-data", "sql-b");
    expect(b.identity?.type).toBe("UserAssigned");
    expect(b.primaryUserAssignedIdentityId).toBe(UAI);
    expect(b.identity?.userAssignedIdentities?.[UAI]?.principalId).toBe("22222222-0000-4000-8000-0000000000b1");
  });
});
