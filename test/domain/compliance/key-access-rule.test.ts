import { describe, expect, it } from "vitest";
import { evaluateCompliance } from "../../../src/domain/compliance/evaluate";
import type { Finding } from "../../../src/domain/compliance/finding";
import { resolveRuleSettings } from "../../../src/domain/compliance/rule-settings";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { stackServers } from "../../../src/domain/facts/key-custody-reads";
import { keyVaultFactsOf } from "../../../src/domain/facts/key-vaults";
import { keyPrincipalOf, missingKeyPermissions } from "../../../src/domain/compliance/key-access-grants";
import { managedIdentityOf, type ManagedIdentity } from "../../../src/domain/facts/managed-identity";
import type { ComplianceFacts } from "../../../src/domain/facts/model/compliance-facts";
import { actionMatches, grantedKeyUse } from "../../../src/domain/facts/role-key-grants";
import { protectorFactsOf } from "../../../src/domain/facts/tde-protectors";
import type { VaultRoleAssignmentFacts } from "../../../src/domain/facts/vault-role-assignments";
import type { Vault } from "../../../src/services/keyvault/types";

/** tde-key-access as a pure function of its facts: the cases the estate does not hold. */
const SUB = "00000000-0000-0000-0000-000000000000";
const NOW = Date.parse("2026-06-01T00:00:00Z");
const V = "0123456789abcdef0123456789abcdef";
const P = "11111111-0000-4000-8000-000000000001";
const T = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const vaultId = `/subscriptions/${SUB}/resourceGroups/rg-kv/providers/Microsoft.KeyVault/vaults/kv`;
const [server] = stackServers({
  subscriptionId: SUB,
  databases: [{ resourceGroup: "rg", server: "sql-1", database: "db", transparentDataEncryption: "Enabled" }],
});
const cmk = (identity?: ManagedIdentity, uri = `https://kv.vault.azure.net/keys/tde/${V}`) => ({
  ...protectorFactsOf(server, { protector: { id: "p", properties: { serverKeyType: "AzureKeyVault", uri } } }),
  ...(identity ? { identity } : {}),
});
const system = (principalId = P, tenantId = T): ManagedIdentity => ({ type: "SystemAssigned", principalId, tenantId });
const vault = (props: NonNullable<Vault["properties"]>) =>
  keyVaultFactsOf("kv", SUB, { vault: { id: vaultId, properties: { enableSoftDelete: true, enablePurgeProtection: true, ...props } } });
const policy = (keys: string[], objectId = P, tenantId = T) => ({ objectId, tenantId, permissions: { keys } });
const roles = (
  assignments: VaultRoleAssignmentFacts["assignments"],
  over: Partial<VaultRoleAssignmentFacts> = {},
): VaultRoleAssignmentFacts => ({
  vaultName: "kv",
  subscriptionId: SUB,
  vaultId,
  assignments,
  listed: assignments.length,
  ...over,
});

function judge(f: Partial<ComplianceFacts>): Finding {
  const facts: ComplianceFacts = { ...emptyFacts(SUB), ...f };
  return evaluateCompliance(facts, resolveRuleSettings(undefined), [], NOW).findings.find((x) => x.ruleId === "tde-key-access")!;
}

