import { UNKNOWN } from "../../../platform/unknown-value";
import type { ComplianceFacts, FactMap } from "../../facts/model/compliance-facts";
import { keyPrincipalOf, missingKeyPermissions } from "../key-access-grants";
import type { Finding } from "../finding";
import {
  holderOf,
  isCustomerManaged,
  readFailureText,
  serverLabel,
  vaultLabel,
  vaultOf,
  KEY_CUSTODY_DRIFT,
  NOT_READ,
  SERVICE_MANAGED,
} from "../key-custody-facts";
import { defineRule, findingBase, type ResolvedSettings } from "../rule";

type ProtectorFacts = FactMap["tdeProtectors"];
type KeyVaultFacts = FactMap["keyVaults"];
type ReadFailure = NonNullable<ProtectorFacts["readFailure"]>;

/**
 * Flags a customer-managed TDE protector (a server's, or a database's own) whose owner cannot use
 * its key: Microsoft's requirements for customer-managed TDE ("Azure SQL transparent data encryption
 * with customer-managed key", learn.microsoft.com/azure/azure-sql/database/transparent-data-encryption-byok-overview,
 * "Requirements for configuring customer-managed TDE") are that the server (or database) has a
 * managed identity, that this identity has get, wrapKey and unwrapKey on the key — through the
 * vault's access policies, or on a vault that uses Azure RBAC through a role such as "Key Vault
 * Crypto Service Encryption User" (e147488a-f6f5-4113-8e2d-b22465e65bf6: data actions
 * `Microsoft.KeyVault/vaults/keys/read`, `…/keys/wrap/action`, `…/keys/unwrap/action`) — and, when
 * the vault's firewall is on, that it lets trusted Microsoft services through (`bypass`
 * AzureServices). A server that loses that access makes its databases inaccessible.
 *
 * The identity is a user-assigned one when the owner names it (`primaryUserAssignedIdentityId`),
 * else its system-assigned one. On an RBAC vault any role assignment for that principal counts whose
 * role's data actions cover the three (wildcards allowed, `notDataActions` taken away) at the key,
 * the vault, its resource group, its subscription or above; an assignment with an ABAC condition is
 * counted as granting (conditions are not evaluated). What cannot be read (the server, the role
 * assignments, a role) is a failure that says why with its HTTP status, never a pass; a vault that
 * cannot be read is tde-key-vault-recoverable's failure (one finding per problem), not applicable here.
 *
 * A key in a Managed HSM is judged on the identity alone: an owner without a usable managed identity
 * fails as for a vault's key; with one, the finding is not applicable and says what was and was not
 * verified, since an HSM grants key use by its own local RBAC, a data-plane API
 * (`https://<hsm>.managedhsm.azure.net/providers/Microsoft.Authorization/roleAssignments`) that
 * Resource Manager does not serve.
 */
export const tdeKeyAccess = defineRule<Record<string, never>>({
  id: "tde-key-access",
  title: "The identity of a customer-managed TDE protector's owner must have get, wrapKey and unwrapKey on its key",
  description:
    "Flags a server (or a database with its own protector) whose customer-managed TDE protector key it cannot use: no managed identity, no access policy (access-policy vault) or role assignment (RBAC vault) granting its identity get, wrapKey and unwrapKey, or a vault firewall that denies by default without letting trusted Azure services through; and one whose identity, vault or role assignments cannot be read. A key in a Managed HSM fails for want of an identity; with one, it is not applicable (the HSM's local RBAC is not read). Service-managed protectors are not applicable.",
  help: "Give the server a managed identity (az sql server update --assign-identity), then grant it the key: an access policy with get, wrapKey and unwrapKey (az keyvault set-policy --object-id <principalId> --key-permissions get wrapKey unwrapKey), or on an RBAC vault the role Key Vault Crypto Service Encryption User at the key or vault; with the vault's firewall on, allow trusted Microsoft services (az keyvault update --bypass AzureServices). Grant the identity that runs stackwarden Reader on the vault so it can be checked.",
  defaultLevel: "mandatory",
  facts: ["tdeProtectors", "keyVaults", "vaultRoleAssignments"],
  settings: {},
  packScope: "stack",
  drift: KEY_CUSTODY_DRIFT,
  evaluate: (facts, settings) => facts.tdeProtectors.map((p) => judge(p, facts, settings)),
});

