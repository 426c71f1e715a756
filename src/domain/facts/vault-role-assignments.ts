import { mapBounded } from "../../platform/bounded-map";
import { UNKNOWN } from "../../platform/unknown-value";
import type { RoleAssignment, RoleDefinition } from "../../services/authorization/types";
import { keyVaultId, vaultRefOf } from "../../services/keyvault/vault-ids";
import type { FactOrigin } from "./model/compliance-facts";
import { resourcesOf } from "./carrier";
import { defineDataSource } from "./data-source";
import { defineFactKind, type GatherContext } from "./fact-kind";
import {
  customerKeysOf,
  locateVaultShared,
  readVaultOnce,
  searchedSubscriptions,
  searchInputOf,
  SEARCH_SUBSCRIPTIONS,
  unlistedVaultId,
  unlistedVaultRef,
  vaultNotListed,
  vaultSubscriptions,
} from "./key-custody-reads";
import { protectorKeysOfStack, protectorsOfOutputs } from "./database-protectors";
import { sqlDatabase } from "./sql-database-source";
import { listRoleAssignmentsOnce, readRoleDefinitionOnce } from "./key-access-reads";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { grantedKeyUse, KEY_USE_DATA_ACTIONS } from "./role-key-grants";
import { vaultParamsOf } from "./read-params";
import { encryptionProtector } from "./tde-protectors";

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
 * What the role-assignment data source reads for a vault (RoleAssignments_ListForScope at its
 * scope, RoleDefinitions_GetById of each role it names): the listed assignments and the roles as
 * the API returned them, with the roles that could not be read. Absent for a vault that does not
 * use RBAC (`enableRbacAuthorization` false: nothing is listed).
 */
export interface VaultRoleAssignmentsRead {
  vaultId: string;
  enableRbacAuthorization: boolean;
  assignments?: RoleAssignment[];
  roleDefinitions?: RoleDefinition[];
  roleReadErrors?: Record<string, ReadFailure>;
  /** The list was refused (403) or its scope not found (404). */
  listError?: ReadFailure;
}

/**
 * The role assignments that apply to each RBAC vault of the stack's customer-managed TDE protectors,
 * as a data source (the policy pack's view): the vault found by name in the subscription's listing
 * and read, then, when it uses RBAC, one unfiltered list at its scope and one read per distinct role.
 */
export const vaultRoleAssignmentsSource = defineDataSource({
  token: "authorization:VaultRoleAssignments",
  title: "the role assignments of the Key Vault of a customer-managed TDE protector",
  inputs: ["subscriptionId", "vault"],
  optional: [SEARCH_SUBSCRIPTIONS],
  output: "roleAssignments",
  unreadable: "reported",
  read: async (c, i) => {
    const subs = searchedSubscriptions(i);
    const ref = await locateVaultShared(c, subs, i.vault);
    const id = ref ? keyVaultId(ref) : unlistedVaultId(i.subscriptionId, i.vault);
    if (!ref) return { id, readError: vaultNotListed(subs, i.vault) };
    const vault = await readOrFailure(c.reads, async () => (await c.reads.read("Vaults_Get", vaultParamsOf(ref))).value);
    if (vault.readError) return { id, readError: vault.readError };
    if (vault.value.properties?.enableRbacAuthorization !== true) return { id, value: { vaultId: id, enableRbacAuthorization: false } };
    const listed = await readOrFailure(c.reads, async () => (await c.reads.read("RoleAssignments_ListForScope", { scope: id })).value);
    // The vault was read and uses RBAC, but its assignments cannot be listed: tde-key-access's finding, with the status.
    if (listed.readError) return { id, value: { vaultId: id, enableRbacAuthorization: true, listError: listed.readError } };
    const roleIds = [...new Set(listed.value.flatMap((a) => (a.properties?.roleDefinitionId ? [a.properties.roleDefinitionId] : [])))];
    const roles = await Promise.all(
      roleIds.map(async (r) => ({ r, read: await readOrFailure(c.reads, () => c.reads.read("RoleDefinitions_GetById", { roleId: r })) })),
    );
    const value: VaultRoleAssignmentsRead = {
      vaultId: id,
      enableRbacAuthorization: true,
      assignments: listed.value,
      roleDefinitions: roles.flatMap(({ read }) => (read.value ? [read.value.value] : [])),
      roleReadErrors: Object.fromEntries(roles.flatMap(({ r, read }) => (read.readError ? [[r, read.readError]] : []))),
    };
    return { id, value };
  },
  inputsFromId: (id) => {
    const ref = vaultRefOf(id) ?? unlistedVaultRef(id);
    return ref ? { subscriptionId: ref.subscriptionId, vault: ref.vault } : undefined;
  },
  follows: {
    source: encryptionProtector,
    also: [sqlDatabase],
    instances: (protectors, stack) => {
      const vaults = new Set(customerKeysOf(protectorsOfOutputs(protectors)).map(({ key }) => key.vaultName));
      return [...vaults].map((vault) => ({
        name: `role-assignments-${vault}`,
        inputs: { subscriptionId: stack.subscriptionId, vault, ...searchInputOf(stack) },
      }));
    },
  },
});

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
  carrier: vaultRoleAssignmentsSource,
  gather: async (ctx) => {
    const subs = vaultSubscriptions(ctx.stack);
    const names = [...new Set((await protectorKeysOfStack(ctx)).map((k) => k.key.vaultName))];
    const facts = await mapBounded(names, ctx.concurrency, async (name) => {
      const vault = await readVaultOnce(ctx, subs, name);
      if (vault.failure || vault.read.value.properties?.enableRbacAuthorization !== true || !vault.read.value.id) return undefined;
      // Where the vault was found: the stack's subscription, or one of stackwarden:keyVaultSubscriptions.
      return gatheredFactsOf(ctx, name, vaultRefOf(vault.read.value.id)?.subscriptionId ?? subs[0], vault.read.value.id);
    });
    return facts.filter((f): f is VaultRoleAssignmentFacts => f !== undefined);
  },
  fromResources: (resources, ctx) =>
    resourcesOf(vaultRoleAssignmentsSource, resources).flatMap((r) => {
      const p = r.props;
      const read = ctx.known(() => p.roleAssignments as VaultRoleAssignmentsRead | undefined);
      const failure = ctx.known(() => p.readError as ReadFailure | undefined);
      // Not read yet (a preview), or a vault without RBAC, or one whose vault cannot be read (keyVaults reports it): no facts.
      if (read === UNKNOWN || failure === UNKNOWN || failure || !read?.enableRbacAuthorization) return [];
      const base = {
        vaultName: String(p.vault).toLowerCase(),
        subscriptionId: String(p.subscriptionId),
        vaultId: read.vaultId,
        origin: r.urn,
      };
      if (read.listError) return [{ ...base, assignments: [], listed: 0, readFailure: read.listError }];
      const roles = new Map((read.roleDefinitions ?? []).map((d) => [d.id.toLowerCase(), d]));
      const roleOf = (id: string) => {
        const role = roles.get(id.toLowerCase());
        return role ? { role } : { failure: read.roleReadErrors?.[id] ?? notRead(id) };
      };
      const assignments = read.assignments ?? [];
      return [{ ...base, assignments: compact(assignments, roleOf), listed: assignments.length }];
    }),
});

