import { defaultCredential } from "../auth/default-credential";
import type { TokenCredential } from "../auth/token-credential";
import { endpointsFromEnv } from "../settings/endpoints";
import { namingStyleFromEnv } from "../services/provider-namespace";
import { SqlClient } from "../services/sql/client";
import { BatchAiClient } from "../services/batchai/client";

export interface AzureClients {
  credential: TokenCredential;
  sql: SqlClient;
  batch: BatchAiClient;
  armEndpoint: string;
}

/** Builds the ARM clients from the environment (endpoints, credential, naming). */
export function azureClientsFromEnv(env: NodeJS.ProcessEnv): AzureClients {
  const endpoints = endpointsFromEnv(env);
  const credential = defaultCredential(env);
  const naming = namingStyleFromEnv(env);
  const opts = { endpoint: endpoints.arm, credential, naming };
  return { credential, sql: new SqlClient(opts), batch: new BatchAiClient(opts), armEndpoint: endpoints.arm };
}