describe("key-use grants", () => {
  it("a role grants key use when its data actions cover read, wrap and unwrap, wildcards included, less its notDataActions", () => {
    expect(actionMatches("Microsoft.KeyVault/vaults/keys/*", "microsoft.keyvault/vaults/keys/wrap/action")).toBe(true);
    expect(actionMatches("Microsoft.KeyVault/vaults/keys/read", "Microsoft.KeyVault/vaults/keys/readX")).toBe(false);
    expect(grantedKeyUse([{ dataActions: ["Microsoft.KeyVault/vaults/*"] }])).toHaveLength(3);
    expect(grantedKeyUse([{ dataActions: ["*"] }])).toHaveLength(3);
    expect(
      grantedKeyUse([
        { dataActions: ["Microsoft.KeyVault/vaults/keys/*"], notDataActions: ["Microsoft.KeyVault/vaults/keys/unwrap/action"] },
      ]),
    ).toEqual(["Microsoft.KeyVault/vaults/keys/read", "Microsoft.KeyVault/vaults/keys/wrap/action"]);
    // Another block's notDataActions do not take away what this block grants (Azure subtracts within a block).
    expect(
      grantedKeyUse([{ dataActions: ["Microsoft.KeyVault/vaults/keys/*"] }, { notDataActions: ["Microsoft.KeyVault/vaults/keys/*"] }]),
    ).toHaveLength(3);
    expect(grantedKeyUse([{ actions: ["*"] }])).toEqual([]);
    expect(missingKeyPermissions(["Get", "WrapKey"])).toEqual(["unwrapKey"]);
    expect(missingKeyPermissions(["all"])).toEqual([]);
  });

  it("the key's principal: the primary user-assigned identity when named, else the system-assigned one", () => {
    const uai = "/subscriptions/s/resourceGroups/r/providers/Microsoft.ManagedIdentity/userAssignedIdentities/u";
    const both = managedIdentityOf(
      {
        type: "SystemAssigned,UserAssigned",
        principalId: P,
        tenantId: T,
        userAssignedIdentities: { [uai]: { principalId: "u-p", clientId: "u-c" } },
      },
      uai.toUpperCase(),
    );
    expect(keyPrincipalOf(both)).toMatchObject({ principalId: "u-p", describe: "user-assigned identity U" });
    expect(keyPrincipalOf({ ...both, keyIdentityId: undefined })).toMatchObject({ principalId: P, tenantId: T });
    expect(keyPrincipalOf(managedIdentityOf({ type: "UserAssigned", userAssignedIdentities: { [uai]: {} } }, null)).problem).toMatch(
      /names none of them as primary/,
    );
    expect(keyPrincipalOf(managedIdentityOf(undefined, undefined)).problem).toBe("it has no managed identity (identity type None)");
    expect(keyPrincipalOf(managedIdentityOf({ type: "SystemAssigned" }, `${uai}-gone`)).problem).toMatch(
      /names the user-assigned identity .* but does not hold it/,
    );
  });
});

