import { ArmClient, type ArmClientOptions, type ArmRead } from "../../platform/arm/arm-client";
import { sqlServerId } from "../../platform/arm/resource-id";
import type { ServerRef } from "./key-custody-types";
import { SQL_SERVERS_API_VERSION, SQL_SERVERS_GET, SQL_SERVERS_SPEC, type Server } from "./server-types";

/** Servers_Get at 2021-11-01: objects of `Servers.json#/definitions/Server`. */
export class ServersClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: SQL_SERVERS_API_VERSION, spec: SQL_SERVERS_SPEC });
  }

  /** Servers_Get, with the receipt of the read. */
  read(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<Server>> {
    return this.singleRead({ id: SQL_SERVERS_GET, schema: "/definitions/Server" }, sqlServerId(server, this.paths), {
      target: {
        label: `SQL server '${server.server}' (resource group '${server.resourceGroup}', subscription '${server.subscriptionId}')`,
        names: [server.server],
        hint: "Check the server's name and resource group in the stack file.",
      },
      signal,
    });
  }
}
