import { ApiError } from "../../platform/http/api-error";
import { EndpointUnreachableError, isUnreachableCode } from "../../platform/http/unreachable";
import { ImdsClient, type ImdsClientOptions } from "./client";
import { CachedTokenCredential, type TokenSource } from "../../platform/auth/cached-token-credential";
import { CredentialUnavailableError } from "../../platform/auth/credential-errors";
import { scopesToResource } from "../../platform/auth/scopes";

export interface ImdsCredentialOptions extends Partial<ImdsClientOptions> {
  /** User-assigned identity to ask for; default `AZURE_CLIENT_ID`, else the system identity. */
  clientId?: string;
  /** Refresh this long before expiry at most (ms). Default 5 minutes. */
  refreshMarginMs?: number;
  now?: () => number;
  client?: ImdsClient;
}

/** Codes that mean nothing answered at the IMDS address. */
const NO_IMDS_HINT = " (no IMDS here)";

/** How errors name an IMDS identity: `managed identity via IMDS at <endpoint> (client_id <id>)`. */
export function describeImdsIdentity(endpoint: string, clientId?: string): string {
  return `managed identity via IMDS at ${endpoint}${clientId ? ` (client_id ${clientId})` : ""}`;
}

/**
 * One token from IMDS per call, uncached: the request IMDS documents (`resource`, `client_id` for a
 * user-assigned identity, `Metadata: true`) through the IMDS client and its retry advice. A failure
 * is a CredentialUnavailableError saying what IMDS answered (its caller names the endpoint and the
 * identity: describeImdsIdentity); a connection nobody answers says there is no IMDS here, or, with
 * `stopWhenUnreachable` (an IMDS that serves the ARM endpoint's tokens, as one emulator serves both),
 * is an EndpointUnreachableError: that endpoint is down, and no other credential is to be tried.
 */
export function imdsTokenSource(client: ImdsClient, clientId?: string, opts: { stopWhenUnreachable?: boolean } = {}): TokenSource {
  return async (scopes) => {
    const resource = scopesToResource(scopes);
    let res;
    try {
      res = await client.token({ resource, clientId });
    } catch (e) {
      if (opts.stopWhenUnreachable && e instanceof ApiError && isUnreachableCode(e.code)) {
        throw new EndpointUnreachableError(e.code, `the IMDS that gives this endpoint's tokens does not answer: ${e.detail}`);
      }
      const why =
        e instanceof ApiError
          ? `${e.status ? `HTTP ${e.status} ` : ""}${e.code}: ${e.detail}${isUnreachableCode(e.code) ? NO_IMDS_HINT : ""}`
          : (e as Error).message;
      throw new CredentialUnavailableError(why);
    }
    const expiresOn = Number(res.expires_on) * 1000;
    if (!res.access_token || !Number.isFinite(expiresOn) || expiresOn <= 0) {
      throw new CredentialUnavailableError("the token response has no access_token or expires_on");
    }
    return { token: res.access_token, expiresOnTimestamp: expiresOn, tokenType: res.token_type ?? "Bearer" };
  };
}

/**
 * A managed-identity credential backed by the IMDS at an endpoint of one's choosing (the emulator's,
 * a test's): IMDS tokens cached per resource, refreshed ahead of expiry, shared by concurrent
 * callers, handed out while a refresh fails and discardable after a 401 (CachedTokenCredential).
 * @azure/identity's ManagedIdentityCredential cannot stand in here: MSAL fixes its IMDS address and
 * token cache once per process (static fields), so it cannot serve two IMDS endpoints at once.
 */
export class ImdsManagedIdentityCredential extends CachedTokenCredential {
  readonly endpoint: string;

  constructor(opts: ImdsCredentialOptions = {}) {
    const client = opts.client ?? new ImdsClient({ ...opts, endpoint: opts.endpoint ?? "http://169.254.169.254/metadata" });
    const clientId = opts.clientId ?? (process.env.AZURE_CLIENT_ID?.trim() || undefined);
    const source = imdsTokenSource(client, clientId);
    const named = describeImdsIdentity(client.endpoint, clientId);
    super(
      (scopes) =>
        source(scopes).catch((e: Error) => {
          throw new CredentialUnavailableError(`${named}: ${e.message}`);
        }),
      {
        describe: describeImdsIdentity(client.endpoint),
        refreshMarginMs: opts.refreshMarginMs,
        now: opts.now,
      },
    );
    this.endpoint = client.endpoint;
  }
}
