import { Type, type Static } from "../../kit/seed-types";

/**
 * The emulator seed's `authorization:` section (Azure RBAC: role assignments and custom role
 * definitions), each part declared once: its JSON Schema and its TypeScript type come from the same
 * declaration (kit/seed-types.ts). Built-in roles need no seed (built-in-roles.ts).
 */

export const DEFAULT_SUBSCRIPTION_ID = "00000000-0000-0000-0000-000000000000";

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
/** A subscription, resource group or resource id (ARM scope), or `/` for the tenant root. */
const SCOPE = "^(/|/subscriptions/[^/]+(/resourceGroups/[^/]+(/providers/[^/]+(/[^/]+/[^/]+)+)?)?)$";
const uuid = (description: string) => Type.String({ pattern: UUID, description });
const scope = (description: string) => Type.String({ pattern: SCOPE, description });
const actions = (what: string) =>
  Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      description: `Optional: ${what} (\`*\` matches any run of characters, e.g. Microsoft.KeyVault/vaults/keys/*). Default: none.`,
    }),
  );

const roleDefinitionSeed = Type.Object(
  {
    name: uuid("Required: the role's GUID, unique, and not a built-in role's."),
    roleName: Type.String({ minLength: 1, description: "Required: properties.roleName." }),
    description: Type.Optional(Type.String({ description: "Optional: properties.description." })),
    subscriptionId: Type.Optional(
      uuid("Optional: the subscription the role is defined in (its id and assignable scope). Default: authorization.subscriptionId."),
    ),
    actions: actions("control-plane actions"),
    notActions: actions("control-plane actions taken away"),
    dataActions: actions("data actions"),
    notDataActions: actions("data actions taken away"),
  },
  { description: "A custom role (RoleDefinitions_GetById answers it; assignments name it by its GUID)." },
);
export type RoleDefinitionSeed = Static<typeof roleDefinitionSeed>;

const roleAssignmentSeed = Type.Object(
  {
    scope: scope(
      "Required: where the role is assigned: /subscriptions/<id>, …/resourceGroups/<rg>, a resource id (a vault, a vault's key), or /.",
    ),
    principalId: uuid("Required: the principal's object id (a server's identity principalId)."),
    roleDefinitionId: uuid(
      "Required: the role's GUID: a built-in role (e147488a-f6f5-4113-8e2d-b22465e65bf6 Key Vault Crypto Service Encryption User, acdd72a7-3385-48ef-bd42-f606fba81ae7 Reader) or one of authorization.roleDefinitions.",
    ),
    principalType: Type.Optional(
      Type.Enum(["User", "Group", "ServicePrincipal", "ForeignGroup", "Device"], {
        description: "Optional. Default ServicePrincipal (a managed identity is one).",
      }),
    ),
    name: Type.Optional(uuid("Optional: the assignment's GUID. Default: derived from scope, principal and role (stable).")),
    condition: Type.Optional(
      Type.String({ minLength: 1, description: "Optional: an ABAC condition (properties.condition, conditionVersion 2.0)." }),
    ),
  },
  { description: "A role assignment (RoleAssignments_ListForScope lists it at, above and below its scope)." },
);
export type RoleAssignmentSeed = Static<typeof roleAssignmentSeed>;

/** The `authorization:` section's schema. */
export const authorizationSeedSchema = Type.Object(
  {
    subscriptionId: Type.Optional(uuid(`Optional: the subscription of custom roles that name none. Default ${DEFAULT_SUBSCRIPTION_ID}.`)),
    roleDefinitions: Type.Optional(Type.Array(roleDefinitionSeed, { description: "Optional: custom roles. Default: none." })),
    roleAssignments: Type.Optional(Type.Array(roleAssignmentSeed, { description: "Optional. Default: none." })),
    listDeniedScopes: Type.Optional(
      Type.Array(scope("A scope"), {
        description:
          "Optional: scopes at or under which listing role assignments answers 403 AuthorizationFailed (no Microsoft.Authorization/roleAssignments/read). Default: none.",
      }),
    ),
  },
  {
    description:
      "Azure RBAC as the emulator serves it (Microsoft.Authorization 2022-04-01, read-only): role assignments listed at a scope (RoleAssignments_ListForScope, with $filter=atScope(), principalId eq '<id>' or assignedTo('<id>')) and role definitions by id (RoleDefinitions_GetById), built-in ones included.",
  },
);
/** The `authorization:` section of a seed. */
export type AuthorizationSeed = Static<typeof authorizationSeedSchema>;
