/**
 * Types of Azure role-based access control (Microsoft.Authorization) at api-version 2022-04-01,
 * from specs/authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/
 * (authorization-RoleAssignmentsCalls.json, authorization-RoleDefinitionsCalls.json). Only what
 * the read operations return is modelled; objects are typed as they travel on the wire, every field
 * optional but `id`, with an index signature and open enums (real answers add fields and values).
 */

/** The role assignments document (RoleAssignments_ListForScope). */
export const ROLE_ASSIGNMENTS_SPEC =
  "authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/authorization-RoleAssignmentsCalls.json";
/** The role definitions document (RoleDefinitions_GetById). */
export const ROLE_DEFINITIONS_SPEC =
  "authorization/resource-manager/Microsoft.Authorization/stable/2022-04-01/authorization-RoleDefinitionsCalls.json";
/** The api-version the client sends and the emulator serves: the spec folder's. */
export const AUTHORIZATION_API_VERSION = "2022-04-01";

/** The spec's operationIds: the operation names in errors and logs. */
export const AUTHORIZATION_OPERATIONS = {
  listRoleAssignmentsForScope: "RoleAssignments_ListForScope",
  getRoleDefinitionById: "RoleDefinitions_GetById",
} as const;

/** The namespace in request paths and ids (always the real spelling). */
export const AUTHORIZATION_NAMESPACE = "Microsoft.Authorization";

type Open<T extends string> = T | (string & {});

/** `RoleAssignmentProperties` (what is read of it). */
export interface RoleAssignmentProperties {
  /** The scope the role is assigned at: a subscription, resource group or resource id (`/` for the tenant root). */
  scope?: string;
  /** The role's id: `/subscriptions/{sub}/providers/Microsoft.Authorization/roleDefinitions/{guid}` (or without the subscription). */
  roleDefinitionId?: string;
  principalId?: string;
  principalType?: Open<"User" | "Group" | "ServicePrincipal" | "ForeignGroup" | "Device">;
  description?: string;
  /** An ABAC condition that narrows the assignment (e.g. to one key), when set. */
  condition?: string;
  conditionVersion?: string;
  [extra: string]: unknown;
}

/** `RoleAssignment` */
export interface RoleAssignment {
  id: string;
  name?: string;
  type?: string;
  properties?: RoleAssignmentProperties;
  [extra: string]: unknown;
}

/** `Permission`: what a role allows (`actions` on the control plane, `dataActions` on the data plane), wildcards allowed. */
export interface Permission {
  actions?: string[];
  notActions?: string[];
  dataActions?: string[];
  notDataActions?: string[];
  [extra: string]: unknown;
}

/** `RoleDefinitionProperties` */
export interface RoleDefinitionProperties {
  roleName?: string;
  description?: string;
  /** `BuiltInRole` or `CustomRole`. */
  type?: Open<"BuiltInRole" | "CustomRole">;
  permissions?: Permission[];
  assignableScopes?: string[];
  [extra: string]: unknown;
}

/** `RoleDefinition` */
export interface RoleDefinition {
  id: string;
  name?: string;
  type?: string;
  properties?: RoleDefinitionProperties;
  [extra: string]: unknown;
}
