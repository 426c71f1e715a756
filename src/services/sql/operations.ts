import type { CallTarget } from "../../platform/arm/arm-client";
import { answer, defineArmOperations } from "../../platform/arm/arm-operation";
import { SQL_DATABASES_API_VERSION, SQL_DATABASES_SPEC, type Database } from "./database-types";
import {
  ENCRYPTION_PROTECTOR_NAME,
  SQL_ENCRYPTION_PROTECTORS_API_VERSION,
  SQL_ENCRYPTION_PROTECTORS_SPEC,
  SQL_KEY_CUSTODY_API_VERSION,
  SQL_SERVER_KEYS_SPEC,
  type EncryptionProtector,
  type ServerKey,
} from "./key-custody-types";
import { SQL_SERVERS_API_VERSION, SQL_SERVERS_SPEC, type Server } from "./server-types";
import {
  SQL_API_VERSION,
  SQL_SPEC,
  TDE_CONFIGURATION_NAME,
  type ElasticPoolActivity,
  type ElasticPoolDatabaseActivity,
  type ServiceTierAdvisor,
  type TransparentDataEncryption,
  type TransparentDataEncryptionActivity,
} from "./types";

/**
 * The Microsoft.Sql operations stackwarden sends, one row each (see arm-operation.ts): the
 * 2014-04-01 slice (sql.core.json: advisors, pool activity, TDE and its scans), the TDE protector
 * (2021-11-01), server keys (2015-05-01-preview), the server (2021-11-01) and its databases
 * (2023-02-01-preview), each at its document's api-version; the servers of a subscription or resource group
 * (Servers_List, Servers_ListByResourceGroup: what a stack's scope is discovered from). `SqlClient` sends them for the commands;
 * the fact kinds ask for the reads by name (`FactReads`, src/domain/facts/fact-reads.ts).
 */

const SERVER = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Sql/servers/{serverName}";
const DATABASE = `${SERVER}/databases/{databaseName}` as const;
const POOL = `${SERVER}/elasticPools/{elasticPoolName}` as const;
const TDE = `${DATABASE}/transparentDataEncryption/{transparentDataEncryptionName}` as const;
const PROTECTOR = `${SERVER}/encryptionProtector` as const;

/** What a 404 of a server's operation names: the server, where the stack names it. */
function serverTarget(p: Readonly<Record<string, string>>): CallTarget {
  return {
    label: `SQL server '${p.serverName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
    names: [p.serverName],
    hint: "Check the server's name and resource group in the stack file.",
  };
}

/** What a 404 of Databases_Get names: the database. */
function databaseTarget(p: Readonly<Record<string, string>>): CallTarget {
  return {
    label: `database '${p.databaseName}' of SQL server '${p.serverName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
    names: [p.databaseName],
    hint: "Check the database's name, server and resource group in the stack file.",
  };
}

/** What a 404 of ServerKeys_Get names: the key, and how keys are named. */
function serverKeyTarget(p: Readonly<Record<string, string>>): CallTarget {
  return {
    label: `server key '${p.keyName}' of SQL server '${p.serverName}' (resource group '${p.resourceGroupName}', subscription '${p.subscriptionId}')`,
    names: [p.keyName],
    hint: "Server key names are `ServiceManaged` or `<vault>_<key>_<version>`; list the server's keys to see them.",
  };
}

const CORE = { apiVersion: SQL_API_VERSION, spec: SQL_SPEC } as const;
const TDE_NAME = { transparentDataEncryptionName: TDE_CONFIGURATION_NAME } as const;

