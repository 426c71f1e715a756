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

/** The principal that reaches the key, or why there is none. */
export type KeyPrincipal =
  { principalId: string; tenantId?: string; describe: string; problem?: undefined } | { principalId?: undefined; problem: string };

/** Whether the identity type names a system-assigned / user-assigned identity (Azure compares enums without regard to case). */
function hasKind(type: string, kind: "systemassigned" | "userassigned"): boolean {
  return type
    .toLowerCase()
    .split(",")
    .map((t) => t.trim())
    .includes(kind);
}

/** The principal the owner uses for its key: the user-assigned one it names, else its system-assigned one. */
export function keyPrincipalOf(identity: ManagedIdentity): KeyPrincipal {
  const type = identity.type || "None";
  if (identity.keyIdentityId) {
    const entry = Object.entries(identity.userAssignedIdentities ?? {}).find(
      ([id]) => id.toLowerCase() === identity.keyIdentityId!.toLowerCase(),
    );
    if (!entry || !hasKind(type, "userassigned"))
      return { problem: `it names the user-assigned identity ${identity.keyIdentityId} for its key, but does not hold it` };
    if (!entry[1].principalId) return { problem: `its user-assigned identity ${identity.keyIdentityId} reports no principal id` };
    return { principalId: entry[1].principalId, describe: `user-assigned identity ${lastSegment(identity.keyIdentityId)}` };
  }
  if (hasKind(type, "systemassigned")) {
    if (!identity.principalId) return { problem: "its system-assigned identity reports no principal id" };
    return {
      principalId: identity.principalId,
      ...(identity.tenantId ? { tenantId: identity.tenantId } : {}),
      describe: "system-assigned identity",
    };
  }
  if (hasKind(type, "userassigned"))
    return { problem: "it has only user-assigned identities and names none of them as primary (primaryUserAssignedIdentityId)" };
  return { problem: "it has no managed identity (identity type None)" };
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

function lastSegment(id: string): string {
  return id.split("/").filter(Boolean).pop() ?? id;
}