async function gatheredFactsOf(
  ctx: GatherContext,
  vaultName: string,
  subscriptionId: string,
  vaultId: string,
): Promise<VaultRoleAssignmentFacts> {
  const base = { vaultName: vaultName.toLowerCase(), subscriptionId, vaultId };
  const listed = await listRoleAssignmentsOnce(ctx, vaultId);
  if (listed.failure) return { ...base, assignments: [], listed: 0, readFailure: listed.failure };
  const ids = [...new Set(listed.assignments.flatMap((a) => (a.properties?.roleDefinitionId ? [a.properties.roleDefinitionId] : [])))];
  const read = new Map(await mapBounded(ids, ctx.concurrency, async (id) => [id, await readRoleDefinitionOnce(ctx, id)] as const));
  return { ...base, assignments: compact(listed.assignments, (id) => read.get(id)!), listed: listed.assignments.length };
}

type RoleOutcome = { role: RoleDefinition; failure?: undefined } | { role?: undefined; failure: ReadFailure };

/** The assignments as the rule needs them: those whose role grants key use, or whose role could not be read. */
function compact(assignments: readonly RoleAssignment[], roleOf: (id: string) => RoleOutcome): KeyRoleAssignment[] {
  return assignments.flatMap((a): KeyRoleAssignment[] => {
    const p = a.properties ?? {};
    if (typeof p.principalId !== "string" || typeof p.roleDefinitionId !== "string") return [];
    const scope = typeof p.scope === "string" ? p.scope : scopeOfAssignmentId(a.id);
    const base = { principalId: p.principalId, scope, roleDefinitionId: p.roleDefinitionId, ...(p.condition ? { conditional: true } : {}) };
    const role = roleOf(p.roleDefinitionId);
    if (role.failure) return [{ ...base, grantsKeyUse: false, roleReadFailure: role.failure }];
    if (grantedKeyUse(role.role.properties?.permissions).length !== KEY_USE_DATA_ACTIONS.length) return [];
    const roleName = role.role.properties?.roleName;
    return [{ ...base, ...(typeof roleName === "string" ? { roleName } : {}), grantsKeyUse: true }];
  });
}

function notRead(id: string): ReadFailure {
  return { code: "NotRead", message: `the role ${id} was not read`, readAt: new Date().toISOString() };
}

/** The scope an assignment's id is under (`{scope}/providers/Microsoft.Authorization/roleAssignments/{name}`). */
function scopeOfAssignmentId(id: string): string {
  const at = id.toLowerCase().lastIndexOf("/providers/microsoft.authorization/roleassignments/");
  return at <= 0 ? "/" : id.slice(0, at);
}
