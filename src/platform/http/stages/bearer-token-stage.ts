import { ApiError } from "../api-error";
import { credentialOriginProblem } from "../credential-origins";
import type { OutgoingRequest, RawResponse, Send, Stage } from "../pipeline";
import { scrubTokens } from "../../redaction";
import { canDiscardTokens, canPeekTokens, type DiscardableTokenCredential, type TokenCredential } from "../token-credential";
import type { TransportContext } from "../transport-context";
import { EndpointUnreachableError } from "../unreachable";

export const BEARER_TOKEN_STAGE = "bearerToken";

/**
 * `Authorization: Bearer <token>` from a credential. A 401 to the token is sent once more with a new
 * one when the credential can discard the refused one (a token expired early by clock skew, or
 * revoked, is cached still); a static token's 401 is final, and a refused new token is not retried.
 * A token is never sent over plain http except to a loopback address: elsewhere the call fails
 * before the token is even asked for (see credential-origins.ts).
 */
export function bearerTokenStage(ctx: TransportContext, credential: TokenCredential, scopes: string[]): Stage {
  // The origin is fixed for the transport (links to another origin are refused), so this is decided once.
  const insecure = credentialOriginProblem(ctx.origin, "a bearer token");
  function withToken(req: OutgoingRequest, token: string): OutgoingRequest {
    ctx.secrets.add(token);
    // Object.assign, not spread: cheaper on every request.
    return Object.assign({}, req, { headers: Object.assign({}, req.headers, { authorization: `Bearer ${token}` }) });
  }
  const peek = canPeekTokens(credential) ? (s: string[]) => credential.peekToken(s) : undefined;
  /** After a 401 to the cached token: once more with a new one, when the credential can discard the refused one. */
  async function renewed(req: OutgoingRequest, next: Send, token: string): Promise<RawResponse> {
    (credential as DiscardableTokenCredential).discardToken(token);
    ctx.logger.warn(`${ctx.describe(req)}: 401 to the cached token; retrying once with a new one`);
    // The refused answer's body was read in full, so its connection is free again.
    return next(withToken(req, await acquire(ctx, credential, scopes, req)));
  }
  const send = (req: OutgoingRequest, next: Send, token: string): Promise<RawResponse> =>
    next(withToken(req, token)).then((raw) =>
      raw.res.statusCode !== 401 || !canDiscardTokens(credential) ? raw : renewed(req, next, token),
    );
  return {
    name: BEARER_TOKEN_STAGE,
    send(req, next) {
      if (insecure) return Promise.reject(ctx.failure(req.spec, "InsecureConnection", insecure));
      // A token in the cache (nearly every request) is sent at once: no await of getToken's promise.
      // A cancelled call still fails as cancelled, as acquire would fail it.
      const cached = peek?.(scopes);
      if (cached && !req.spec.signal?.aborted) return send(req, next, cached.token);
      return acquire(ctx, credential, scopes, req).then((token) => send(req, next, token));
    },
  };
}

async function acquire(ctx: TransportContext, credential: TokenCredential, scopes: string[], req: OutgoingRequest): Promise<string> {
  const spec = req.spec;
  let token;
  try {
    token = await credential.getToken(scopes, { abortSignal: spec.signal });
  } catch (e) {
    // A cancelled call is a cancelled call, even while it waits for its token.
    if (spec.signal?.aborted) throw ctx.failure(spec, "RequestAborted", "the request was cancelled");
    if (e instanceof ApiError && e.code === "RequestAborted") throw e;
    // The token source is down (an IMDS nothing answers at): say so, in its own code, not as a credential problem.
    if (e instanceof EndpointUnreachableError) throw ctx.failure(spec, e.code, e.message);
    throw ctx.failure(spec, "CredentialUnavailable", scrubTokens((e as Error).message));
  }
  if (!token) throw ctx.failure(spec, "CredentialUnavailable", "the credential returned no token");
  return token.token;
}
