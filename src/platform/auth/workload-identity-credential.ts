import { readFile } from "node:fs/promises";
import { ApiError } from "../http/api-error";
import { HttpTransport } from "../http/transport";
import type { RetryPolicyOptions } from "../http/retry-policy";
import { AZURE_REQUEST_IDS } from "../arm/azure-request-ids";
import { CredentialUnavailableError } from "./credential-errors";
import type { AccessToken, DiscardableTokenCredential, GetTokenOptions } from "../http/token-credential";

/** Microsoft Entra ID's public cloud authority (AZURE_AUTHORITY_HOST overrides it). */
export const DEFAULT_AUTHORITY_HOST = "https://login.microsoftonline.com/";

export interface WorkloadIdentityOptions {
  tenantId: string;
  clientId: string;
  /** The projected service-account token Kubernetes rotates (AZURE_FEDERATED_TOKEN_FILE); read for every new access token. */
  tokenFile: string;
  /** Default AZURE_AUTHORITY_HOST, else Microsoft Entra ID's public cloud. */
  authorityHost?: string;
  /** Refresh this long before expiry at most (ms). Default 5 minutes. */
  refreshMarginMs?: number;
  retry?: Partial<RetryPolicyOptions>;
  now?: () => number;
}

interface TokenResponse {
  access_token?: string;
  expires_in?: number | string;
  token_type?: string;
}

/**
 * Azure workload identity (AKS, the Pulumi Kubernetes Operator's workspace pods): the pod's
 * Kubernetes service-account token, federated with a managed identity or app registration, is
 * exchanged at Microsoft Entra ID for an access token (OAuth 2.0 client credentials with a JWT
 * client assertion). The webhook of Azure Workload Identity sets AZURE_CLIENT_ID, AZURE_TENANT_ID,
 * AZURE_FEDERATED_TOKEN_FILE and AZURE_AUTHORITY_HOST. Tokens are cached per scope; the assertion
 * never appears in an error or a log.
 */
export class WorkloadIdentityCredential implements DiscardableTokenCredential {
  private readonly transport: HttpTransport;
  private readonly margin: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, AccessToken>();
  private readonly inflight = new Map<string, Promise<AccessToken>>();
  /** Token requests sent to Entra ID (for diagnostics and tests). */
  fetches = 0;

  constructor(private readonly opts: WorkloadIdentityOptions) {
    const authority = (opts.authorityHost || DEFAULT_AUTHORITY_HOST).replace(/\/?$/, "/");
    // Microsoft Entra ID speaks Azure's request ids: its failures quote the x-ms-request-id.
    this.transport = new HttpTransport({
      baseUrl: `${authority}${encodeURIComponent(opts.tenantId)}`,
      retry: opts.retry,
      requestIds: AZURE_REQUEST_IDS,
    });
    this.margin = opts.refreshMarginMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** The credential the environment configures, or undefined when AZURE_FEDERATED_TOKEN_FILE is not set. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): WorkloadIdentityCredential | undefined {
    const tokenFile = env.AZURE_FEDERATED_TOKEN_FILE?.trim();
    if (!tokenFile) return undefined;
    const missing = ["AZURE_CLIENT_ID", "AZURE_TENANT_ID"].filter((k) => !env[k]?.trim());
    if (missing.length)
      throw new CredentialUnavailableError(
        `AZURE_FEDERATED_TOKEN_FILE is set but ${missing.join(" and ")} ${missing.length > 1 ? "are" : "is"} not: workload identity needs all three (the Azure Workload Identity webhook sets them for pods labelled azure.workload.identity/use: "true")`,
      );
    return new WorkloadIdentityCredential({
      tokenFile,
      clientId: env.AZURE_CLIENT_ID!.trim(),
      tenantId: env.AZURE_TENANT_ID!.trim(),
      authorityHost: env.AZURE_AUTHORITY_HOST?.trim() || undefined,
    });
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken> {
    const list = Array.isArray(scopes) ? scopes : [scopes];
    if (list.length !== 1) throw new Error(`exactly one scope is supported, got ${list.length}`);
    // Entra ID's v2 endpoint wants scopes; stackwarden's callers may pass a v1 resource.
    const scope = list[0].endsWith("/.default") ? list[0] : `${list[0].replace(/\/$/, "")}/.default`;
    const cached = this.cache.get(scope);
    if (cached && this.now() < (cached.refreshAfterTimestamp ?? cached.expiresOnTimestamp)) return cached;
    let pending = this.inflight.get(scope);
    if (!pending) {
      pending = this.fetch(scope, options?.abortSignal).finally(() => this.inflight.delete(scope));
      this.inflight.set(scope, pending);
    }
    try {
      return await pending;
    } catch (e) {
      if (cached && this.now() < cached.expiresOnTimestamp) return cached;
      throw e;
    }
  }

  discardToken(token: string): void {
    for (const [scope, t] of this.cache) if (t.token === token) this.cache.delete(scope);
  }

  private async fetch(scope: string, signal?: AbortSignal): Promise<AccessToken> {
    let assertion: string;
    try {
      assertion = (await readFile(this.opts.tokenFile, "utf8")).trim();
    } catch (e) {
      throw new CredentialUnavailableError(
        `workload identity: cannot read the federated token file ${this.opts.tokenFile} (${(e as NodeJS.ErrnoException).code ?? "error"}); is the pod labelled azure.workload.identity/use: "true"?`,
      );
    }
    if (!assertion) throw new CredentialUnavailableError(`workload identity: the federated token file ${this.opts.tokenFile} is empty`);
    const form = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: this.opts.clientId,
      scope,
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
    this.fetches++;
    let res: TokenResponse;
    try {
      res = await this.transport.json<TokenResponse>({
        operation: "EntraId_Token",
        method: "POST",
        path: "/oauth2/v2.0/token",
        body: { data: form.toString(), contentType: "application/x-www-form-urlencoded" },
        signal,
      });
    } catch (e) {
      if (e instanceof ApiError && e.status >= 400 && e.status < 500) {
        // AADSTS70021 and the like: the federation does not match. Say what to check, not the assertion.
        throw new CredentialUnavailableError(
          `workload identity: Microsoft Entra ID refused the federated token for client ${this.opts.clientId} in tenant ${this.opts.tenantId}: ${e.message}; check the identity's federated credential (issuer: the cluster's OIDC issuer, subject: system:serviceaccount:<namespace>:<service account>)`,
        );
      }
      throw e;
    }
    const expiresIn = Number(res.expires_in);
    if (!res.access_token || !Number.isFinite(expiresIn) || expiresIn <= 0)
      throw new CredentialUnavailableError("workload identity: Microsoft Entra ID answered without access_token or expires_in");
    const now = this.now();
    const expiresOnTimestamp = now + expiresIn * 1000;
    const token: AccessToken = {
      token: res.access_token,
      expiresOnTimestamp,
      refreshAfterTimestamp: Math.max(now, expiresOnTimestamp - this.margin),
      tokenType: res.token_type ?? "Bearer",
    };
    this.cache.set(scope, token);
    return token;
  }
}
