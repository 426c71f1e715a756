import type { ActorSources } from "./audit-actor";
import type { TokenCredential } from "../../platform/http/token-credential";
import { ImdsClient } from "../../services/imds/client";
import { endpointsFromEnv } from "../../platform/settings/endpoints";

/**
 * Where the audit trail learns who applies: the credential the clients use, and IMDS when this
 * runs where IMDS is (the managed identity is in use, or `STACKWARDEN_IMDS_ENDPOINT` is set).
 * With only `AZURE_ACCESS_TOKEN` and no IMDS endpoint set, IMDS is not asked: outside Azure that
 * would only cost a connect timeout.
 */
export function actorSourcesFromEnv(env: NodeJS.ProcessEnv, credential: TokenCredential): ActorSources {
  const onVm = !env.AZURE_ACCESS_TOKEN?.trim() || !!env.STACKWARDEN_IMDS_ENDPOINT?.trim();
  return { credential, imds: onVm ? new ImdsClient({ endpoint: endpointsFromEnv(env).imds, retry: { maxAttempts: 2 } }) : undefined };
}
