import { CredentialUnavailableError } from "./credential-errors";
import type { AccessToken, DiscardableTokenCredential, GetTokenOptions, PeekableTokenCredential } from "../http/token-credential";

/**
 * Where a cached credential's tokens come from, asked only when the cache cannot answer. It gets no
 * abort signal: its fetch is shared by every caller waiting for the same scopes, and one caller
 * giving up must not fail the others.
 */
export type TokenSource = (scopes: string[]) => Promise<AccessToken>;

export interface CachedTokenCredentialOptions {
  /** What the source is, for errors: `managed identity via IMDS at http://…`. */
  describe: string;
  /** Refresh this long before expiry at most (ms); never more than half the token's lifetime. Default 300 000 (5 minutes). */
  refreshMarginMs?: number;
  now?: () => number;
}

/**
 * Tokens cached per scope list and refreshed ahead of expiry (at the source's own refresh time when
 * it gives one, else 5 minutes or half the lifetime before expiry); concurrent callers share one
 * refresh, and while a refresh fails a token that has not expired yet is still handed out. A token
 * the service refused can be discarded, so the next call asks the source again.
 */
export class CachedTokenCredential implements DiscardableTokenCredential, PeekableTokenCredential {
  private readonly margin: number;
  protected readonly now: () => number;
  private readonly cache = new Map<string, AccessToken & { refreshAfterTimestamp: number }>();
  private readonly inflight = new Map<string, Promise<AccessToken>>();
  /** Tokens asked of the source (for diagnostics and tests). */
  fetches = 0;

  constructor(
    private readonly source: TokenSource,
    private readonly opts: CachedTokenCredentialOptions,
  ) {
    this.margin = opts.refreshMarginMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken> {
    const list = Array.isArray(scopes) ? scopes : [scopes];
    const key = list.join(" ");
    const now = this.now();
    const cached = this.cache.get(key);
    if (cached && now < cached.refreshAfterTimestamp) return cached;
    try {
      return await this.refresh(key, list, options?.abortSignal);
    } catch (e) {
      if (cached && now < cached.expiresOnTimestamp) return cached;
      throw e;
    }
  }

  /** The cached token `getToken` would return now, without a promise; undefined when it would ask the source. */
  peekToken(scopes: string[]): AccessToken | undefined {
    const cached = this.cache.get(scopes.length === 1 ? scopes[0] : scopes.join(" "));
    return cached && this.now() < cached.refreshAfterTimestamp ? cached : undefined;
  }

  /** Forgets `token` if it is still cached; a token already replaced is left alone. */
  discardToken(token: string): void {
    for (const [key, t] of this.cache) if (t.token === token) this.cache.delete(key);
  }

  private refresh(key: string, scopes: string[], signal?: AbortSignal): Promise<AccessToken> {
    if (signal?.aborted) return Promise.reject(this.aborted());
    let p = this.inflight.get(key);
    if (!p) {
      p = this.fetch(key, scopes).finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return signal ? this.untilAborted(p, signal) : p;
  }

  private async fetch(key: string, scopes: string[]): Promise<AccessToken> {
    this.fetches += 1;
    const got = await this.source(scopes);
    const issued = this.now();
    const lifetime = Math.max(0, got.expiresOnTimestamp - issued);
    const ours = got.expiresOnTimestamp - Math.min(this.margin, lifetime / 2);
    const token = {
      token: got.token,
      expiresOnTimestamp: got.expiresOnTimestamp,
      refreshAfterTimestamp: Math.min(ours, got.refreshAfterTimestamp ?? ours),
      tokenType: got.tokenType ?? "Bearer",
    };
    this.cache.set(key, token);
    return token;
  }

  private aborted(): CredentialUnavailableError {
    return new CredentialUnavailableError(`${this.opts.describe}: RequestAborted: the request was cancelled`);
  }

  private untilAborted(p: Promise<AccessToken>, signal: AbortSignal): Promise<AccessToken> {
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(this.aborted());
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }
}
