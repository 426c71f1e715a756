import type * as AzureIdentity from "@azure/identity";
import type { ChainLink } from "./credential-chain";
import { CredentialUnavailableError } from "./credential-errors";
import type { AccessToken, GetTokenOptions, TokenCredential } from "../http/token-credential";

// The links of the chain that @azure/identity's credentials answer. Each reads its settings from the
// `env` given (not process.env), except where @azure/identity itself reads process.env: the managed
// identity source MSAL picks (IDENTITY_ENDPOINT, MSI_ENDPOINT, AZURE_POD_IDENTITY_AUTHORITY_HOST …)
// and the PATH on which the Azure CLI and the Azure Developer CLI are found.

let identity: typeof AzureIdentity | undefined;
/** @azure/identity, loaded when the chain first reaches one of its credentials (~220 ms), not with stackwarden. */
function azureIdentity(): typeof AzureIdentity {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred: the emulator and AZURE_ACCESS_TOKEN never need it
  return (identity ??= require("@azure/identity") as typeof AzureIdentity);
}

/**
 * An @azure/identity credential as stackwarden's TokenCredential: the same token shape, the options
 * stackwarden passes (abort signal, claims, tenant) plus `extra` (e.g. a probe timeout). Its errors
 * pass through: the chain words them.
 */
export function fromAzureIdentity(credential: AzureIdentity.TokenCredential, extra: AzureIdentity.GetTokenOptions = {}): TokenCredential {
  return {
    async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
      const t = await credential.getToken(scopes, { ...extra, ...options });
      return (
        t && {
          token: t.token,
          expiresOnTimestamp: t.expiresOnTimestamp,
          refreshAfterTimestamp: t.refreshAfterTimestamp,
          tokenType: t.tokenType,
        }
      );
    },
  };
}

const value = (env: NodeJS.ProcessEnv, name: string) => env[name]?.trim() || undefined;

/** Names the variables of `names` that are not set, in words: `AZURE_TENANT_ID and AZURE_CLIENT_ID are not set`. */
function unset(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  const missing = names.filter((n) => !value(env, n));
  if (!missing.length) return undefined;
  const list = missing.length === 1 ? missing[0] : `${missing.slice(0, -1).join(", ")} and ${missing[missing.length - 1]}`;
  return `${list} ${missing.length === 1 ? "is" : "are"} not set`;
}

function authorityHost(env: NodeJS.ProcessEnv): { authorityHost?: string } {
  const host = value(env, "AZURE_AUTHORITY_HOST");
  return host ? { authorityHost: host } : {};
}

/**
 * A service principal from the environment, as EnvironmentCredential reads it: AZURE_TENANT_ID and
 * AZURE_CLIENT_ID with AZURE_CLIENT_SECRET (a client secret), or with AZURE_CLIENT_CERTIFICATE_PATH
 * (a PEM certificate with its private key; AZURE_CLIENT_CERTIFICATE_PASSWORD,
 * AZURE_CLIENT_SEND_CERTIFICATE_CHAIN); AZURE_AUTHORITY_HOST for other clouds.
 */
export function environmentServicePrincipalLink(env: NodeJS.ProcessEnv): ChainLink {
  const secret = value(env, "AZURE_CLIENT_SECRET");
  const certificatePath = value(env, "AZURE_CLIENT_CERTIFICATE_PATH");
  const kind = secret ? "client secret" : certificatePath ? "certificate" : undefined;
  return {
    id: "EnvironmentCredential",
    label: kind ? `environment service principal (${kind})` : "environment service principal",
    create() {
      if (!kind) throw new CredentialUnavailableError("AZURE_CLIENT_SECRET and AZURE_CLIENT_CERTIFICATE_PATH are not set");
      const missing = unset(env, ["AZURE_TENANT_ID", "AZURE_CLIENT_ID"]);
      if (missing)
        throw new CredentialUnavailableError(`${secret ? "AZURE_CLIENT_SECRET" : "AZURE_CLIENT_CERTIFICATE_PATH"} is set but ${missing}`);
      const tenantId = value(env, "AZURE_TENANT_ID")!;
      const clientId = value(env, "AZURE_CLIENT_ID")!;
      const { ClientSecretCredential, ClientCertificateCredential } = azureIdentity();
      if (secret) return fromAzureIdentity(new ClientSecretCredential(tenantId, clientId, secret, authorityHost(env)));
      const sendCertificateChain = /^(true|1)$/i.test(value(env, "AZURE_CLIENT_SEND_CERTIFICATE_CHAIN") ?? "");
      return fromAzureIdentity(
        new ClientCertificateCredential(
          tenantId,
          clientId,
          { certificatePath: certificatePath!, certificatePassword: value(env, "AZURE_CLIENT_CERTIFICATE_PASSWORD") },
          { ...authorityHost(env), sendCertificateChain },
        ),
      );
    },
  };
}

