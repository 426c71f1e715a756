/**
 * Types of a SQL server's TDE protector (api-version 2021-11-01, from
 * specs/sql/Microsoft.Sql/stable/2021-11-01/EncryptionProtectors.json) and server keys (2015-05-01-preview,
 * from specs/sql/Microsoft.Sql/preview/2015-05-01-preview/serverKeys.json). Objects are typed as they
 * travel on the wire (ARM envelope, fields under `properties`); every field is optional except `id`.
 * Enums the spec marks `modelAsString` are open, and interfaces keep an index signature: later
 * api-versions add `keyVersion`, and the client hands objects on unchanged.
 */

/** The document of EncryptionProtectors_ListByServer and EncryptionProtectors_Get. */
export const SQL_ENCRYPTION_PROTECTORS_SPEC = "sql/Microsoft.Sql/stable/2021-11-01/EncryptionProtectors.json";
/** The document of ServerKeys_ListByServer and ServerKeys_Get. */
export const SQL_SERVER_KEYS_SPEC = "sql/Microsoft.Sql/preview/2015-05-01-preview/serverKeys.json";
/**
 * The api-version the client sends for the encryption protector: 2021-11-01, the first stable version
 * whose protector carries `autoRotationEnabled` (whether the server follows its key's newest version),
 * which `tde-key-validity`'s `requireAutoRotation` and `maxKeyAgeDays` judge. Requests and answers are
 * checked against that version's document (see key-custody-api-versions.ts for what the SDKs send and
 * the emulator accepts).
 */
export const SQL_ENCRYPTION_PROTECTORS_API_VERSION = "2021-11-01";
/**
 * The api-version the client sends for server keys: the 2015-05-01-preview spec folder's, so that
 * requests and responses are checked against the document they were written for. Nothing judged
 * here needs a server key's later fields.
 */
export const SQL_KEY_CUSTODY_API_VERSION = "2015-05-01-preview";

/** The only name a server's encryption protector has (`EncryptionProtectorName`). */
export const ENCRYPTION_PROTECTOR_NAME = "current";
/** The name (and `serverKeyName`) of every server's service-managed key. */
export const SERVICE_MANAGED_KEY_NAME = "ServiceManaged";

/** The spec's operationIds: the operation names in errors and logs. */
export const SQL_KEY_CUSTODY_OPERATIONS = {
  listEncryptionProtectors: "EncryptionProtectors_ListByServer",
  getEncryptionProtector: "EncryptionProtectors_Get",
  listServerKeys: "ServerKeys_ListByServer",
  getServerKey: "ServerKeys_Get",
} as const;
export type SqlKeyCustodyOperation = (typeof SQL_KEY_CUSTODY_OPERATIONS)[keyof typeof SQL_KEY_CUSTODY_OPERATIONS];

/** ARM resource types, as the service writes them in `type`. */
export const SQL_KEY_CUSTODY_RESOURCE_TYPES = {
  encryptionProtector: "Microsoft.Sql/servers/encryptionProtector",
  serverKey: "Microsoft.Sql/servers/keys",
} as const;

type Open<T extends string> = T | (string & {});

/**
 * `ServerKeyType`: `ServiceManaged` (Azure holds the TDE protector) or `AzureKeyVault` (a
 * customer-managed key in Key Vault: what Azure Policy 0a370ff3-6cab-4e85-8995-295fd854c5b8 asks for).
 */
export const SERVER_KEY_TYPES = ["ServiceManaged", "AzureKeyVault"] as const;
export type ServerKeyType = Open<(typeof SERVER_KEY_TYPES)[number]>;

/** `EncryptionProtectorProperties`. */
export interface EncryptionProtectorProperties {
  subregion?: string;
  /** `ServiceManaged`, or `<vault>_<key>_<version>` for a Key Vault key. */
  serverKeyName?: string;
  serverKeyType?: ServerKeyType;
  /** The Key Vault key's identifier (`https://<vault>.vault.azure.net/keys/<key>/<version>`); absent when service-managed. */
  uri?: string;
  thumbprint?: string;
  /** 2020-11-01-preview on (so in 2021-11-01, which the client reads): whether the server follows the key's newest version by itself. */
  autoRotationEnabled?: boolean;
  /** 2025-01-01 on: the key version in use (the URI may be versionless). */
  keyVersion?: string;
  [extra: string]: unknown;
}

/** `EncryptionProtector`: a server's TDE protector (always named `current`). */
export interface EncryptionProtector {
  id: string;
  name?: string;
  type?: string;
  /** `servicemanaged` or `azurekeyvault`: portal metadata. */
  kind?: string;
  location?: string;
  properties?: EncryptionProtectorProperties;
  [extra: string]: unknown;
}

/** `ServerKeyProperties`. */
export interface ServerKeyProperties {
  subregion?: string;
  serverKeyType?: ServerKeyType;
  uri?: string;
  thumbprint?: string;
  /** date-time */
  creationDate?: string;
  /** 2020-11-01-preview on. */
  autoRotationEnabled?: boolean;
  /** 2025-01-01 on. */
  keyVersion?: string;
  [extra: string]: unknown;
}

/** `ServerKey`: a key a server may use as its protector (the service-managed one is always there). */
export interface ServerKey {
  id: string;
  name?: string;
  type?: string;
  kind?: string;
  location?: string;
  properties?: ServerKeyProperties;
  [extra: string]: unknown;
}

/** The list envelopes (`EncryptionProtectorListResult`, `ServerKeyListResult`): lists page with `nextLink`. */
export interface SqlKeyCustodyListResult<T> {
  value?: T[];
  nextLink?: string;
}

/** Servers are addressed by their place in ARM. */
export type { ServerRef } from "../../platform/arm/resource-id";
