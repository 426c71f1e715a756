/**
 * The caller a change record names, from the token's claims when the record has no `caller`: the
 * UPN of a user (the `upn` claim, or its long SAML name as Event Grid's examples spell it), else
 * the application id of a service principal (`appid`, or `azp` in v2 tokens). Azure documents the
 * Activity Log's `caller` as "the email address of the user who has performed the operation, the
 * UPN claim or SPN claim based on availability".
 */
export function callerOfClaims(claims: unknown): string | null {
  if (!claims || typeof claims !== "object") return null;
  const c = claims as Record<string, unknown>;
  for (const name of ["upn", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn", "unique_name", "appid", "azp"]) {
    const v = c[name];
    if (typeof v === "string" && v.trim()) return v.trim();
  }
  return null;
}
