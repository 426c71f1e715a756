import { ArmClient, collect, type ArmClientOptions, type ArmOperation, type ArmRead } from "../../platform/arm/arm-client";
import {
  AUTHORIZATION_API_VERSION,
  AUTHORIZATION_NAMESPACE,
  AUTHORIZATION_OPERATIONS,
  ROLE_ASSIGNMENTS_SPEC,
  ROLE_DEFINITIONS_SPEC,
  type RoleAssignment,
  type RoleDefinition,
} from "./types";

const op = (id: string, definition: string): ArmOperation => ({ id, schema: `/definitions/${definition}` });

class RoleAssignmentsClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: AUTHORIZATION_API_VERSION, spec: ROLE_ASSIGNMENTS_SPEC });
  }

  forScope(scope: string, signal?: AbortSignal): AsyncGenerator<RoleAssignment[], void, undefined> {
    return this.pages(op(AUTHORIZATION_OPERATIONS.listRoleAssignmentsForScope, "RoleAssignment"), roleAssignmentsPath(scope), {
      target: { label: `role assignments of scope '${scope}'`, names: [scope.split("/").pop() ?? scope] },
      signal,
    });
  }
}

class RoleDefinitionsClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: AUTHORIZATION_API_VERSION, spec: ROLE_DEFINITIONS_SPEC });
  }

  read(roleId: string, signal?: AbortSignal): Promise<ArmRead<RoleDefinition>> {
    return this.singleRead(op(AUTHORIZATION_OPERATIONS.getRoleDefinitionById, "RoleDefinition"), roleId, {
      target: {
        label: `role definition '${roleId}'`,
        names: [roleId.split("/").pop() ?? roleId],
        hint: "The role may have been deleted (a custom role) while an assignment still names it.",
      },
      signal,
    });
  }
}

/** `{scope}/providers/Microsoft.Authorization/roleAssignments` (the scope without a trailing slash). */
export function roleAssignmentsPath(scope: string): string {
  return `${scope.replace(/\/+$/, "")}/providers/${AUTHORIZATION_NAMESPACE}/roleAssignments`;
}

/**
 * A read-only client for Azure RBAC (Microsoft.Authorization, api-version 2022-04-01): the role
 * assignments that apply to a scope and the role definitions they name. Requests follow the spec;
 * answers are checked against it to learn and handed on unchanged; lists follow `nextLink`.
 */
export class AuthorizationClient {
  private readonly assignments: RoleAssignmentsClient;
  private readonly definitions: RoleDefinitionsClient;

  constructor(opts: ArmClientOptions) {
    this.assignments = new RoleAssignmentsClient(opts);
    this.definitions = new RoleDefinitionsClient(opts);
  }

  /**
   * RoleAssignments_ListForScope without `$filter`: every assignment that applies to the scope,
   * those at it, above it (its resource group, subscription, management groups, root) and below it
   * (a vault's keys). One list per vault thus shows every assignment that can grant use of its keys.
   */
  listRoleAssignmentsForScope(scope: string, signal?: AbortSignal): Promise<RoleAssignment[]> {
    return collect(this.assignments.forScope(scope, signal));
  }

  /** RoleDefinitions_GetById: a role by the id an assignment names, with the read's receipt. */
  readRoleDefinition(roleDefinitionId: string, signal?: AbortSignal): Promise<ArmRead<RoleDefinition>> {
    return this.definitions.read(roleDefinitionId, signal);
  }
}
