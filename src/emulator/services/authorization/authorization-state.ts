import { createHash } from "node:crypto";
import { BUILT_IN_ROLES } from "./built-in-roles";
import { DEFAULT_SUBSCRIPTION_ID, type AuthorizationSeed } from "./seed-schema";

/* Azure RBAC as the emulator keeps it: plain JSON, persisted with --state. */

export interface RoleDefinitionState {
  name: string;
  roleName: string;
  description: string;
  type: "BuiltInRole" | "CustomRole";
  /** The subscription a custom role is defined in; absent for a built-in role (tenant-wide). */
  subscriptionId?: string;
  actions: string[];
  notActions: string[];
  dataActions: string[];
  notDataActions: string[];
}

export interface RoleAssignmentState {
  name: string;
  /** Without a trailing slash, as given (`/` for the tenant root). */
  scope: string;
  principalId: string;
  principalType: string;
  roleDefinitionId: string;
  condition?: string;
  /** RFC 3339: createdOn and updatedOn. */
  createdOn: string;
}

export interface AuthorizationState {
  roleDefinitions: RoleDefinitionState[];
  roleAssignments: RoleAssignmentState[];
  listDeniedScopes: string[];
}

/** Builds the state from a validated seed section; a role a seed names but nobody defines is an error naming its place. */
export function authorizationInitialState(seed: AuthorizationSeed | undefined, now: number = Date.now()): AuthorizationState {
  const sub = seed?.subscriptionId ?? DEFAULT_SUBSCRIPTION_ID;
  const roles: RoleDefinitionState[] = BUILT_IN_ROLES.map((r) => ({
    ...r,
    type: "BuiltInRole",
    actions: r.actions ?? [],
    notActions: [],
    dataActions: r.dataActions ?? [],
    notDataActions: [],
  }));
  (seed?.roleDefinitions ?? []).forEach((r, i) => {
    if (roles.some((known) => known.name.toLowerCase() === r.name.toLowerCase()))
      throw new Error(`authorization.roleDefinitions[${i}].name: the role ${r.name} is declared twice (or is a built-in role's)`);
    roles.push({
      name: r.name.toLowerCase(),
      roleName: r.roleName,
      description: r.description ?? "",
      type: "CustomRole",
      subscriptionId: r.subscriptionId ?? sub,
      actions: r.actions ?? [],
      notActions: r.notActions ?? [],
      dataActions: r.dataActions ?? [],
      notDataActions: r.notDataActions ?? [],
    });
  });
  const created = new Date(now).toISOString();
  const assignments = (seed?.roleAssignments ?? []).map((a, i): RoleAssignmentState => {
    const role = roles.find((r) => r.name.toLowerCase() === a.roleDefinitionId.toLowerCase());
    if (!role)
      throw new Error(
        `authorization.roleAssignments[${i}].roleDefinitionId: no role ${a.roleDefinitionId}; name a built-in role or declare it under authorization.roleDefinitions`,
      );
    const scope = trimScope(a.scope);
    return {
      name: (a.name ?? derivedUuid(`${scope} ${a.principalId} ${role.name}`)).toLowerCase(),
      scope,
      principalId: a.principalId.toLowerCase(),
      principalType: a.principalType ?? "ServicePrincipal",
      roleDefinitionId: role.name,
      ...(a.condition ? { condition: a.condition } : {}),
      createdOn: created,
    };
  });
  return { roleDefinitions: roles, roleAssignments: assignments, listDeniedScopes: (seed?.listDeniedScopes ?? []).map(trimScope) };
}

/** A scope without a trailing slash (`/` stays). */
export function trimScope(scope: string): string {
  const t = scope.replace(/\/+$/, "");
  return t === "" ? "/" : t;
}

/** Whether `scope` is `parent` or under it (compared without regard to case, segment by segment). */
export function within(scope: string, parent: string): boolean {
  const s = trimScope(scope).toLowerCase();
  const p = trimScope(parent).toLowerCase();
  return p === "/" || s === p || s.startsWith(`${p}/`);
}

function derivedUuid(text: string): string {
  const h = createHash("sha1").update(`stackwarden/authorization/${text.toLowerCase()}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
