import { ArmClient, collect, type ArmClientOptions, type ArmOperation, type ArmRead } from "../../platform/arm/arm-client";
import { elasticPoolId, sqlDatabaseId, tdeConfigurationId } from "../../platform/arm/resource-id";
import {
  SQL_API_VERSION,
  SQL_OPERATIONS,
  SQL_SPEC,
  type DatabaseRef,
  type ElasticPoolActivity,
  type ElasticPoolDatabaseActivity,
  type ElasticPoolRef,
  type ServiceTierAdvisor,
  type TransparentDataEncryption,
  type TransparentDataEncryptionActivity,
  type TransparentDataEncryptionPutBody,
  type TransparentDataEncryptionStatus,
} from "./types";
import { EncryptionProtectorsClient, ServerKeysClient } from "./key-custody-client";
import { DatabasesClient } from "./database-client";
import type { Database } from "./database-types";
import type { EncryptionProtector, ServerKey, ServerRef } from "./key-custody-types";
import type { Server } from "./server-types";
import { ServersClient } from "./servers-client";

const op = (id: string, definition: string): ArmOperation => ({ id, schema: `/definitions/${definition}` });

/** The operations the client calls, with the definition of the objects each returns (a list's items). */
const OPS = {
  listServiceTierAdvisors: op(SQL_OPERATIONS.listServiceTierAdvisors, "ServiceTierAdvisor"),
  getServiceTierAdvisor: op(SQL_OPERATIONS.getServiceTierAdvisor, "ServiceTierAdvisor"),
  listElasticPoolActivities: op(SQL_OPERATIONS.listElasticPoolActivities, "ElasticPoolActivity"),
  listElasticPoolDatabaseActivities: op(SQL_OPERATIONS.listElasticPoolDatabaseActivities, "ElasticPoolDatabaseActivity"),
  getTransparentDataEncryption: op(SQL_OPERATIONS.getTransparentDataEncryption, "TransparentDataEncryption"),
  putTransparentDataEncryption: op(SQL_OPERATIONS.putTransparentDataEncryption, "TransparentDataEncryption"),
  listTransparentDataEncryptionActivities: op(SQL_OPERATIONS.listTransparentDataEncryptionActivities, "TransparentDataEncryptionActivity"),
};

/**
 * A typed client for the SQL slice at api-version 2014-04-01: service tier advisors, elastic pool
 * (database) activity, and transparent data encryption with its scan results. Requests follow the
 * spec; responses are handled by ArmClient (checked to learn, refused only when unusable, handed on
 * unchanged). 2014-04-01 lists send no `nextLink`, but one would be followed.
 *
 * Key custody (read-only): a server's TDE protector (2021-11-01) and server keys (2015-05-01-preview)
 * live in other spec documents at other api-versions, so two more ARM clients, made on first use with
 * the same options (and so the same pacer), answer those four methods.
 */
export class SqlClient extends ArmClient {
  private protectorsClient: EncryptionProtectorsClient | undefined;
  private serverKeysClient: ServerKeysClient | undefined;
  private serversClient: ServersClient | undefined;
  private databasesClient: DatabasesClient | undefined;

  constructor(private readonly options: ArmClientOptions) {
    super(options, { apiVersion: SQL_API_VERSION, spec: SQL_SPEC });
  }