/**
 * Azure workload identity (AKS, the Pulumi Kubernetes Operator's workspace pods): the projected
 * service-account token in AZURE_FEDERATED_TOKEN_FILE, exchanged at Microsoft Entra ID for the
 * identity AZURE_CLIENT_ID names in AZURE_TENANT_ID (the Azure Workload Identity webhook sets all
 * of them, and AZURE_AUTHORITY_HOST).
 */
export function workloadIdentityLink(env: NodeJS.ProcessEnv): ChainLink {
  return {
    id: "WorkloadIdentityCredential",
    label: "workload identity",
    create() {
      const tokenFilePath = value(env, "AZURE_FEDERATED_TOKEN_FILE");
      if (!tokenFilePath) throw new CredentialUnavailableError("AZURE_FEDERATED_TOKEN_FILE is not set");
      const missing = unset(env, ["AZURE_CLIENT_ID", "AZURE_TENANT_ID"]);
      if (missing)
        throw new CredentialUnavailableError(
          `AZURE_FEDERATED_TOKEN_FILE is set but ${missing} (the Azure Workload Identity webhook sets them for pods labelled azure.workload.identity/use: "true")`,
        );
      const { WorkloadIdentityCredential } = azureIdentity();
      return fromAzureIdentity(
        new WorkloadIdentityCredential({
          tenantId: value(env, "AZURE_TENANT_ID")!,
          clientId: value(env, "AZURE_CLIENT_ID")!,
          tokenFilePath,
          ...authorityHost(env),
        }),
      );
    },
  };
}

/**
 * How long @azure/identity's managed identity waits for IMDS to answer its probe before it decides
 * there is no IMDS here (its own default, as DefaultAzureCredential uses it). Real IMDS is served by
 * the host and answers within milliseconds; elsewhere the probe costs at most this, once per process
 * (the chain then goes on and remembers what answered), and AZURE_TOKEN_CREDENTIALS=dev skips it.
 */
export const IMDS_PROBE_TIMEOUT_MS = 1_000;

/**
 * Azure's managed identity through @azure/identity: whichever source the machine offers (App
 * Service and Functions, Azure Arc, Cloud Shell, Service Fabric, AKS pod identity, else IMDS at
 * 169.254.169.254), for the user-assigned identity AZURE_CLIENT_ID when set. With `probe`, IMDS is
 * first probed once with a short timeout and no retries, as DefaultAzureCredential does, so a
 * machine without IMDS is told apart quickly instead of after the token request's retries.
 */
export function azureManagedIdentityLink(env: NodeJS.ProcessEnv, opts: { probe: boolean }): ChainLink {
  return {
    id: "ManagedIdentityCredential",
    label: "managed identity",
    create() {
      const { ManagedIdentityCredential } = azureIdentity();
      // sendProbeRequest is the internal option DefaultAzureCredential sets (see @azure/identity's
      // defaultAzureCredentialFunctions); the version is pinned, so it stays what it is.
      const options: AzureIdentity.ManagedIdentityCredentialClientIdOptions & { sendProbeRequest: boolean } = {
        clientId: value(env, "AZURE_CLIENT_ID"),
        sendProbeRequest: opts.probe,
        retryOptions: { maxRetries: 5, retryDelayInMs: 800 },
      };
      return fromAzureIdentity(new ManagedIdentityCredential(options), { requestOptions: { timeout: IMDS_PROBE_TIMEOUT_MS } });
    },
  };
}

/** The Azure CLI's sign-in (`az login`, or `azure/login` in a GitHub workflow): `az account get-access-token`. */
export function azureCliLink(): ChainLink {
  return {
    id: "AzureCliCredential",
    label: "Azure CLI",
    create: () => fromAzureIdentity(new (azureIdentity().AzureCliCredential)()),
  };
}

/** The Azure Developer CLI's sign-in (`azd auth login`): `azd auth token`. */
export function azureDeveloperCliLink(): ChainLink {
  return {
    id: "AzureDeveloperCliCredential",
    label: "Azure Developer CLI",
    create: () => fromAzureIdentity(new (azureIdentity().AzureDeveloperCliCredential)()),
  };
}
