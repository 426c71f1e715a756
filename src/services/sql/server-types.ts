/**
 * A SQL server as Servers_Get returns it at api-version 2021-11-01, from
 * specs/sql/Microsoft.Sql/stable/2021-11-01/Servers.json (`Server`, `ServerProperties`) and
 * specs/sql/common/v2/types.json (`ResourceIdentity`, `UserIdentity`). Only what key custody reads is
 * modelled: the server's managed identities and which of them it uses for its TDE key. Typed as on
 * the wire (every field optional but `id`, open enums, an index signature).
 */

import { since } from "../keyvault/api-versions";
import { SQL_KEY_CUSTODY_API_VERSIONS } from "./key-custody-api-versions";

/** The document of Servers_Get. */
export const SQL_SERVERS_SPEC = "sql/Microsoft.Sql/stable/2021-11-01/Servers.json";
/** The api-version Servers_Get is sent at: the first stable one with `primaryUserAssignedIdentityId` and `keyId`. */
export const SQL_SERVERS_API_VERSION = "2021-11-01";
/**
 * The api-versions the emulator answers Servers_Get at: the versions Azure's SDKs send for a
 * server's key custody (key-custody-api-versions.ts says where each was found) from 2021-11-01 on,
 * all of which carry `identity`, `primaryUserAssignedIdentityId` and `keyId` in the same shape.
 */
export const SQL_SERVERS_API_VERSIONS: readonly string[] = SQL_KEY_CUSTODY_API_VERSIONS.filter((v) => since(v, SQL_SERVERS_API_VERSION));

/** The spec's operationId. */
export const SQL_SERVERS_GET = "Servers_Get";

type Open<T extends string> = T | (string & {});

/** `UserIdentity` (common v2): a user-assigned identity the server holds. */
export interface UserIdentity {
  principalId?: string;
  clientId?: string;
  [extra: string]: unknown;
}

/** `ResourceIdentity` (common v2). */
export interface ResourceIdentity {
  type?: Open<"None" | "SystemAssigned" | "UserAssigned" | "SystemAssigned,UserAssigned">;
  /** The system-assigned identity's principal (object) id. */
  principalId?: string;
  tenantId?: string;
  /** User-assigned identities by their ARM resource id. */
  userAssignedIdentities?: Record<string, UserIdentity>;
  [extra: string]: unknown;
}

/** `ServerProperties` (what key custody reads of it). */
export interface ServerProperties {
  /** The user-assigned identity the server uses by default, for its key too; absent: the system-assigned one. */
  primaryUserAssignedIdentityId?: string;
  /** The customer-managed key's URI, when TDE uses one. */
  keyId?: string;
  /** The client id used for a key in another tenant. */
  federatedClientId?: string;
  state?: string;
  [extra: string]: unknown;
}

/** `Server` */
export interface Server {
  id: string;
  name?: string;
  type?: string;
  location?: string;
  /** The resource's tags (what a stack's scope filters and exempts by). */
  tags?: Record<string, string>;
  kind?: string;
  identity?: ResourceIdentity;
  properties?: ServerProperties;
  [extra: string]: unknown;
}
