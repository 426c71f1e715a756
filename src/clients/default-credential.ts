import { endpointsFromEnv } from "../platform/settings/endpoints";
import { ChainedTokenCredential, type NamedCredential } from "../platform/auth/chained-credential";
import { CredentialUnavailableError } from "../platform/auth/credential-errors";
import { ImdsManagedIdentityCredential } from "../services/imds/imds-credential";
import { StaticTokenCredential } from "../platform/auth/static-token-credential";
import type { TokenCredential } from "../platform/http/token-credential";
import { WorkloadIdentityCredential } from "../platform/auth/workload-identity-credential";

/**
 * stackwarden's credential: `AZURE_ACCESS_TOKEN` when set, else workload identity when
 * `AZURE_FEDERATED_TOKEN_FILE` is set (Kubernetes, e.g. the Pulumi Kubernetes Operator), else the
 * managed identity through IMDS (`STACKWARDEN_IMDS_ENDPOINT`, `AZURE_CLIENT_ID`).
 */
export function defaultCredential(env: NodeJS.ProcessEnv = process.env): TokenCredential {
  const links: NamedCredential[] = [];
  const staticToken = StaticTokenCredential.fromEnv(env);
  links.push({
    name: "environment token",
    credential: staticToken ?? {
      getToken: async () => {
        throw new CredentialUnavailableError("AZURE_ACCESS_TOKEN is not set");
      },
    },
  });
  const workload = staticToken ? undefined : WorkloadIdentityCredential.fromEnv(env);
  if (workload) links.push({ name: "workload identity", credential: workload });
  else if (!staticToken) {
    links.push({
      name: "managed identity",
      credential: new ImdsManagedIdentityCredential({
        endpoint: endpointsFromEnv(env).imds,
        clientId: env.AZURE_CLIENT_ID?.trim() || undefined,
      }),
    });
  }
  return new ChainedTokenCredential(links);
}
