import { ArmClient, type ArmClientOptions, type ArmRead } from "../../platform/arm/arm-client";
import { sqlDatabaseId } from "../../platform/arm/resource-id";
import { SQL_DATABASES_API_VERSION, SQL_DATABASES_GET, SQL_DATABASES_SPEC, type Database } from "./database-types";
import type { DatabaseRef } from "./types";

/** Databases_Get at 2023-02-01-preview: objects of `Databases.json#/definitions/Database`. */
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
}
