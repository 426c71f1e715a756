import { ApiError } from "../api-error";
import { credentialOriginProblem } from "../credential-origins";
import type { OutgoingRequest, Stage } from "../pipeline";
import { scrubTokens } from "../../redaction";
import { canDiscardTokens, type TokenCredential } from "../token-credential";
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
  return {
    name: BEARER_TOKEN_STAGE,
    async send(req, next) {
      if (insecure) throw ctx.failure(req.spec, "InsecureConnection", insecure);
      const token = await acquire(ctx, credential, scopes, req);
      const raw = await next(withToken(req, token));
      if (raw.res.statusCode !== 401 || !canDiscardTokens(credential)) return raw;
      credential.discardToken(token);
      ctx.logger.warn(`${ctx.describe(req)}: 401 to the cached token; retrying once with a new one`);
      // The refused answer's body was read in full, so its connection is free again.
      return next(withToken(req, await acquire(ctx, credential, scopes, req)));
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