describe("tde-key-access", () => {
  it("an access policy for another tenant's object with the same id does not count", () => {
    const v = vault({ accessPolicies: [policy(["get", "wrapKey", "unwrapKey"], P, "99999999-0000-4000-8000-000000000000")] });
    expect(judge({ tdeProtectors: [cmk(system())], keyVaults: [v] }).message).toMatch(
      /no access policy of rg-kv\/kv names its system-assigned identity/,
    );
    expect(
      judge({ tdeProtectors: [cmk(system())], keyVaults: [vault({ accessPolicies: [policy(["get", "wrapKey", "unwrapKey"])] })] }).verdict,
    ).toBe("pass");
  });

  it("names every problem at once: a missing permission and a closed firewall", () => {
    const v = vault({ accessPolicies: [policy(["get"])], networkAcls: { defaultAction: "Deny" } });
    const f = judge({ tdeProtectors: [cmk(system())], keyVaults: [v] });
    expect(f.verdict).toBe("fail");
    expect(f.message).toMatch(
      /lacks wrapKey, unwrapKey on keys; the firewall of rg-kv\/kv denies by default .* \(bypass None, not AzureServices\)$/,
    );
  });

  it("RBAC: only an assignment for the principal that reaches the key counts; an unreadable role fails with its status; unlisted assignments are unknown", () => {
    const rbac = vault({ enableRbacAuthorization: true, accessPolicies: [policy(["all"])] });
    const grant = (scope: string, principalId = P) => ({ principalId, scope, roleDefinitionId: "r", roleName: "R", grantsKeyUse: true });
    const run = (r?: VaultRoleAssignmentFacts) =>
      judge({ tdeProtectors: [cmk(system())], keyVaults: [rbac], vaultRoleAssignments: r ? [r] : [] });
    // The vault's access policies do not count once it uses RBAC.
    expect(run().verdict).toBe("unknown");
    expect(run(roles([grant("/")])).verdict).toBe("pass");
    expect(run(roles([grant(`/subscriptions/${SUB}/resourceGroups/rg-kv`)])).verdict).toBe("pass");
    expect(run(roles([grant(`${vaultId}/keys/TDE`)])).verdict).toBe("pass");
    expect(run(roles([grant(`${vaultId}/keys/other`)])).verdict).toBe("fail");
    expect(run(roles([grant(vaultId, "someone-else")])).verdict).toBe("fail");
    const refused = { status: 403, code: "AuthorizationFailed", message: "no", readAt: "t" };
    const unreadable = run(
      roles([{ principalId: P, scope: vaultId, roleDefinitionId: "/x/r", grantsKeyUse: false, roleReadFailure: refused }]),
    );
    expect(unreadable).toMatchObject({
      verdict: "fail",
      properties: expect.objectContaining({ readStatus: 403, readCode: "AuthorizationFailed" }),
    });
    expect(unreadable.message).toMatch(/the role \/x\/r assigned to it could not be read: HTTP 403 AuthorizationFailed: no$/);
  });

  it("an identity that cannot be read fails with its status; a key in a Managed HSM and a service-managed protector are not applicable", () => {
    const refused = { status: 404, code: "ResourceNotFound", message: "gone", readAt: "t" };
    const f = judge({ tdeProtectors: [cmk({ type: "None", readFailure: refused })], keyVaults: [vault({})] });
    expect(f).toMatchObject({ verdict: "fail", properties: expect.objectContaining({ readStatus: 404 }) });
    expect(f.message).toMatch(/; its identity could not be read: HTTP 404 ResourceNotFound: gone$/);
    const hsm = judge({ tdeProtectors: [cmk(system(), `https://hsm-1.managedhsm.azure.net/keys/tde/${V}`)] });
    expect(hsm.verdict).toBe("not-applicable");
    expect(hsm.message).toMatch(/Managed HSM .* local RBAC/);
    const sm = protectorFactsOf(server, { protector: { id: "p", properties: { serverKeyType: "ServiceManaged" } } });
    expect(judge({ tdeProtectors: [sm] }).verdict).toBe("not-applicable");
  });

  it("a key in a Managed HSM owned by a server without a usable identity fails; with one, what was and was not verified is said", () => {
    const hsmUri = `https://hsm-1.managedhsm.azure.net/keys/tde/${V}`;
    const none = judge({ tdeProtectors: [cmk({ type: "None" }, hsmUri)] });
    expect(none).toMatchObject({ verdict: "fail", level: "mandatory", properties: expect.objectContaining({ identityType: "None" }) });
    expect(none.message).toMatch(
      /must be able to use its TDE protector key in the Managed HSM hsm-1\/tde; .*managed identity.*\(the HSM's own grants, its local RBAC, were not read\)$/,
    );
    const refused = { status: 403, code: "AuthorizationFailed", message: "no", readAt: "t" };
    expect(judge({ tdeProtectors: [cmk({ type: "None", readFailure: refused }, hsmUri)] }).verdict).toBe("fail");
    expect(judge({ tdeProtectors: [cmk(undefined, hsmUri)] }).verdict).toBe("unknown");
    const ok = judge({ tdeProtectors: [cmk(system(), hsmUri)] });
    expect(ok).toMatchObject({
      verdict: "not-applicable",
      properties: expect.objectContaining({ principalId: P, permissionModel: "managedHsmLocalRbac" }),
    });
    expect(ok.message).toMatch(
      /^verified: .* has its system-assigned identity \(1111.*\) to reach its key; not verified: whether the Managed HSM hsm-1 grants it/,
    );
  });
});
