import { answer, defineArmOperations } from "../../platform/arm/arm-operation";
import { AUTHORIZATION_API_VERSION, ROLE_ASSIGNMENTS_SPEC, ROLE_DEFINITIONS_SPEC, type RoleAssignment, type RoleDefinition } from "./types";

/** The last segment of a scope or id: what a 404's message names. */
const leaf = (path: string): string => path.split("/").pop() ?? path;

/**
 * The Azure RBAC operations stackwarden reads (Microsoft.Authorization 2022-04-01), one row each
 * (see src/platform/arm/arm-operation.ts). Both take a scope or id that is itself a path, sent as
 * it is (`x-ms-skip-url-encoding`).
 */
export const AUTHORIZATION_OPERATIONS_TABLE = defineArmOperations({
  RoleAssignments_ListForScope: {
    apiVersion: AUTHORIZATION_API_VERSION,
    spec: ROLE_ASSIGNMENTS_SPEC,
    path: "/{scope}/providers/Microsoft.Authorization/roleAssignments",
    unencoded: ["scope"],
    schema: "/definitions/RoleAssignment",
    list: true,
    target: (p) => ({ label: `role assignments of scope '${p.scope}'`, names: [leaf(p.scope)] }),
    answer: answer<RoleAssignment>(),
  },
  RoleDefinitions_GetById: {
    apiVersion: AUTHORIZATION_API_VERSION,
    spec: ROLE_DEFINITIONS_SPEC,
    path: "/{roleId}?disambiguation_dummy",
    unencoded: ["roleId"],
    schema: "/definitions/RoleDefinition",
    target: (p) => ({
      label: `role definition '${p.roleId}'`,
      names: [leaf(p.roleId)],
      hint: "The role may have been deleted (a custom role) while an assignment still names it.",
    }),
    answer: answer<RoleDefinition>(),
  },
});
