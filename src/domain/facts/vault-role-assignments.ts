import { mapBounded } from "../../platform/bounded-map";
import type { RoleAssignment } from "../../services/authorization/types";
import type { FactOrigin } from "./model/compliance-facts";
import { defineFactKind, type GatherContext } from "./fact-kind";
import { protectorKeysOfStack, readVaultOnce } from "./key-custody-reads";
import { listRoleAssignmentsOnce, readRoleDefinitionOnce } from "./key-access-reads";
import type { ReadFailure } from "./read-failure";
import { grantedKeyUse, KEY_USE_DATA_ACTIONS } from "./role-key-grants";

/** A role assignment that applies to an RBAC vault (or one of its keys) and can matter for key use. */
export interface KeyRoleAssignment {
  principalId: string;
  /** Where the role is assigned: a key, the vault, its resource group, its subscription, a management group, `/`. */
  scope: string;
  roleDefinitionId: string;
  roleName?: string;
  /** Whether the role's data actions cover get, wrap and unwrap of a key (notDataActions taken away). */
  grantsKeyUse: boolean;
  /** The role could not be read (403, 404): whether it grants key use is not known. */
  roleReadFailure?: ReadFailure;
  /** The assignment carries an ABAC condition, which may narrow it (not evaluated). */
  conditional?: boolean;
}

/**
 * The role assignments of a vault that uses Azure RBAC (`enableRbacAuthorization`) holding a
 * customer-managed TDE protector, as `tde-key-access` judges them. Compact: only the assignments
 * whose role grants key use, or whose role could not be read, are kept (with `listed`, how many apply
 * in all), since no other assignment can let a server use its key.
 */
export interface VaultRoleAssignmentFacts extends FactOrigin {
  /** The vault's name, lower-cased, as a protector's key URI names it. */
  vaultName: string;
  subscriptionId: string;
  /** The vault's ARM id: the scope that was listed. */
  vaultId: string;
  assignments: KeyRoleAssignment[];
  /** How many assignments apply to the vault's scope in all. */
  listed: number;
  /** The list was refused (403) or its scope not found (404). */
  readFailure?: ReadFailure;
}

declare module "./model/compliance-facts" {
  interface FactMap {
    vaultRoleAssignments: VaultRoleAssignmentFacts;
  }
}

/**
 * The role assignments that apply to each RBAC vault of the stack's customer-managed TDE protectors:
 * one unfiltered RoleAssignments_ListForScope per vault (at, above and below its scope), and one
 * RoleDefinitions_GetById per distinct role the list names. Access-policy vaults are not listed:
 * their access policies come with the vault (keyVaults).
 */
export const vaultRoleAssignments = defineFactKind<VaultRoleAssignmentFacts>({
  key: "vaultRoleAssignments",
  title: "role assignments of each RBAC Key Vault of a customer-managed TDE protector",
  scope: "vault",
  gather: async (ctx) => {
    const sub = ctx.stack.subscriptionId;
    const names = [...new Set((await protectorKeysOfStack(ctx)).map((k) => k.key.vaultName))];
    const facts = await mapBounded(names, ctx.concurrency, async (name) => {
      const vault = await readVaultOnce(ctx, sub, name);
      if (vault.failure || vault.read.value.properties?.enableRbacAuthorization !== true || !vault.read.value.id) return undefined;
      return roleAssignmentFactsOf(ctx, name, sub, vault.read.value.id);
    });
    return facts.filter((f): f is VaultRoleAssignmentFacts => f !== undefined);
  },
  // No Pulumi data source carries them yet: the pack judges an RBAC vault's access as unknown.
  fromResources: () => [],
});

async function roleAssignmentFactsOf(ctx: GatherContext, vaultName: string, subscriptionId: string, vaultId: string) {
  const base = { vaultName: vaultName.toLowerCase(), subscriptionId, vaultId };
  const listed = await listRoleAssignmentsOnce(ctx, vaultId);
  if (listed.failure) return { ...base, assignments: [], listed: 0, readFailure: listed.failure };
  const kept = await mapBounded(listed.assignments, ctx.concurrency, (a) => keyRoleAssignmentOf(ctx, a));
  return { ...base, assignments: kept.filter((a): a is KeyRoleAssignment => a !== undefined), listed: listed.assignments.length };
}

/** An assignment as the rule needs it, when its role grants key use or could not be read; undefined otherwise. */
async function keyRoleAssignmentOf(ctx: GatherContext, a: RoleAssignment): Promise<KeyRoleAssignment | undefined> {
  const p = a.properties ?? {};
  if (typeof p.principalId !== "string" || typeof p.roleDefinitionId !== "string") return undefined;
  const scope = typeof p.scope === "string" ? p.scope : scopeOfAssignmentId(a.id);
  const base = { principalId: p.principalId, scope, roleDefinitionId: p.roleDefinitionId, ...(p.condition ? { conditional: true } : {}) };
  const role = await readRoleDefinitionOnce(ctx, p.roleDefinitionId);
  if (role.failure) return { ...base, grantsKeyUse: false, roleReadFailure: role.failure };
  const granted = grantedKeyUse(role.role.properties?.permissions);
  if (granted.length !== KEY_USE_DATA_ACTIONS.length) return undefined;
  const roleName = role.role.properties?.roleName;
  return { ...base, ...(typeof roleName === "string" ? { roleName } : {}), grantsKeyUse: true };
}

/** The scope an assignment's id is under (`{scope}/providers/Microsoft.Authorization/roleAssignments/{name}`). */
function scopeOfAssignmentId(id: string): string {
  const at = id.toLowerCase().lastIndexOf("/providers/microsoft.authorization/roleassignments/");
  return at <= 0 ? "/" : id.slice(0, at);
}
