/**
 * The `@azure/core-auth` TokenCredential shape, restated so that any `@azure/identity`
 * credential can be passed where stackwarden expects one, without depending on that package.
 */
export interface AccessToken {
  token: string;
  /** Expiry as a Unix timestamp in milliseconds. */
  expiresOnTimestamp: number;
  /** When the credential would like to refresh, as a Unix timestamp in milliseconds. */
  refreshAfterTimestamp?: number;
  tokenType?: string;
}

export interface GetTokenOptions {
  abortSignal?: AbortSignal;
  claims?: string;
  tenantId?: string;
}

export interface TokenCredential {
  getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null>;
}

/**
 * A credential that can drop a token the service refused with 401 (expired early by clock skew,
 * or revoked), so that its next `getToken` fetches a new one instead of returning the cached one.
 * An `@azure/identity` credential does not have this; the transport then reports the 401 as is.
 */
export interface DiscardableTokenCredential extends TokenCredential {
  discardToken(token: string): void;
}

/**
 * A credential that can say, without a promise, which cached token it would hand out now: the
 * bearer stage then sends at once instead of awaiting `getToken` on every request (an async call,
 * two promises and their microtasks, for an answer that is nearly always the cached token).
 */
export interface PeekableTokenCredential extends TokenCredential {
  /** The token `getToken(scopes)` would return now without asking its source; undefined when a refresh is due. */
  peekToken(scopes: string[]): AccessToken | undefined;
}

/** Whether the credential can answer from its cache synchronously (`PeekableTokenCredential`). */
export function canPeekTokens(credential: TokenCredential): credential is PeekableTokenCredential {
  return typeof (credential as Partial<PeekableTokenCredential>).peekToken === "function";
}

export function canDiscardTokens(credential: TokenCredential): credential is DiscardableTokenCredential {
  return typeof (credential as Partial<DiscardableTokenCredential>).discardToken === "function";
}
