/**
 * Types of a SQL database resource at api-version 2023-02-01-preview, the slice key custody reads:
 * a database's own TDE protector. From specs/sql/Microsoft.Sql/preview/2023-02-01-preview/Databases.json
 * (`Database`, `DatabaseProperties`, `DatabaseIdentity`, `DatabaseUserIdentity`, `DatabaseKey`).
 * Objects are typed as they travel on the wire; every field is optional except `id`, interfaces
 * keep an index signature (the resource carries many more fields, handed on unchanged), and enums
 * the spec marks `modelAsString` are open.
 *
 * Why this version: `encryptionProtector` and `keys` (database-level customer-managed keys) first
 * appear in 2022-08-01-preview, `encryptionProtectorAutoRotation` in 2023-02-01-preview; it is the
 * first version with all three whose references stay in specs/ (`../../../common/v1/types.json`),
 * and a published client sends it (hashicorp/go-azure-sdk resource-manager/sql/2023-02-01-preview/databases,
 * which terraform-provider-azurerm builds on). The 2014-04-01 slice (types.ts) has no such fields.
 */

/** The document of Databases_Get and Databases_ListByServer. */
export const SQL_DATABASES_SPEC = "sql/Microsoft.Sql/preview/2023-02-01-preview/Databases.json";
/** The api-version the client sends for Databases_Get and Databases_ListByServer (the spec's). */
export const SQL_DATABASES_API_VERSION = "2023-02-01-preview";
/** The spec's operationId. */
export const SQL_DATABASES_GET = "Databases_Get";
/** The spec's operationId of the list of a server's databases (`DatabaseListResult`, paged by `nextLink`). */
export const SQL_DATABASES_LIST_BY_SERVER = "Databases_ListByServer";
/** The ARM type of a database, as the service writes it in `type`. */
export const SQL_DATABASE_RESOURCE_TYPE = "Microsoft.Sql/servers/databases";

type Open<T extends string> = T | (string & {});

/** `DatabaseUserIdentity`: a user-assigned identity the database uses (ids the service fills in). */
export interface DatabaseUserIdentity {
  /** uuid */
  principalId?: string;
  /** uuid */
  clientId?: string;
  [extra: string]: unknown;
}

/** `DatabaseIdentity`: a database has no system-assigned identity; its key is reached with a user-assigned one. */
export interface DatabaseIdentity {
  /** `None` or `UserAssigned` (`DatabaseIdentityType`, modelAsString). */
  type?: Open<"None" | "UserAssigned">;
  /** uuid, read-only. */
  tenantId?: string;
  /** The user-assigned identities, by their ARM resource ids. */
  userAssignedIdentities?: Record<string, DatabaseUserIdentity>;
  [extra: string]: unknown;
}

/** `DatabaseKey`: a database-level key (read-only fields). */
export interface DatabaseKey {
  /** `AzureKeyVault` only (`DatabaseKeyType`, modelAsString). */
  type?: Open<"AzureKeyVault">;
  thumbprint?: string;
  /** date-time */
  creationDate?: string;
  subregion?: string;
  [extra: string]: unknown;
}

/** The `DatabaseProperties` key custody reads (the rest is carried through unchanged). */
export interface DatabaseProperties {
  /** The Key Vault key URI of the database's own TDE protector (database-level customer-managed key); absent: the server's protector. */
  encryptionProtector?: string;
  /** The database-level keys, by key URI (the service lists them with `$expand=keys`). */
  keys?: Record<string, DatabaseKey>;
  /** Whether the database follows its protector key's newest version by itself. */
  encryptionProtectorAutoRotation?: boolean;
  [extra: string]: unknown;
}

/** `Database`: a tracked resource with `sku`, `kind`, `identity` and `properties`. */
export interface Database {
  id: string;
  name?: string;
  /** The resource's tags. */
  tags?: Record<string, string>;
  type?: string;
  location?: string;
  kind?: string;
  identity?: DatabaseIdentity;
  properties?: DatabaseProperties;
  [extra: string]: unknown;
}
