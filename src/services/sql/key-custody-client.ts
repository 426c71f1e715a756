import { ArmClient, collect, type ArmClientOptions, type ArmOperation, type ArmRead, type CallTarget } from "../../platform/arm/arm-client";
import { childId, sqlServerId } from "../../platform/arm/resource-id";
import {
  ENCRYPTION_PROTECTOR_NAME,
  SQL_ENCRYPTION_PROTECTORS_API_VERSION,
  SQL_ENCRYPTION_PROTECTORS_SPEC,
  SQL_KEY_CUSTODY_API_VERSION,
  SQL_KEY_CUSTODY_OPERATIONS,
  SQL_SERVER_KEYS_SPEC,
  type EncryptionProtector,
  type ServerKey,
  type ServerRef,
} from "./key-custody-types";

const op = (id: string, definition: string): ArmOperation => ({ id, schema: `/definitions/${definition}` });

/** EncryptionProtectors_* at 2021-11-01: objects of `EncryptionProtectors.json#/definitions/EncryptionProtector`. */
export class EncryptionProtectorsClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: SQL_ENCRYPTION_PROTECTORS_API_VERSION, spec: SQL_ENCRYPTION_PROTECTORS_SPEC });
  }

  /** EncryptionProtectors_ListByServer: a server's protectors (one, `current`). */
  list(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector[]> {
    const path = `${sqlServerId(server, this.paths)}/encryptionProtector`;
    return collect(
      this.pages(op(SQL_KEY_CUSTODY_OPERATIONS.listEncryptionProtectors, "EncryptionProtector"), path, serverCall(server, signal)),
    );
  }

  /** EncryptionProtectors_Get of `current`: the server's TDE protector. */
  get(server: ServerRef, signal?: AbortSignal): Promise<EncryptionProtector> {
    const path = childId(sqlServerId(server, this.paths), "encryptionProtector", ENCRYPTION_PROTECTOR_NAME, this.paths);
    return this.single(op(SQL_KEY_CUSTODY_OPERATIONS.getEncryptionProtector, "EncryptionProtector"), path, serverCall(server, signal));
  }

  /** EncryptionProtectors_Get of `current`, with the receipt of the read (its time and request id). */
  read(server: ServerRef, signal?: AbortSignal): Promise<ArmRead<EncryptionProtector>> {
    const path = childId(sqlServerId(server, this.paths), "encryptionProtector", ENCRYPTION_PROTECTOR_NAME, this.paths);
    return this.singleRead(op(SQL_KEY_CUSTODY_OPERATIONS.getEncryptionProtector, "EncryptionProtector"), path, serverCall(server, signal));
  }
}

/** ServerKeys_*: objects of `serverKeys.json#/definitions/ServerKey`. */
export class ServerKeysClient extends ArmClient {
  constructor(opts: ArmClientOptions) {
    super(opts, { apiVersion: SQL_KEY_CUSTODY_API_VERSION, spec: SQL_SERVER_KEYS_SPEC });
  }

  /** ServerKeys_ListByServer: every key the server knows (the service-managed one included). */
  list(server: ServerRef, signal?: AbortSignal): Promise<ServerKey[]> {
    const path = `${sqlServerId(server, this.paths)}/keys`;
    return collect(this.pages(op(SQL_KEY_CUSTODY_OPERATIONS.listServerKeys, "ServerKey"), path, serverCall(server, signal)));
  }

  /** ServerKeys_Get: one key by name (`ServiceManaged`, or `<vault>_<key>_<version>`). */
  get(server: ServerRef, keyName: string, signal?: AbortSignal): Promise<ServerKey> {
    const path = childId(sqlServerId(server, this.paths), "keys", keyName, this.paths);
    const target: CallTarget = {
      label: `server key '${keyName}' of SQL server '${server.server}' (resource group '${server.resourceGroup}', subscription '${server.subscriptionId}')`,
      names: [keyName],
      hint: "Server key names are `ServiceManaged` or `<vault>_<key>_<version>`; list the server's keys to see them.",
    };
    return this.single(op(SQL_KEY_CUSTODY_OPERATIONS.getServerKey, "ServerKey"), path, { target, signal });
  }
}

function serverCall(server: ServerRef, signal?: AbortSignal): { target: CallTarget; signal?: AbortSignal } {
  return {
    target: {
      label: `SQL server '${server.server}' (resource group '${server.resourceGroup}', subscription '${server.subscriptionId}')`,
      names: [server.server],
      hint: "Check the server's name and resource group in the stack file.",
    },
    signal,
  };
}
