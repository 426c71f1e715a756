import type { DatabaseRef, ServerRef, WorkspaceRef } from "../../platform/arm/resource-id";
import type { ManagedHsmRef } from "../../services/keyvault/managed-hsm-types";
import type { VaultRef } from "../../services/keyvault/types";

/**
 * The path parameters of the reads the kinds share, as the specs name them (what `FactReads.read`
 * takes), from the references the stack and the facts use.
 */

/** A SQL server's: `{ subscriptionId, resourceGroupName, serverName }`. */
export function serverParamsOf(s: ServerRef): { subscriptionId: string; resourceGroupName: string; serverName: string } {
  return { subscriptionId: s.subscriptionId, resourceGroupName: s.resourceGroup, serverName: s.server };
}

/** A SQL database's: the server's and `databaseName`. */
export function databaseParamsOf(d: DatabaseRef): {
  subscriptionId: string;
  resourceGroupName: string;
  serverName: string;
  databaseName: string;
} {
  return { subscriptionId: d.subscriptionId, resourceGroupName: d.resourceGroup, serverName: d.server, databaseName: d.database };
}

/** A Key Vault's: `{ subscriptionId, resourceGroupName, vaultName }`. */
export function vaultParamsOf(v: VaultRef): { subscriptionId: string; resourceGroupName: string; vaultName: string } {
  return { subscriptionId: v.subscriptionId, resourceGroupName: v.resourceGroup, vaultName: v.vault };
}

/** A Managed HSM's: `{ subscriptionId, resourceGroupName, name }`. */
export function managedHsmParamsOf(h: ManagedHsmRef): { subscriptionId: string; resourceGroupName: string; name: string } {
  return { subscriptionId: h.subscriptionId, resourceGroupName: h.resourceGroup, name: h.hsm };
}

/** A Batch AI workspace's: `{ subscriptionId, resourceGroupName, workspaceName }`. */
export function workspaceParamsOf(w: WorkspaceRef): { subscriptionId: string; resourceGroupName: string; workspaceName: string } {
  return { subscriptionId: w.subscriptionId, resourceGroupName: w.resourceGroup, workspaceName: w.workspace };
}
