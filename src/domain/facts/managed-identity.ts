import type { ReadFailure } from "./read-failure";

/**
 * The managed identity the owner of a TDE protector (a SQL server, or a database with its own
 * protector) uses to reach its key in Key Vault, as `tde-key-access` judges it. Azure SQL reaches
 * the key as one identity: a server's user-assigned identity named by
 * `properties.primaryUserAssignedIdentityId` when it has one, else its system-assigned identity
 * (Microsoft's "Azure SQL transparent data encryption with customer-managed key" page,
 * learn.microsoft.com/azure/azure-sql/database/transparent-data-encryption-byok-overview).
 */
export interface ManagedIdentity {
  /** `None`, `SystemAssigned`, `UserAssigned`, `SystemAssigned,UserAssigned` (open: a new value is carried through). */
  type: string;
  /** The system-assigned identity's principal (object) id. */
  principalId?: string;
  tenantId?: string;
  /** The user-assigned identities the owner holds, by resource id. */
  userAssignedIdentities?: Record<string, { principalId?: string; clientId?: string }>;
  /** The user-assigned identity used for the key (a server's `primaryUserAssignedIdentityId`); absent: the system-assigned one. */
  keyIdentityId?: string;
  /** The owner (and so its identity) could not be read (403, 404). */
  readFailure?: ReadFailure;
}

/** The identity of a resource's `identity` block (Servers_Get, Databases_Get) and the user-assigned id it uses for its key. */
export function managedIdentityOf(
  identity: { type?: unknown; principalId?: unknown; tenantId?: unknown; userAssignedIdentities?: unknown } | undefined,
  keyIdentityId: unknown,
): ManagedIdentity {
  const users: Record<string, { principalId?: string; clientId?: string }> = {};
  const raw = identity?.userAssignedIdentities;
  if (raw && typeof raw === "object") {
    for (const [id, v] of Object.entries(raw as Record<string, { principalId?: unknown; clientId?: unknown } | null>)) {
      users[id] = {
        ...(typeof v?.principalId === "string" ? { principalId: v.principalId } : {}),
        ...(typeof v?.clientId === "string" ? { clientId: v.clientId } : {}),
      };
    }
  }
  return {
    type: typeof identity?.type === "string" && identity.type ? identity.type : "None",
    ...(typeof identity?.principalId === "string" ? { principalId: identity.principalId } : {}),
    ...(typeof identity?.tenantId === "string" ? { tenantId: identity.tenantId } : {}),
    ...(Object.keys(users).length ? { userAssignedIdentities: users } : {}),
    ...(typeof keyIdentityId === "string" && keyIdentityId ? { keyIdentityId } : {}),
  };
}
