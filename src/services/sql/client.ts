import type { ArmClientOptions, ArmRead } from "../../platform/arm/arm-client";
import { ArmOperations } from "../../platform/arm/arm-operations";
import type { Database } from "./database-types";
import type { EncryptionProtector, ServerKey, ServerRef } from "./key-custody-types";
import { SQL_OPERATIONS_TABLE } from "./operations";
import type { Server } from "./server-types";
import type {
  DatabaseRef,
  ElasticPoolActivity,
  ElasticPoolDatabaseActivity,
  ElasticPoolRef,
  ServiceTierAdvisor,
  TransparentDataEncryption,
  TransparentDataEncryptionActivity,
  TransparentDataEncryptionPutBody,
  TransparentDataEncryptionStatus,
} from "./types";

/** A server's path parameters, as the spec names them. */
export function serverParams(s: ServerRef): { subscriptionId: string; resourceGroupName: string; serverName: string } {
  return { subscriptionId: s.subscriptionId, resourceGroupName: s.resourceGroup, serverName: s.server };
}

/** A database's path parameters, as the spec names them. */
export function databaseParams(d: DatabaseRef): {
  subscriptionId: string;
  resourceGroupName: string;
  serverName: string;
  databaseName: string;
} {
  return { subscriptionId: d.subscriptionId, resourceGroupName: d.resourceGroup, serverName: d.server, databaseName: d.database };
}

/** An elastic pool's path parameters, as the spec names them. */
function poolParams(p: ElasticPoolRef): { subscriptionId: string; resourceGroupName: string; serverName: string; elasticPoolName: string } {
  return { subscriptionId: p.subscriptionId, resourceGroupName: p.resourceGroup, serverName: p.server, elasticPoolName: p.elasticPool };
}

/**
 * A typed client for the SQL operations the commands call (`plan`, `apply`, `inventory`, `where`,
 * the TDE provider): each method sends one row of the SQL operation table (operations.ts), at the
 * row's api-version and checked against the row's spec document. Requests follow the spec;
 * responses are handled by ArmClient (checked to learn, refused only when unusable, handed on
 * unchanged). 2014-04-01 lists send no `nextLink`, but one would be followed.
 *
 * Fact kinds do not need a method here: they ask for a read by its name through the domain's port
 * (`FactReads`), which the client set answers from the same table.
 */
export class SqlClient {
  private readonly ops: ArmOperations<typeof SQL_OPERATIONS_TABLE>;

  constructor(options: ArmClientOptions) {
    this.ops = new ArmOperations(options, SQL_OPERATIONS_TABLE);
  }

  /** EncryptionProtectors_ListByServer: a server's TDE protectors (there is one, `current`). */
  listEncryptionProtectors(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector[]> {
    return this.ops.get("EncryptionProtectors_ListByServer", serverParams(server), signal);
  }

  /**
   * EncryptionProtectors_Get of `current`: who holds the server's TDE protector. `serverKeyType` is
   * `ServiceManaged` or `AzureKeyVault`; for the latter `uri` names the Key Vault key (and version).
   */
  getEncryptionProtector(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector> {
    return this.ops.get("EncryptionProtectors_Get", serverParams(server), signal);
  }

  /** EncryptionProtectors_Get of `current`, with the receipt of the read (when, and Resource Manager's request id). */
  readEncryptionProtector(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<EncryptionProtector>> {
    return this.ops.read("EncryptionProtectors_Get", serverParams(server), signal);
  }

  /** ServerKeys_ListByServer: the keys a server knows (always the service-managed one, plus any Key Vault keys added). */
  listServerKeys(server: ServerRef, signal?: AbortSignal): Promise<ServerKey[]> {
    return this.ops.get("ServerKeys_ListByServer", serverParams(server), signal);
  }

  /** ServerKeys_Get: one server key by name (`ServiceManaged`, or `<vault>_<key>_<version>`). */
  getServerKey(server: ServerRef, keyName: string, signal?: AbortSignal): Promise<ServerKey> {
    return this.ops.get("ServerKeys_Get", { ...serverParams(server), keyName }, signal);
  }

  /**
   * Servers_Get at 2021-11-01, with the receipt of the read: the server's managed identities
   * (`identity`) and the one it uses for its key (`properties.primaryUserAssignedIdentityId`).
   */
  readServer(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Server>> {
    return this.ops.read("Servers_Get", serverParams(server), signal);
  }

  /**
   * Databases_Get at 2023-02-01-preview: the database with its identity and, when it has one, its
   * own TDE protector (`properties.encryptionProtector`).
   */
  readDatabase(db: DatabaseRef, signal?: AbortSignal): Promise<ArmRead<Database>> {
    return this.ops.read("Databases_Get", databaseParams(db), signal);
  }

  /**
   * Databases_ListByServer at 2023-02-01-preview, every page: the server's databases as Databases_Get
   * returns each (identity and own TDE protector), one request per page rather than one per database.
   */
  listDatabases(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Database[]>> {
    return this.ops.read("Databases_ListByServer", serverParams(server), signal);
  }

  /** ServiceTierAdvisors_ListByDatabase: every service tier advisor of a database (usually one, `Current`). */
  listServiceTierAdvisors(db: DatabaseRef, signal?: AbortSignal): Promise<ServiceTierAdvisor[]> {
    return this.ops.get("ServiceTierAdvisors_ListByDatabase", databaseParams(db), signal);
  }

  /** ServiceTierAdvisors_Get: one service tier advisor of a database, by name (the published example uses `Current`). */
  getServiceTierAdvisor(db: DatabaseRef, name: string, signal?: AbortSignal): Promise<ServiceTierAdvisor> {
    return this.ops.get("ServiceTierAdvisors_Get", { ...databaseParams(db), serviceTierAdvisorName: name }, signal);
  }

  /** ElasticPoolActivities_ListByElasticPool: the operations on an elastic pool. */
  listElasticPoolActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolActivity[]> {
    return this.ops.get("ElasticPoolActivities_ListByElasticPool", poolParams(pool), signal);
  }

  /** ElasticPoolDatabaseActivities_ListByElasticPool: the operations on databases inside an elastic pool. */
  listElasticPoolDatabaseActivities(pool: ElasticPoolRef, signal?: AbortSignal): Promise<ElasticPoolDatabaseActivity[]> {
    return this.ops.get("ElasticPoolDatabaseActivities_ListByElasticPool", poolParams(pool), signal);
  }

  /** TransparentDataEncryptions_Get: a database's TDE configuration (`current`). */
  getTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryption> {
    return this.ops.get("TransparentDataEncryptions_Get", databaseParams(db), signal);
  }

  /** TransparentDataEncryptions_Get, with the receipt of the read (when, and Resource Manager's request id). */
  readTransparentDataEncryption(db: DatabaseRef, signal?: AbortSignal): Promise<ArmRead<TransparentDataEncryption>> {
    return this.ops.read("TransparentDataEncryptions_Get", databaseParams(db), signal);
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
    return this.ops.put("TransparentDataEncryptions_CreateOrUpdate", databaseParams(db), json, signal);
  }

  /** TransparentDataEncryptionActivities_ListByConfiguration: the running scan of a database, if any (empty once it has finished). */
  listTransparentDataEncryptionActivities(db: DatabaseRef, signal?: AbortSignal): Promise<TransparentDataEncryptionActivity[]> {
    return this.ops.get("TransparentDataEncryptionActivities_ListByConfiguration", databaseParams(db), signal);
  }
}
