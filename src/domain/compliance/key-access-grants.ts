import type { FactMap } from "../facts/model/compliance-facts";

type ManagedIdentity = NonNullable<FactMap["tdeProtectors"]["identity"]>;

/**
 * What `tde-key-access` asks of an identity and an access policy, pure: which principal reaches the
 * key (the user-assigned identity the owner names, else its system-assigned one) and which of the
 * key permissions Azure SQL needs a policy lacks.
 */

/** What Azure SQL needs of a vault access policy on its key: get, wrapKey and unwrapKey (key permissions). */
export const KEY_USE_PERMISSIONS = ["get", "wrapKey", "unwrapKey"] as const;

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

/** The key permissions of an access policy missing among get, wrapKey and unwrapKey (`all` grants them all). */
export function missingKeyPermissions(keys: readonly string[]): string[] {
  const have = new Set(keys.map((k) => k.toLowerCase()));
  if (have.has("all")) return [];
  return KEY_USE_PERMISSIONS.filter((k) => !have.has(k.toLowerCase()));
}

function lastSegment(id: string): string {
  return id.split("/").filter(Boolean).pop() ?? id;
}
