import { ArmClient, type ArmClientOptions, type ArmRead } from "../../platform/arm/arm-client";
import { sqlDatabaseId, sqlServerId } from "../../platform/arm/resource-id";
import {
  SQL_DATABASES_API_VERSION,
  SQL_DATABASES_GET,
  SQL_DATABASES_LIST_BY_SERVER,
  SQL_DATABASES_SPEC,
  type Database,
} from "./database-types";
import type { ServerRef } from "./key-custody-types";
import type { DatabaseRef } from "./types";

/**
 * Databases_Get and Databases_ListByServer at 2023-02-01-preview: objects of
 * `Databases.json#/definitions/Database` (the list's `DatabaseListResult.value` items are the same
 * `Database`, identity and `properties.encryptionProtector` included; only `properties.keys` needs
 * Databases_Get's `$expand=keys`, which the list does not take).
 */
export class DatabasesClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: SQL_DATABASES_API_VERSION, spec: SQL_DATABASES_SPEC });
  }

  /** Databases_Get, with the receipt of the read: the database, its identity and its own TDE protector, if any. */
  read(db: DatabaseRef, signal?: AbortSignal): Promise<ArmRead<Database>> {
    const target = {
      label: `database '${db.database}' of SQL server '${db.server}' (resource group '${db.resourceGroup}', subscription '${db.subscriptionId}')`,
      names: [db.database],
      hint: "Check the database's name, server and resource group in the stack file.",
    };
    return this.singleRead({ id: SQL_DATABASES_GET, schema: "/definitions/Database" }, sqlDatabaseId(db, this.paths), { target, signal });
  }

  /**
   * Databases_ListByServer, every page (`nextLink`) followed: all the server's databases, in one
   * request per page instead of one per database, with the receipt of the list.
   */
  listByServer(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Database[]>> {
    const target = {
      label: `SQL server '${server.server}' (resource group '${server.resourceGroup}', subscription '${server.subscriptionId}')`,
      names: [server.server],
      hint: "Check the server's name and resource group in the stack file.",
    };
    const op = { id: SQL_DATABASES_LIST_BY_SERVER, schema: "/definitions/Database" };
    return this.listRead<Database>(op, `${sqlServerId(server, this.paths)}/databases`, { target, signal });
  }
}
