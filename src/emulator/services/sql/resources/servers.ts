import { createHash } from "node:crypto";
import { Type, type Static } from "../../../kit/seed-types";
import { sqlServerId } from "../../../../platform/arm/resource-id";
import type { ResourceIdentity, Server } from "../../../../services/sql/server-types";
import { DEFAULT_TENANT_ID } from "../../keyvault/seed-schema";
import { armPage } from "../../../kit/arm-conventions";
import { sqlResource } from "../sql-resource";
import { protectorKeyUri } from "./server-key-custody";
import type { SqlServerState } from "../sql-estate";

/**
 * The server itself (Servers_Get): its managed identities and `minimalTlsVersion` from the seed, in
 * Servers.json's shape: the `identity` block (common v2 `ResourceIdentity`),
 * `properties.primaryUserAssignedIdentityId` (the identity the server uses for its customer-managed
 * key) and `properties.keyId` (that key, from server-key-custody.ts). A server seeded without
 * `identity` has none, as a server created without one (`az sql server create` without
 * `--assign-identity`).
 */

const UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$";
const USER_ASSIGNED_ID = "^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.ManagedIdentity/userAssignedIdentities/[^/]+$";
const uuid = (description: string) => Type.Optional(Type.String({ pattern: UUID, description }));

/** `sql.servers[].identity` of the seed. */
const serverIdentitySeed = Type.Object(
  {
    type: Type.Enum(["None", "SystemAssigned", "UserAssigned", "SystemAssigned,UserAssigned"], {
      description: "Required: which identities the server has.",
    }),
    principalId: uuid("Optional, with a system-assigned identity: its object id. Default: derived from the server's id (stable)."),
    tenantId: uuid(`Optional: the identity's tenant. Default ${DEFAULT_TENANT_ID} (the emulator IMDS's default tenant).`),
    userAssignedIdentities: Type.Optional(
      Type.Array(
        Type.Object({
          id: Type.String({
            pattern: USER_ASSIGNED_ID,
            description: "Required: the identity's resource id (…/providers/Microsoft.ManagedIdentity/userAssignedIdentities/<name>).",
          }),
          principalId: uuid("Optional: its object id. Default: derived from its id."),
          clientId: uuid("Optional: its client id. Default: derived from its id."),
        }),
        { description: "Optional, with UserAssigned: the user-assigned identities the server holds. Default: none." },
      ),
    ),
    primaryUserAssignedIdentityId: Type.Optional(
      Type.String({
        pattern: USER_ASSIGNED_ID,
        description:
          "Optional: the user-assigned identity the server uses by default, and for its key; one of userAssignedIdentities. Default: none (the system-assigned one is used).",
      }),
    ),
  },
  {
    description:
      "Optional: the server's managed identities (Servers_Get at 2021-11-01: identity, properties.primaryUserAssignedIdentityId), through which it reaches a customer-managed TDE key. Default: none (type None).",
  },
);
export type SqlServerIdentitySeed = Static<typeof serverIdentitySeed>;

/** Azure's resource tags (at most 50; names up to 512 characters, values up to 256, names without <>%&\\?/). */
export const resourceTagsSeed = (of: string) =>
  Type.Optional(
    Type.Record(Type.String({ maxLength: 256 }), {
      maxProperties: 50,
      propertyNames: { minLength: 1, maxLength: 512, pattern: "^[^<>%&\\\\?/]+$" },
      description: `Optional: the ${of}'s tags (answered as \`tags\`; what a stack's scope filters and exempts by). Default: none.`,
    }),
  );

/** The identity in state: every id filled in. */
export interface SqlServerIdentityState {
  type: SqlServerIdentitySeed["type"];
  principalId?: string;
  tenantId: string;
  userAssignedIdentities: { id: string; principalId: string; clientId: string }[];
  primaryUserAssignedIdentityId?: string;
}

declare module "../sql-estate" {
  interface SqlServerState {
    /** Absent: the server has no managed identity. */
    identity?: SqlServerIdentityState;
    /** Servers_Get's `minimalTlsVersion`, when seeded. */
    minimalTlsVersion?: string;
    /** Its tags, when seeded. */
    tags?: Record<string, string>;
  }
}

/** The resource: its seed fragment on each server, its state, Servers_Get. */
export const servers = sqlResource({
  name: "servers (Servers_Get, Servers_List, Servers_ListByResourceGroup: identity, minimal TLS version, tags)",
  seed: {
    server: {
      identity: Type.Optional(serverIdentitySeed),
      tags: resourceTagsSeed("server"),
      minimalTlsVersion: Type.Optional(
        Type.Enum(["1.0", "1.1", "1.2"], {
          description: "Optional: properties.minimalTlsVersion of Servers_Get (2021-11-01 on). Default: absent (the server never set one).",
        }),
      ),
    },
  },
  state: {
    server: (f, c) => {
      const identity = serverIdentityFromSeed(c.at, sqlServerId(c.ref), f.identity);
      return {
        ...(identity ? { identity } : {}),
        ...(f.minimalTlsVersion ? { minimalTlsVersion: f.minimalTlsVersion } : {}),
        ...(f.tags ? { tags: { ...f.tags } } : {}),
      };
    },
  },
  routes: [
    {
      at: "server",
      method: "GET",
      path: "",
      operation: "Servers_Get",
      handler: ({ server }) => ({ status: 200, body: answeredServer(server) }),
    },
    // The servers of a subscription, or of a resource group: each as Servers_Get answers it, paged.
    {
      at: "subscription",
      method: "GET",
      path: "",
      operation: "Servers_List",
      handler: ({ req, ctx, servers }) =>
        armPage(
          req,
          servers.map((e) => answeredServer(e.server)),
          ctx.settings.pageSize,
        ),
    },
    {
      at: "resourceGroup",
      method: "GET",
      path: "",
      operation: "Servers_ListByResourceGroup",
      handler: ({ req, ctx, servers }) =>
        armPage(
          req,
          servers.map((e) => answeredServer(e.server)),
          ctx.settings.pageSize,
        ),
    },
  ],
});

