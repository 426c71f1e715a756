import type { ReadReceipt } from "../../platform/arm/arm-read";
import type { ServerRef } from "../../platform/arm/resource-id";
import type { RoleAssignment, RoleDefinition } from "../../services/authorization/types";
import type { GatherContext } from "./fact-kind";
import { managedIdentityOf, type ManagedIdentity } from "./managed-identity";
import { readOrFailure, type ReadFailure } from "./read-failure";
import { serverParamsOf } from "./read-params";

/**
 * The reads `tde-key-access` adds to key custody, each once per gathering through `ctx.once`: a
 * server's identity (Servers_Get at 2021-11-01, once per server with a customer-managed protector),
 * the role assignments that apply to an RBAC vault (RoleAssignments_ListForScope at the vault's
 * scope, once per vault) and each role they name (RoleDefinitions_GetById, once per distinct role).
 *
 * Why one unfiltered list at the vault's scope: Azure answers it with every assignment at the
 * vault, above it (resource group, subscription, management groups) and below it (its keys), so one
 * request per vault covers every scope a grant can come from. `$filter=atScope()` would leave out
 * assignments on a key, and `$filter=principalId eq '…'` would cost one list per identity and vault.
 */

/**
 * The identity a SQL server uses for its customer-managed key (a failure inside when the server
 * cannot be read), with the receipt of the read for the evidence.
 */
export function readServerIdentityOnce(
  ctx: GatherContext,
  server: ServerRef,
): Promise<{ identity: ManagedIdentity; receipt?: ReadReceipt }> {
  const key = `server-identity:${[server.subscriptionId, server.resourceGroup, server.server].join("/").toLowerCase()}`;
  return ctx.once(key, async () => {
    const reads = ctx.clients.reads;
    const r = await readOrFailure(reads, () => reads.read("Servers_Get", serverParamsOf(server), ctx.signal));
    if (r.readError) return { identity: { type: "None", readFailure: r.readError } };
    const s = r.value.value;
    return { identity: managedIdentityOf(s.identity, s.properties?.primaryUserAssignedIdentityId), receipt: r.value.receipt };
  });
}

/** The role assignments that apply to a scope (a vault's ARM id), or why they could not be listed (403, 404). */
export function listRoleAssignmentsOnce(
  ctx: GatherContext,
  scope: string,
): Promise<{ assignments: RoleAssignment[]; failure?: undefined } | { assignments?: undefined; failure: ReadFailure }> {
  return ctx.once(`role-assignments:${scope.toLowerCase()}`, async () => {
    const reads = ctx.clients.reads;
    const r = await readOrFailure(reads, () => reads.read("RoleAssignments_ListForScope", { scope }, ctx.signal));
    return r.readError ? { failure: r.readError } : { assignments: r.value.value };
  });
}

/** A role by the id an assignment names, or why it could not be read. */
export function readRoleDefinitionOnce(
  ctx: GatherContext,
  roleDefinitionId: string,
): Promise<{ role: RoleDefinition; failure?: undefined } | { role?: undefined; failure: ReadFailure }> {
  return ctx.once(`role-definition:${roleDefinitionId.toLowerCase()}`, async () => {
    const reads = ctx.clients.reads;
    const r = await readOrFailure(reads, () => reads.read("RoleDefinitions_GetById", { roleId: roleDefinitionId }, ctx.signal));
    return r.readError ? { failure: r.readError } : { role: r.value.value };
  });
}
