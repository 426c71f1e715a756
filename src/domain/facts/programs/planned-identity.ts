import { UNKNOWN, type Maybe } from "../../../platform/unknown-value";
import { managedIdentityOf, type ManagedIdentity } from "../managed-identity";
import { hasUnknown } from "./program-resources";

/**
 * The identity a server the program creates will reach its key with. Azure gives an identity its
 * principal id when it creates it, so a planned identity that will have one (system-assigned, or
 * the user-assigned one named for the key) and does not yet is UNKNOWN: judged once known, never
 * passed nor failed before. One that will have none (type None, a primary it does not hold) is
 * returned as it is, for `tde-key-access` to fail.
 */
export function plannedIdentity(identity: unknown, keyIdentityId: unknown): Maybe<ManagedIdentity> {
  if (hasUnknown(identity) || keyIdentityId === UNKNOWN) return UNKNOWN;
  const raw = identity && typeof identity === "object" ? (identity as Record<string, unknown>) : undefined;
  // azure-native takes user-assigned identities as a list of ids; Resource Manager answers a map by id.
  const users = Array.isArray(raw?.userAssignedIdentities)
    ? Object.fromEntries((raw.userAssignedIdentities as unknown[]).filter((x) => typeof x === "string").map((id) => [id, {}]))
    : raw?.userAssignedIdentities;
  const mi = managedIdentityOf(raw ? { ...raw, userAssignedIdentities: users } : undefined, keyIdentityId);
  const kinds = mi.type
    .toLowerCase()
    .split(",")
    .map((t) => t.trim());
  if (mi.keyIdentityId) {
    const held = Object.entries(mi.userAssignedIdentities ?? {}).find(([id]) => id.toLowerCase() === mi.keyIdentityId!.toLowerCase());
    return held && kinds.includes("userassigned") && !held[1].principalId ? UNKNOWN : mi;
  }
  return kinds.includes("systemassigned") && !mi.principalId ? UNKNOWN : mi;
}
