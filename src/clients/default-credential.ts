import { DEFAULT_IMDS_ENDPOINT, SettingsError, endpointsFromEnv } from "../platform/settings/endpoints";
import { endpointSettingName } from "../platform/settings/emulator-settings";
import type { AnsweringCredential } from "../platform/auth/credential-answer";
import { CredentialChain, type ChainLink } from "../platform/auth/credential-chain";
import {
  azureCliLink,
  azureDeveloperCliLink,
  azureManagedIdentityLink,
  environmentServicePrincipalLink,
  workloadIdentityLink,
} from "../platform/auth/azure-identity-links";
import { StaticTokenCredential } from "../platform/auth/static-token-credential";
import { ImdsClient } from "../services/imds/client";
import { describeImdsIdentity, imdsTokenSource } from "../services/imds/imds-credential";

/** stackwarden's credential: it gives tokens and says which credential they came from. */
export type DefaultCredential = AnsweringCredential & { discardToken?(token: string): void };

/** The chain's links in the order they are tried; AZURE_TOKEN_CREDENTIALS may keep a part of it. */
const ORDER = [
  "EnvironmentCredential",
  "WorkloadIdentityCredential",
  "ManagedIdentityCredential",
  "AzureCliCredential",
  "AzureDeveloperCliCredential",
];
const PROD = ORDER.slice(0, 3);
const DEV = ORDER.slice(3);

/**
 * stackwarden's credential. `AZURE_ACCESS_TOKEN`, when set, is used as is and nothing else is tried
 * (an explicit override; a 401 to it is final). Otherwise Azure's credential chain, in the order of
 * DefaultAzureCredential, each tried only when the one before cannot answer here:
 * 1. an environment service principal (AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE_PATH);
 * 2. workload identity (AZURE_FEDERATED_TOKEN_FILE, AZURE_CLIENT_ID, AZURE_TENANT_ID);
 * 3. managed identity, AZURE_CLIENT_ID naming a user-assigned one: from the IMDS at
 *    STACKWARDEN_IMDS_ENDPOINT when that is set (or STACKWARDEN_EMULATOR: no probe; when it shares
 *    ARM's origin and nothing answers there, that endpoint is down and the chain stops, naming it),
 *    else through @azure/identity (App Service, Arc, Cloud Shell, … or IMDS, probed once first);
 * 4. the Azure CLI (`az login`, `azure/login`); 5. the Azure Developer CLI (`azd auth login`).
 * AZURE_TOKEN_CREDENTIALS narrows the chain as DefaultAzureCredential's does: `dev` (4, 5), `prod`
 * (1–3), or one class name (`AzureCliCredential` …; `ManagedIdentityCredential` alone skips the probe).
 * The result caches tokens, discards a refused one, and says which credential answered.
 */
export function defaultCredential(env: NodeJS.ProcessEnv = process.env): DefaultCredential {
  const staticToken = StaticTokenCredential.fromEnv(env);
  if (staticToken) return staticToken;
  const chosen = chosenLinks(env.AZURE_TOKEN_CREDENTIALS);
  const endpoints = endpointsFromEnv(env);
  const imdsEndpoint = endpoints.imds;
  const clientId = env.AZURE_CLIENT_ID?.trim() || undefined;
  const make: Record<string, () => ChainLink> = {
    EnvironmentCredential: () => environmentServicePrincipalLink(env),
    WorkloadIdentityCredential: () => workloadIdentityLink(env),
    ManagedIdentityCredential: () =>
      imdsEndpoint !== DEFAULT_IMDS_ENDPOINT
        ? stackwardenImdsLink(imdsEndpoint, clientId, {
            endpointSetting: endpointSettingName(env, "STACKWARDEN_IMDS_ENDPOINT"),
            // One emulator (or one host) serving both ARM and its token source: when it is down, so is ARM.
            stopWhenUnreachable: sameOrigin(imdsEndpoint, endpoints.arm),
          })
        : azureManagedIdentityLink(env, { probe: chosen.length > 1 }),
    AzureCliCredential: azureCliLink,
    AzureDeveloperCliCredential: azureDeveloperCliLink,
  };
  return new CredentialChain(chosen.map((id) => make[id]()));
}

/**
 * Managed identity from the IMDS at an endpoint set explicitly (the emulator's), through
 * stackwarden's IMDS client: @azure/identity's cannot be pointed at it per credential (MSAL reads
 * AZURE_POD_IDENTITY_AUTHORITY_HOST from process.env and keeps the first source and its token cache
 * for the whole process). It sends what MSAL sends: `resource`, `client_id`, `Metadata: true`.
 */
function stackwardenImdsLink(
  endpoint: string,
  clientId: string | undefined,
  opts: { endpointSetting: string; stopWhenUnreachable: boolean },
): ChainLink {
  return {
    id: "ManagedIdentityCredential",
    label: describeImdsIdentity(endpoint, clientId),
    create() {
      const client = new ImdsClient({ endpoint, endpointSetting: opts.endpointSetting });
      const source = imdsTokenSource(client, clientId, { stopWhenUnreachable: opts.stopWhenUnreachable });
      return { getToken: (scopes) => source(Array.isArray(scopes) ? scopes : [scopes]) };
    },
  };
}

/** Whether two URLs share scheme, host and port. */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** The links AZURE_TOKEN_CREDENTIALS keeps (all when unset), in the chain's order; a SettingsError naming the variable for an unknown value. */
function chosenLinks(raw: string | undefined): string[] {
  const v = raw?.trim().toLowerCase();
  if (!v) return ORDER;
  if (v === "prod") return PROD;
  if (v === "dev") return DEV;
  const one = ORDER.find((id) => id.toLowerCase() === v);
  if (one) return [one];
  throw new SettingsError(`AZURE_TOKEN_CREDENTIALS: "${raw!.trim()}" is not one of prod, dev, ${ORDER.join(", ")}`);
}
