import type { TokenClaims } from "../kit/access-tokens";

/** A token's claims as the change records carry them: the emulator's own, and a user's where a token names one. */
export type CallerClaims = TokenClaims & { azp?: string };

/**
 * Who made a write, as the Activity Log's `caller` and Event Grid's `data.authorization` name them:
 * a user's UPN (`upn`, else `unique_name`), else the application (`appid`, or `azp` in a v2 token).
 * The emulator's IMDS issues application tokens, so their caller is the managed identity's client id.
 */
export function callerOf(claims: CallerClaims): string {
  return claims.upn ?? claims.unique_name ?? claims.appid ?? claims.azp ?? "";
}

/**
 * The token's claims as Azure's change records render them: every value a string, and the
 * identity claims under the long names Azure's records use (as in the Activity Log example
 * GetActivityLogsFiltered.json and Event Grid's resource event examples).
 */
export function recordedClaims(claims: CallerClaims): Record<string, string> {
  const out: Record<string, string> = {
    aud: claims.aud,
    iss: claims.iss,
    iat: String(claims.iat),
    nbf: String(claims.nbf),
    exp: String(claims.exp),
    "http://schemas.microsoft.com/identity/claims/tenantid": claims.tid,
    "http://schemas.microsoft.com/identity/claims/objectidentifier": claims.oid,
  };
  if (claims.appid) out.appid = claims.appid;
  if (claims.azp) out.azp = claims.azp;
  if (claims.upn) out["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn"] = claims.upn;
  const name = claims.unique_name ?? claims.upn;
  if (name) out["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"] = name;
  if (claims.name) out.name = claims.name;
  return out;
}
