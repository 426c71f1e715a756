import { defaultCredential } from "./default-credential";
import type { TokenCredential } from "../platform/http/token-credential";
import { endpointsFromEnv } from "../platform/settings/endpoints";
import { namingStyleFromEnv } from "../platform/settings/naming-style";
import { SqlClient } from "../services/sql/client";
import { BatchAiClient } from "../services/batchai/client";

export interface AzureClients {
  credential: TokenCredential;
  sql: SqlClient;
  batch: BatchAiClient;
  armEndpoint: string;
}

const cache = new Map<string, AzureClients>();

/**
 * The ARM clients for an environment (endpoints, credential, naming). They are cached per
 * distinct setting, so a long-lived process (the provider plugin) keeps one credential and its
 * token cache instead of building them per call.
 */
export function azureClientsFromEnv(env: NodeJS.ProcessEnv = process.env): AzureClients {
  const key = [
    env.STACKWARDEN_ARM_ENDPOINT,
    env.STACKWARDEN_IMDS_ENDPOINT,
    env.AZURE_ACCESS_TOKEN,
    env.AZURE_CLIENT_ID,
    env.AZURE_TENANT_ID,
    env.AZURE_FEDERATED_TOKEN_FILE,
    env.AZURE_AUTHORITY_HOST,
    env.STACKWARDEN_PROVIDER_NAMES,
  ].join("\u0000");
  let clients = cache.get(key);
  if (!clients) {
    const endpoints = endpointsFromEnv(env);
    const credential = defaultCredential(env);
    const naming = namingStyleFromEnv(env);
    const opts = { endpoint: endpoints.arm, credential, naming };
    clients = { credential, sql: new SqlClient(opts), batch: new BatchAiClient(opts), armEndpoint: endpoints.arm };
    cache.set(key, clients);
  }
  return clients;
}