function judge(p: ProtectorFacts, facts: ComplianceFacts, settings: ResolvedSettings): Finding {
  const label = serverLabel(p);
  const base = findingBase(tdeKeyAccess, p, p.id, label, settings.enforcementLevel);
  const na = (message: string, absent?: string): Finding => ({
    ...base,
    verdict: "not-applicable",
    message,
    ...(absent ? { absent } : {}),
  });
  const unknown = (message: string): Finding => ({ ...base, verdict: "unknown", message });
  if (p.readFailure)
    return na("the TDE protector could not be read, so its key is not known (sql-tde-customer-managed-key reports it)", NOT_READ);
  if (p.serverKeyType === UNKNOWN) return unknown("the TDE protector is not known until it is read");
  if (!isCustomerManaged(p))
    return na("the TDE protector is not a customer-managed key: Azure holds it and needs no access to a vault", SERVICE_MANAGED);
  if (!p.key) return na(`the TDE protector names no Key Vault key (${p.keyUri ?? "no key URI"}); tde-key-validity reports it`);
  const hsm = p.key.managedHsm;
  const fail = (message: string, properties: Record<string, string | number | boolean | string[]> = {}): Finding => ({
    ...base,
    verdict: "fail",
    message: `${holderOf(p)} must be able to use its TDE protector key ${hsm ? "in the Managed HSM " : ""}${p.key!.vaultName}/${p.key!.keyName}; ${message}${
      hsm ? " (the HSM's own grants, its local RBAC, were not read)" : ""
    }`,
    properties: { keyUri: p.keyUri ?? "", ...properties },
  });
  // The identity comes first, whatever holds the key: without one Azure cannot reach a vault's key nor an HSM's.
  if (!p.identity) return unknown("the identity the server uses for its key has not been read yet");
  if (p.identity.readFailure)
    return fail(`its identity could not be read: ${readFailureText(p.identity.readFailure)}`, failed(p.identity.readFailure));
  const principal = keyPrincipalOf(p.identity);
  if (principal.problem !== undefined)
    return fail(`${principal.problem}; Azure reaches a customer-managed key only through the server's managed identity`, {
      identityType: p.identity.type,
    });
  if (hsm)
    return {
      ...na(
        `verified: ${holderOf(p)} has its ${principal.describe} (${principal.principalId}) to reach its key; not verified: whether the Managed HSM ${p.key.vaultName} grants it get, wrapKey and unwrapKey on ${p.key.keyName}, which its local RBAC says, a data-plane API this rule does not read`,
      ),
      properties: {
        keyUri: p.keyUri ?? "",
        principalId: principal.principalId,
        identity: principal.describe,
        permissionModel: "managedHsmLocalRbac",
      },
    };
  const vault = vaultOf(facts.keyVaults, p);
  if (!vault || vault.pending) return unknown(`the vault ${p.key.vaultName} has not been read yet`);
  // One finding per problem: tde-key-vault-recoverable fails an unreadable vault, with its status.
  if (vault.readFailure) return na(`its vault ${vaultLabel(vault)} could not be read (tde-key-vault-recoverable reports it)`);
  if (vault.accessUnknown) return unknown(`who may use the keys of the vault ${vaultLabel(vault)} is not known until it is applied`);
  const grant = vault.enableRbacAuthorization ? roleGrant(p, vault, principal.principalId, facts) : policyGrant(vault, principal);
  if (grant.unknown) return unknown(grant.unknown);
  const problems = [...(grant.problem ? [grant.problem] : []), ...firewallProblems(vault)];
  const properties = {
    principalId: principal.principalId,
    identity: principal.describe,
    permissionModel: vault.enableRbacAuthorization ? "rbac" : "accessPolicy",
    ...(grant.failure ? failed(grant.failure) : {}),
  };
  if (problems.length) return fail(problems.join("; "), properties);
  return {
    ...base,
    verdict: "pass",
    message: `the ${principal.describe} of ${holderOf(p)} has get, wrapKey and unwrapKey on ${p.key.vaultName}/${p.key.keyName} (${grant.via})${firewallNote(vault)}`,
    properties: { keyUri: p.keyUri ?? "", ...properties },
  };
}

interface Grant {
  via?: string;
  problem?: string;
  failure?: ReadFailure;
  unknown?: string;
}

