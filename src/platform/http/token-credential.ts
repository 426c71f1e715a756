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

export function canDiscardTokens(credential: TokenCredential): credential is DiscardableTokenCredential {
  return typeof (credential as Partial<DiscardableTokenCredential>).discardToken === "function";
}
