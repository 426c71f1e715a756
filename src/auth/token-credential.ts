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