/** A server of the state as Servers_Get (and each item of its lists) answers it. */
function answeredServer(server: SqlServerState): Server {
  const keyUri = protectorKeyUri(server);
  return serverResource({ ...server, ...(keyUri ? { keyUri } : {}) });
}

/** Builds a server's identity from its seed, checking what the schema cannot; `at` locates errors (`sql.servers[2]`). */
export function serverIdentityFromSeed(
  at: string,
  serverId: string,
  seed: SqlServerIdentitySeed | undefined,
): SqlServerIdentityState | undefined {
  if (!seed) return undefined;
  const kinds = seed.type.toLowerCase().split(",");
  const system = kinds.includes("systemassigned");
  const user = kinds.includes("userassigned");
  if (!system && seed.principalId)
    throw new Error(`${at}.identity.principalId: only a SystemAssigned identity has a principalId of its own`);
  if (!user && seed.userAssignedIdentities?.length)
    throw new Error(`${at}.identity.userAssignedIdentities: type ${seed.type} holds no user-assigned identities; use UserAssigned`);
  const users = (seed.userAssignedIdentities ?? []).map((u) => ({
    id: u.id,
    principalId: u.principalId ?? derivedUuid(`principal ${u.id}`),
    clientId: u.clientId ?? derivedUuid(`client ${u.id}`),
  }));
  const primary = seed.primaryUserAssignedIdentityId;
  if (primary && !users.some((u) => u.id.toLowerCase() === primary.toLowerCase()))
    throw new Error(`${at}.identity.primaryUserAssignedIdentityId: ${primary} is not one of the server's userAssignedIdentities`);
  if (user && users.length === 0) throw new Error(`${at}.identity.userAssignedIdentities: type ${seed.type} needs at least one`);
  return {
    type: seed.type,
    ...(system ? { principalId: seed.principalId ?? derivedUuid(`principal ${serverId}`) } : {}),
    tenantId: seed.tenantId ?? DEFAULT_TENANT_ID,
    userAssignedIdentities: users,
    ...(primary ? { primaryUserAssignedIdentityId: primary } : {}),
  };
}

/** What Servers_Get needs of a server. */
export interface IdentityServer {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  identity?: SqlServerIdentityState;
  /** The customer-managed protector's key URI, if any (`properties.keyId`). */
  keyUri?: string;
  /** `properties.minimalTlsVersion`, when the seed sets one (absent: the server never set one). */
  minimalTlsVersion?: string;
  tags?: Record<string, string>;
}

/** Servers_Get with the fields of 2021-11-01's Servers.json (the front door leaves out what an older version lacks). */
export function serverResource(s: IdentityServer): Server {
  const id = sqlServerId({ subscriptionId: s.subscriptionId, resourceGroup: s.resourceGroup, server: s.name });
  const out: Server = {
    id,
    name: s.name,
    type: "Microsoft.Sql/servers",
    location: s.location,
    ...(s.tags ? { tags: { ...s.tags } } : {}),
    kind: "v12.0",
    properties: {
      version: "12.0",
      state: "Ready",
      fullyQualifiedDomainName: `${s.name}.database.windows.net`,
      publicNetworkAccess: "Enabled",
      restrictOutboundNetworkAccess: "Disabled",
      ...(s.identity?.primaryUserAssignedIdentityId ? { primaryUserAssignedIdentityId: s.identity.primaryUserAssignedIdentityId } : {}),
      ...(s.keyUri ? { keyId: s.keyUri } : {}),
      ...(s.minimalTlsVersion ? { minimalTlsVersion: s.minimalTlsVersion } : {}),
    },
  };
  if (s.identity && s.identity.type !== "None") out.identity = identityBlock(s.identity);
  return out;
}

function identityBlock(i: SqlServerIdentityState): ResourceIdentity {
  return {
    type: i.type,
    ...(i.principalId ? { principalId: i.principalId, tenantId: i.tenantId } : {}),
    ...(i.userAssignedIdentities.length
      ? {
          userAssignedIdentities: Object.fromEntries(
            i.userAssignedIdentities.map((u) => [u.id, { principalId: u.principalId, clientId: u.clientId }]),
          ),
        }
      : {}),
  };
}

/** A stable UUID from a text (the same estate gives the same ids on every run). */
function derivedUuid(text: string): string {
  const h = createHash("sha1").update(`stackwarden/sql/identity/${text.toLowerCase()}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