export const SQL_OPERATIONS_TABLE = defineArmOperations({
  ServiceTierAdvisors_ListByDatabase: {
    ...CORE,
    path: `${DATABASE}/serviceTierAdvisors`,
    schema: "/definitions/ServiceTierAdvisor",
    list: true,
    answer: answer<ServiceTierAdvisor>(),
  },
  ServiceTierAdvisors_Get: {
    ...CORE,
    path: `${DATABASE}/serviceTierAdvisors/{serviceTierAdvisorName}`,
    schema: "/definitions/ServiceTierAdvisor",
    answer: answer<ServiceTierAdvisor>(),
  },
  ElasticPoolActivities_ListByElasticPool: {
    ...CORE,
    path: `${POOL}/elasticPoolActivity`,
    schema: "/definitions/ElasticPoolActivity",
    list: true,
    answer: answer<ElasticPoolActivity>(),
  },
  ElasticPoolDatabaseActivities_ListByElasticPool: {
    ...CORE,
    path: `${POOL}/elasticPoolDatabaseActivity`,
    schema: "/definitions/ElasticPoolDatabaseActivity",
    list: true,
    answer: answer<ElasticPoolDatabaseActivity>(),
  },
  TransparentDataEncryptions_Get: {
    ...CORE,
    path: TDE,
    fixed: TDE_NAME,
    schema: "/definitions/TransparentDataEncryption",
    answer: answer<TransparentDataEncryption>(),
  },
  TransparentDataEncryptions_CreateOrUpdate: {
    ...CORE,
    method: "PUT",
    path: TDE,
    fixed: TDE_NAME,
    schema: "/definitions/TransparentDataEncryption",
    answer: answer<TransparentDataEncryption>(),
  },
  TransparentDataEncryptionActivities_ListByConfiguration: {
    ...CORE,
    path: `${TDE}/operationResults`,
    fixed: TDE_NAME,
    schema: "/definitions/TransparentDataEncryptionActivity",
    list: true,
    answer: answer<TransparentDataEncryptionActivity>(),
  },
  EncryptionProtectors_ListByServer: {
    apiVersion: SQL_ENCRYPTION_PROTECTORS_API_VERSION,
    spec: SQL_ENCRYPTION_PROTECTORS_SPEC,
    path: PROTECTOR,
    schema: "/definitions/EncryptionProtector",
    list: true,
    target: serverTarget,
    answer: answer<EncryptionProtector>(),
  },
  EncryptionProtectors_Get: {
    apiVersion: SQL_ENCRYPTION_PROTECTORS_API_VERSION,
    spec: SQL_ENCRYPTION_PROTECTORS_SPEC,
    path: `${PROTECTOR}/{encryptionProtectorName}`,
    fixed: { encryptionProtectorName: ENCRYPTION_PROTECTOR_NAME },
    schema: "/definitions/EncryptionProtector",
    target: serverTarget,
    answer: answer<EncryptionProtector>(),
  },
  ServerKeys_ListByServer: {
    apiVersion: SQL_KEY_CUSTODY_API_VERSION,
    spec: SQL_SERVER_KEYS_SPEC,
    path: `${SERVER}/keys`,
    schema: "/definitions/ServerKey",
    list: true,
    target: serverTarget,
    answer: answer<ServerKey>(),
  },
  ServerKeys_Get: {
    apiVersion: SQL_KEY_CUSTODY_API_VERSION,
    spec: SQL_SERVER_KEYS_SPEC,
    path: `${SERVER}/keys/{keyName}`,
    schema: "/definitions/ServerKey",
    target: serverKeyTarget,
    answer: answer<ServerKey>(),
  },
  Servers_Get: {
    apiVersion: SQL_SERVERS_API_VERSION,
    spec: SQL_SERVERS_SPEC,
    path: SERVER,
    schema: "/definitions/Server",
    target: serverTarget,
    answer: answer<Server>(),
  },
  Servers_List: {
    apiVersion: SQL_SERVERS_API_VERSION,
    spec: SQL_SERVERS_SPEC,
    path: "/subscriptions/{subscriptionId}/providers/Microsoft.Sql/servers",
    schema: "/definitions/Server",
    list: true,
    answer: answer<Server>(),
  },
  Servers_ListByResourceGroup: {
    apiVersion: SQL_SERVERS_API_VERSION,
    spec: SQL_SERVERS_SPEC,
    path: "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Sql/servers",
    schema: "/definitions/Server",
    list: true,
    answer: answer<Server>(),
  },
  Databases_Get: {
    apiVersion: SQL_DATABASES_API_VERSION,
    spec: SQL_DATABASES_SPEC,
    path: DATABASE,
    schema: "/definitions/Database",
    target: databaseTarget,
    answer: answer<Database>(),
  },
  Databases_ListByServer: {
    apiVersion: SQL_DATABASES_API_VERSION,
    spec: SQL_DATABASES_SPEC,
    path: `${SERVER}/databases`,
    schema: "/definitions/Database",
    list: true,
    target: serverTarget,
    answer: answer<Database>(),
  },
});