  /** EncryptionProtectors_ListByServer: a server's TDE protectors (there is one, `current`). */
  listEncryptionProtectors(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector[]> {
    return this.protectors().list(server, signal);
  }

  /**
   * EncryptionProtectors_Get of `current`: who holds the server's TDE protector. `serverKeyType` is
   * `ServiceManaged` or `AzureKeyVault`; for the latter `uri` names the Key Vault key (and version).
   */
  getEncryptionProtector(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector> {
    return this.protectors().get(server, signal);
  }

  /** EncryptionProtectors_Get of `current`, with the receipt of the read (when, and Resource Manager's request id). */
  readEncryptionProtector(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<EncryptionProtector>> {
    return this.protectors().read(server, signal);
  }

  /** ServerKeys_ListByServer: the keys a server knows (always the service-managed one, plus any Key Vault keys added). */
  listServerKeys(server: ServerRef, signal?: AbortSignal): Promise<ServerKey[]> {
    return this.serverKeys().list(server, signal);
  }

  /** ServerKeys_Get: one server key by name (`ServiceManaged`, or `<vault>_<key>_<version>`). */
  getServerKey(server: ServerRef, keyName: string, signal?: AbortSignal): Promise<ServerKey> {
    return this.serverKeys().get(server, keyName, signal);
  }

  /**
   * Servers_Get at 2021-11-01, with the receipt of the read: the server's managed identities
   * (`identity`) and the one it uses for its key (`properties.primaryUserAssignedIdentityId`).
   */
  readServer(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Server>> {
    return (this.serversClient ??= new ServersClient(this.options)).read(server, signal);
  }

  /**
   * Databases_Get at 2023-02-01-preview (another client, like the protector's): the database with
   * its identity and, when it has one, its own TDE protector (`properties.encryptionProtector`).
   */
  readDatabase(db: DatabaseRef, signal?: AbortSignal): Promise<ArmRead<Database>> {
    return this.databases().read(db, signal);
  }

  /**
   * Databases_ListByServer at 2023-02-01-preview, every page: the server's databases as Databases_Get
   * returns each (identity and own TDE protector), one request per page rather than one per database.
   */
  listDatabases(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Database[]>> {
    return this.databases().listByServer(server, signal);
  }

  private databases(): DatabasesClient {
    return (this.databasesClient ??= new DatabasesClient(this.options));
  }

  private protectors(): EncryptionProtectorsClient {
    return (this.protectorsClient ??= new EncryptionProtectorsClient(this.options));
  }

  private serverKeys(): ServerKeysClient {
    return (this.serverKeysClient ??= new ServerKeysClient(this.options));
  }

  /** ServiceTierAdvisors_ListByDatabase: every service tier advisor of a database (usually one, `Current`). */
  listServiceTierAdvisors(db: DatabaseRef, signal?: AbortSignal): Promise<ServiceTierAdvisor[]> {
    return collect(this.pages(OPS.listServiceTierAdvisors, `${sqlDatabaseId(db, this.paths)}/serviceTierAdvisors`, { signal }));
  }

  /** ServiceTierAdvisors_Get: one service tier advisor of a database, by name (the published example uses `Current`). */
  getServiceTierAdvisor(db: DatabaseRef, name: string, signal?: AbortSignal): Promise<ServiceTierAdvisor> {
    return this.single(OPS.getServiceTierAdvisor, `${sqlDatabaseId(db, this.paths)}/serviceTierAdvisors/${encodeURIComponent(name)}`, {
      signal,
    });
  }

  /** ElasticPoolActivities_ListByElasticPool: the operations on an elastic pool. */
  listElasticPoolActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolActivity[]> {
    return collect(this.pages(OPS.listElasticPoolActivities, `${elasticPoolId(pool, this.paths)}/elasticPoolActivity`, { signal }));
  }

  /** ElasticPoolDatabaseActivities_ListByElasticPool: the operations on databases inside an elastic pool. */
  listElasticPoolDatabaseActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolDatabaseActivity[]> {
    return collect(
      this.pages(OPS.listElasticPoolDatabaseActivities, `${elasticPoolId(pool, this.paths)}/elasticPoolDatabaseActivity`, { signal }),
    );
  }

  /** TransparentDataEncryptions_Get: a database's TDE configuration (`current`). */
  getTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryption> {
    return this.single(OPS.getTransparentDataEncryption, tdeConfigurationId(db, this.paths), { signal });
  }

  /** TransparentDataEncryptions_Get, with the receipt of the read (when, and Resource Manager's request id). */
  readTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<ArmRead<TransparentDataEncryption>> {
    return this.singleRead(OPS.getTransparentDataEncryption, tdeConfigurationId(db, this.paths), { signal });
  }

  /**
   * TransparentDataEncryptions_CreateOrUpdate: sets a database's TDE status. The answer already carries
   * the new status; the encryption or decryption scan it starts shows in
   * `listTransparentDataEncryptionActivities` until it has finished.
   */
  putTransparentDataEncryption(
    db: DatabaseRef,
    status: TransparentDataEncryptionStatus,
    signal?: AbortSignal,
  ): Promise<TransparentDataEncryption> {
    const json: TransparentDataEncryptionPutBody = { properties: { status } };
    return this.single(OPS.putTransparentDataEncryption, tdeConfigurationId(db, this.paths), { method: "PUT", json, signal });
  }

  /** TransparentDataEncryptionActivities_ListByConfiguration: the running scan of a database, if any (empty once it has finished). */
  listTransparentDataEncryptionActivities(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryptionActivity[]> {
    return collect(
      this.pages(OPS.listTransparentDataEncryptionActivities, `${tdeConfigurationId(db, this.paths)}/operationResults`, { signal }),
    );
  }
}
