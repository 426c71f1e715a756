import type { ArmClientOptions, ArmRead } from "../../platform/arm/arm-client";
import { ArmOperations } from "../../platform/arm/arm-operations";
import { AUTHORIZATION_OPERATIONS_TABLE } from "./operations";
import type { RoleAssignment, RoleDefinition } from "./types";

/**
 * A read-only client for Azure RBAC (Microsoft.Authorization, api-version 2022-04-01): the role
 * assignments that apply to a scope and the role definitions they name. Each method sends one row
 * of the authorization operation table (operations.ts); answers are checked against its document
 * to learn and handed on unchanged; lists follow `nextLink`.
 */
export class AuthorizationClient {
  private readonly ops: ArmOperations<typeof AUTHORIZATION_OPERATIONS_TABLE>;

  constructor(opts: ArmClientOptions) {
    this.ops = new ArmOperations(opts, AUTHORIZATION_OPERATIONS_TABLE);
  }

  /**
   * RoleAssignments_ListForScope without `$filter`: every assignment that applies to the scope,
   * those at it, above it (its resource group, subscription, management groups, root) and below it
   * (a vault's keys). One list per vault thus shows every assignment that can grant use of its keys.
   */
  listRoleAssignmentsForScope(scope: string, signal?: AbortSignal): Promise<RoleAssignment[]> {
    return this.ops.get("RoleAssignments_ListForScope", { scope }, signal);
  }

  /** RoleDefinitions_GetById: a role by the id an assignment names, with the read's receipt. */
  readRoleDefinition(roleDefinitionId: string, signal?: AbortSignal): Promise<ArmRead<RoleDefinition>> {
    return this.ops.read("RoleDefinitions_GetById", { roleId: roleDefinitionId }, signal);
  }
}
