import { ApiError } from "../../platform/http/api-error";
import { ImdsClient, type ImdsClientOptions } from "./client";
import { CredentialUnavailableError } from "../../platform/auth/credential-errors";
import { scopesToResource } from "../../platform/auth/scopes";
import type { AccessToken, DiscardableTokenCredential, GetTokenOptions } from "../../platform/http/token-credential";

export interface ImdsCredentialOptions extends Partial<ImdsClientOptions> {
  /** User-assigned identity to ask for; default `AZURE_CLIENT_ID`, else the system identity. */
  clientId?: string;
  /** Refresh this long before expiry at most (ms). Default 5 minutes. */
  refreshMarginMs?: number;
  now?: () => number;
  client?: ImdsClient;
}

/** Codes that mean nothing answered at the IMDS address. */
const UNREACHABLE = new Set(["ECONNREFUSED", "UND_ERR_CONNECT_TIMEOUT", "ENETUNREACH", "EHOSTUNREACH"]);
const NO_IMDS_HINT = " (no IMDS here: outside Azure, set AZURE_ACCESS_TOKEN)";

interface CacheEntry {
  token: AccessToken;
  refreshAfter: number;
}

/**
 * A managed-identity credential backed by IMDS. Tokens are cached per resource and refreshed
 * ahead of expiry; concurrent callers share one refresh. While a refresh fails, a token that
 * has not expired yet is still handed out. A token the service refused can be discarded.
 */
export class ImdsManagedIdentityCredential implements DiscardableTokenCredential {
  private readonly client: ImdsClient;
  private readonly clientId?: string;
  private readonly margin: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<AccessToken>>();
  /** Token requests sent to IMDS (for diagnostics and tests). */
  fetches = 0;

  constructor(opts: ImdsCredentialOptions = {}) {
    this.client = opts.client ?? new ImdsClient({ ...opts, endpoint: opts.endpoint ?? "http://169.254.169.254/metadata" });
    this.clientId = opts.clientId ?? (process.env.AZURE_CLIENT_ID?.trim() || undefined);
    this.margin = opts.refreshMarginMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  get endpoint(): string {
    return this.client.endpoint;
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken> {
    const resource = scopesToResource(scopes);
    const now = this.now();
    const cached = this.cache.get(resource);
    if (cached && now < cached.refreshAfter) return cached.token;
    try {
      return await this.refresh(resource, options?.abortSignal);
    } catch (e) {
      if (cached && now < cached.token.expiresOnTimestamp) return cached.token;
      throw e;
    }
  }

  /** Forgets `token` if it is still cached; a token already replaced is left alone. */
  discardToken(token: string): void {
    for (const [resource, entry] of this.cache) if (entry.token.token === token) this.cache.delete(resource);
  }

  private refresh(resource: string, signal?: AbortSignal): Promise<AccessToken> {
    if (signal?.aborted) return Promise.reject(this.aborted());
    let p = this.inflight.get(resource);
    if (!p) {
      // The shared fetch belongs to no single caller, so one caller giving up does not fail the others;
      // each caller's own signal only ends its own wait.
      p = this.fetch(resource).finally(() => this.inflight.delete(resource));
      this.inflight.set(resource, p);
    }
    return signal ? this.untilAborted(p, signal) : p;
  }

  private aborted(): CredentialUnavailableError {
    return new CredentialUnavailableError(
      `managed identity via IMDS at ${this.client.endpoint}: RequestAborted: the request was cancelled`,
    );
  }

  private untilAborted(p: Promise<AccessToken>, signal: AbortSignal): Promise<AccessToken> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(this.aborted());
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  private async fetch(resource: string): Promise<AccessToken> {
    this.fetches += 1;
    let res;
    try {
      res = await this.client.token({ resource, clientId: this.clientId });
    } catch (e) {
      const why =
        e instanceof ApiError
          ? `${e.status ? `HTTP ${e.status} ` : ""}${e.code}: ${e.detail}${UNREACHABLE.has(e.code) ? NO_IMDS_HINT : ""}`
          : (e as Error).message;
      throw new CredentialUnavailableError(
        `managed identity via IMDS at ${this.client.endpoint}${this.clientId ? ` (client_id ${this.clientId})` : ""}: ${why}`,
      );
    }
    const expiresOn = Number(res.expires_on) * 1000;
    if (!res.access_token || !Number.isFinite(expiresOn) || expiresOn <= 0) {
      throw new CredentialUnavailableError(
        `managed identity via IMDS at ${this.client.endpoint}: the token response has no access_token or expires_on`,
      );
    }
    const issued = this.now();
    const lifetime = Math.max(0, expiresOn - issued);
    const refreshAfter = expiresOn - Math.min(this.margin, lifetime / 2);
    const token: AccessToken = {
      token: res.access_token,
      expiresOnTimestamp: expiresOn,
      refreshAfterTimestamp: refreshAfter,
      tokenType: res.token_type ?? "Bearer",
    };
    this.cache.set(resource, { token, refreshAfter });
    return token;
  }
}
