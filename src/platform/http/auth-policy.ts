import type { TokenCredential } from "./token-credential";

/** How a transport authenticates its requests. */
export type AuthPolicy =
  | { kind: "none" }
  /** `Authorization: Bearer <token>` from a TokenCredential (cached and refreshed by the credential). */
  | { kind: "bearer"; credential: TokenCredential; scopes: string[] }
  /** API keys (and companion ids) in request headers, e.g. `X-APISETU-APIKEY`. */
  | { kind: "header"; headers: Record<string, string> }
  /** An API key in the query string, e.g. `api_key`. */
  | { kind: "query"; name: string; value: string };
