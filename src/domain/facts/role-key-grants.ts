import type { Permission } from "../../services/authorization/types";

/**
 * The data actions Azure SQL needs on its TDE protector key in a vault that uses Azure RBAC: read
 * the key (get), wrap and unwrap the database encryption keys with it. They are the data actions of
 * the built-in role "Key Vault Crypto Service Encryption User" (e147488a-f6f5-4113-8e2d-b22465e65bf6),
 * which Microsoft's page on customer-managed TDE names for RBAC vaults.
 */
export const KEY_USE_DATA_ACTIONS = [
  "Microsoft.KeyVault/vaults/keys/read",
  "Microsoft.KeyVault/vaults/keys/wrap/action",
  "Microsoft.KeyVault/vaults/keys/unwrap/action",
] as const;

/** Whether an action pattern (`*` matches any run of characters; case-insensitive, as Azure compares them) matches an action. */
export function actionMatches(pattern: string, action: string): boolean {
  const re = new RegExp(`^${pattern.split("*").map(escapeRegExp).join(".*")}$`, "i");
  return re.test(action);
}

/**
 * The key-use data actions a role's permissions grant: an action counts when one permission block
 * allows it in `dataActions` and the same block's `notDataActions` do not take it away (Azure
 * subtracts within a block, then unites the blocks).
 */
export function grantedKeyUse(permissions: readonly Permission[] | undefined): string[] {
  return KEY_USE_DATA_ACTIONS.filter((action) =>
    (permissions ?? []).some(
      (p) => (p.dataActions ?? []).some((a) => actionMatches(a, action)) && !(p.notDataActions ?? []).some((a) => actionMatches(a, action)),
    ),
  );
}

function escapeRegExp(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}