/** An access-policy vault: some policy for the principal (and its tenant, when both are known) grants get, wrapKey and unwrapKey. */
function policyGrant(vault: KeyVaultFacts, principal: { principalId: string; tenantId?: string; describe: string }): Grant {
  const mine = (vault.accessPolicies ?? []).filter(
    (a) =>
      a.objectId.toLowerCase() === principal.principalId.toLowerCase() &&
      (!a.tenantId || !principal.tenantId || a.tenantId.toLowerCase() === principal.tenantId.toLowerCase()),
  );
  if (mine.some((a) => missingKeyPermissions(a.keys).length === 0)) return { via: `an access policy of ${vaultLabel(vault)}` };
  if (mine.length === 0)
    return { problem: `no access policy of ${vaultLabel(vault)} names its ${principal.describe} (${principal.principalId})` };
  const missing = [...new Set(mine.flatMap((a) => missingKeyPermissions(a.keys)))];
  return { problem: `the access policy of ${vaultLabel(vault)} for its ${principal.describe} lacks ${missing.join(", ")} on keys` };
}

/** An RBAC vault: an assignment for the principal whose role covers key use, at a scope that covers the key. */
function roleGrant(p: ProtectorFacts, vault: KeyVaultFacts, principalId: string, facts: ComplianceFacts): Grant {
  const listed = facts.vaultRoleAssignments.find((r) => r.vaultName === vault.name);
  if (!listed) return { unknown: `the role assignments of the RBAC vault ${vaultLabel(vault)} have not been read` };
  if (listed.readFailure)
    return {
      problem: `the role assignments of ${vaultLabel(vault)} could not be listed: ${readFailureText(listed.readFailure)}`,
      failure: listed.readFailure,
    };
  const keyId = `${listed.vaultId}/keys/${p.key!.keyName}`;
  const mine = listed.assignments.filter(
    (a) => a.principalId.toLowerCase() === principalId.toLowerCase() && covers(a.scope, keyId, listed.vaultId),
  );
  const granting = mine.find((a) => a.grantsKeyUse);
  if (granting) return { via: `role ${granting.roleName ?? granting.roleDefinitionId} at ${granting.scope}` };
  const unreadable = mine.find((a) => a.roleReadFailure);
  if (unreadable?.roleReadFailure)
    return {
      problem: `the role ${unreadable.roleDefinitionId} assigned to it could not be read: ${readFailureText(unreadable.roleReadFailure)}`,
      failure: unreadable.roleReadFailure,
    };
  return {
    problem: `no role assignment on the RBAC vault ${vaultLabel(vault)} (at the key, vault, resource group or subscription) grants its identity (${principalId}) the data actions keys/read, keys/wrap/action and keys/unwrap/action (e.g. Key Vault Crypto Service Encryption User)`,
  };
}

/**
 * Whether an assignment listed at the vault's scope reaches the key: Azure lists those at and
 * above the vault (all reach it) and those below it, of which only the key's own (or the vault's) count.
 */
function covers(scope: string, keyId: string, vaultId: string): boolean {
  const s = scope.replace(/\/+$/, "").toLowerCase();
  const under = (parent: string) => s === parent.toLowerCase() || s.startsWith(`${parent.toLowerCase()}/`);
  if (!under(vaultId) || s === vaultId.toLowerCase()) return true;
  return s === keyId.toLowerCase() || s.startsWith(`${keyId.toLowerCase()}/`);
}

/** The firewall's verdict: a vault that denies by default must let trusted Azure services through. */
function firewallProblems(vault: KeyVaultFacts): string[] {
  const acls = vault.networkAcls;
  if (acls?.defaultAction?.toLowerCase() !== "deny") return [];
  const bypass = (acls.bypass ?? "None")
    .split(",")
    .map((b) => b.trim().toLowerCase())
    .includes("azureservices");
  return bypass
    ? []
    : [
        `the firewall of ${vaultLabel(vault)} denies by default (defaultAction Deny) without letting trusted Microsoft services through (bypass ${acls.bypass ?? "None"}, not AzureServices)`,
      ];
}

function firewallNote(vault: KeyVaultFacts): string {
  return vault.networkAcls?.defaultAction?.toLowerCase() === "deny" ? "; its firewall lets trusted Microsoft services through" : "";
}

function failed(f: ReadFailure): Record<string, string | number> {
  return { readStatus: f.status ?? 0, readCode: f.code };
}
