/** A built-in role: its GUID, name, description and permissions. */
export interface BuiltInRole {
  name: string;
  roleName: string;
  description: string;
  actions: string[];
  dataActions: string[];
}

/**
 * The built-in roles the emulator knows, as Azure defines them (id, name, permissions): every
 * tenant has them, so a seed assigns them by GUID without declaring them.
 * - Key Vault Crypto Service Encryption User, e147488a-f6f5-4113-8e2d-b22465e65bf6: the role
 *   Microsoft's page on customer-managed TDE names for a server on an RBAC vault; its definition as
 *   Azure returns it (azure-rbac-catalog.org and AzAdvertizer copies of `az role definition list`):
 *   actions Microsoft.EventGrid/eventSubscriptions/write, read, delete; data actions
 *   Microsoft.KeyVault/vaults/keys/read, keys/wrap/action, keys/unwrap/action.
 * - Reader, acdd72a7-3385-48ef-bd42-f606fba81ae7: actions `*\/read`, no data actions (what the
 *   identity that runs stackwarden needs; a server holding only it cannot use a key).
 */
export const BUILT_IN_ROLES: readonly BuiltInRole[] = [
  {
    name: "e147488a-f6f5-4113-8e2d-b22465e65bf6",
    roleName: "Key Vault Crypto Service Encryption User",
    description:
      "Read metadata of keys and perform wrap/unwrap operations. Only works for key vaults that use the 'Azure role-based access control' permission model.",
    actions: [
      "Microsoft.EventGrid/eventSubscriptions/write",
      "Microsoft.EventGrid/eventSubscriptions/read",
      "Microsoft.EventGrid/eventSubscriptions/delete",
    ],
    dataActions: [
      "Microsoft.KeyVault/vaults/keys/read",
      "Microsoft.KeyVault/vaults/keys/wrap/action",
      "Microsoft.KeyVault/vaults/keys/unwrap/action",
    ],
  },
  {
    name: "acdd72a7-3385-48ef-bd42-f606fba81ae7",
    roleName: "Reader",
    description: "View all resources, but does not allow you to make any changes.",
    actions: ["*/read"],
    dataActions: [],
  },
];
