import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import { armError, armPage } from "../../kit/arm-conventions";
import { publishedOperation } from "../../kit/published-operations";
import { AUTHORIZATION_NAMESPACE, type RoleAssignment, type RoleDefinition } from "../../../services/authorization/types";
import {
  authorizationInitialState,
  trimScope,
  within,
  type AuthorizationState,
  type RoleAssignmentState,
  type RoleDefinitionState,
} from "./authorization-state";
import { authorizationSeedSchema, type AuthorizationSeed } from "./seed-schema";

const NS = AUTHORIZATION_NAMESPACE;
const RG = "/subscriptions/:subscriptionId/resourceGroups/:resourceGroupName";

/**
 * Azure RBAC (Microsoft.Authorization, at every api-version Azure publishes for each operation, each
 * answered in its version's shape; 2022-04-01's fields are the fullest), read-only: RoleAssignments_ListForScope at a
 * subscription, resource group, resource or child resource (a vault's key) scope, and
 * RoleDefinitions_GetById for built-in and seeded custom roles. As Azure answers the list: without
 * `$filter`, the assignments at, above and below the scope; `atScope()`, at or above it;
 * `principalId eq '<id>'` and `assignedTo('<id>')`, the principal's at, above and below it.
 */
export const authorizationLocal: LocalService<AuthorizationState, AuthorizationSeed> = {
  name: "authorization",
  seedSchema: authorizationSeedSchema,
  initialState: (seed) => authorizationInitialState(seed),

  mount(ctx) {
    const op = (operationId: string) => publishedOperation("Microsoft.Authorization", operationId);
    const list = (req: EmulatorRequest) => listForScope(ctx, req);
    const assignments = `providers/${NS}/roleAssignments`;
    ctx.arm("GET", `/subscriptions/:subscriptionId/${assignments}`, op("RoleAssignments_ListForSubscription"), list);
    ctx.arm("GET", `${RG}/${assignments}`, op("RoleAssignments_ListForResourceGroup"), list);
    ctx.arm("GET", `${RG}/providers/:namespace/:type/:name/${assignments}`, op("RoleAssignments_ListForResource"), list);
    ctx.arm(
      "GET",
      `${RG}/providers/:namespace/:type/:name/:childType/:childName/${assignments}`,
      op("RoleAssignments_ListForResource"),
      list,
    );
    const get = (req: EmulatorRequest) => getRoleDefinition(ctx, req);
    ctx.arm("GET", `/subscriptions/:subscriptionId/providers/${NS}/roleDefinitions/:roleDefinitionId`, op("RoleDefinitions_Get"), get);
    ctx.arm("GET", `/providers/${NS}/roleDefinitions/:roleDefinitionId`, op("RoleDefinitions_GetById"), get);
  },
};

/** RoleAssignments_ListForScope */
function listForScope(ctx: ServiceContext<AuthorizationState>, req: EmulatorRequest): EmulatorReply {
  const scope = trimScope(req.path.slice(0, req.path.toLowerCase().lastIndexOf(`/providers/${NS.toLowerCase()}/roleassignments`)));
  const state = ctx.state();
  if (state.listDeniedScopes.some((d) => within(scope, d))) {
    return armError(
      403,
      "AuthorizationFailed",
      `The client does not have authorization to perform action 'Microsoft.Authorization/roleAssignments/read' over scope '${scope}' or the scope is invalid.`,
    );
  }
  const filter = parseFilter(req.query.get("$filter"));
  if (filter === "invalid")
    return armError(400, "InvalidFilterInQueryString", `The filter '${req.query.get("$filter")}' is not supported.`);
  const applies = (a: RoleAssignmentState) => within(scope, a.scope) || (filter.kind !== "atScope" && within(a.scope, scope));
  const found = state.roleAssignments.filter((a) => applies(a) && (filter.kind !== "principal" || a.principalId === filter.principalId));
  return armPage(
    req,
    found.map((a) => assignmentResource(a, state)),
    ctx.settings.pageSize,
  );
}

type Filter = { kind: "none" } | { kind: "atScope" } | { kind: "principal"; principalId: string };

/** The filters the spec documents (and `assignedTo`, which Azure's CLI sends); anything else is refused, as Azure does. */
function parseFilter(raw: string | null): Filter | "invalid" {
  if (raw === null || raw.trim() === "") return { kind: "none" };
  const f = raw.trim();
  if (/^atScope\(\)$/i.test(f)) return { kind: "atScope" };
  const m = /^principalId\s+eq\s+'([^']+)'$/i.exec(f) ?? /^assignedTo\('([^']+)'\)$/i.exec(f);
  return m ? { kind: "principal", principalId: m[1].toLowerCase() } : "invalid";
}

/** RoleDefinitions_GetById (a built-in role by either id; a custom role by its subscription's). */
function getRoleDefinition(ctx: ServiceContext<AuthorizationState>, req: EmulatorRequest): EmulatorReply {
  const id = req.params.roleDefinitionId.toLowerCase();
  const sub = req.params.subscriptionId;
  const role = ctx
    .state()
    .roleDefinitions.find(
      (r) => r.name === id && (r.type === "BuiltInRole" || (sub !== undefined && r.subscriptionId?.toLowerCase() === sub.toLowerCase())),
    );
  if (!role)
    return armError(
      404,
      "RoleDefinitionDoesNotExist",
      `The specified role definition with ID '${req.params.roleDefinitionId}' does not exist.`,
    );
  return { status: 200, body: roleResource(role, sub) };
}

function roleDefinitionId(role: RoleDefinitionState, subscriptionId?: string): string {
  const sub = role.subscriptionId ?? subscriptionId;
  return `${sub ? `/subscriptions/${sub}` : ""}/providers/${NS}/roleDefinitions/${role.name}`;
}

function roleResource(role: RoleDefinitionState, subscriptionId?: string): RoleDefinition {
  return {
    id: roleDefinitionId(role, subscriptionId),
    name: role.name,
    type: `${NS}/roleDefinitions`,
    properties: {
      roleName: role.roleName,
      type: role.type,
      description: role.description,
      assignableScopes: role.subscriptionId ? [`/subscriptions/${role.subscriptionId}`] : ["/"],
      permissions: [
        { actions: role.actions, notActions: role.notActions, dataActions: role.dataActions, notDataActions: role.notDataActions },
      ],
    },
  };
}

function assignmentResource(a: RoleAssignmentState, state: AuthorizationState): RoleAssignment {
  const role = state.roleDefinitions.find((r) => r.name === a.roleDefinitionId)!;
  // Azure names the role by the subscription of the assignment's scope (tenant-wide for `/`).
  const sub = /^\/subscriptions\/([^/]+)/i.exec(a.scope)?.[1];
  const base = a.scope === "/" ? "" : a.scope;
  return {
    id: `${base}/providers/${NS}/roleAssignments/${a.name}`,
    name: a.name,
    type: `${NS}/roleAssignments`,
    properties: {
      roleDefinitionId: roleDefinitionId(role, sub),
      principalId: a.principalId,
      principalType: a.principalType,
      scope: a.scope,
      ...(a.condition ? { condition: a.condition, conditionVersion: "2.0" } : {}),
      createdOn: a.createdOn,
      updatedOn: a.createdOn,
    },
  };
}
