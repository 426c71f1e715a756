/** The identity claims an audit entry keeps; nothing else of a token is ever kept. */
export interface IdentityClaims {
  tid?: string;
  oid?: string;
  appid?: string;
}

/** Claim values are ids (GUIDs, app ids): anything longer or with odd characters is not kept. */
const SAFE_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * Reads `tid`, `oid` and `appid` (or v2's `azp`) from a JWT's payload WITHOUT verifying it: the
 * service that accepted the token verified it; the trail records who it said it was. Returns
 * undefined for a token that is not a JWT. The token itself is never returned or kept.
 */
export function identityClaimsOf(token: string): IdentityClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!payload || typeof payload !== "object") return undefined;
  const pick = (v: unknown) => (typeof v === "string" && SAFE_ID.test(v) ? v : undefined);
  return { tid: pick(payload.tid), oid: pick(payload.oid), appid: pick(payload.appid) ?? pick(payload.azp) };
}
