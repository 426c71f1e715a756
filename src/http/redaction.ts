/**
 * Allowlist-based redaction: only names known to be harmless are printed with their values.
 * Everything else is replaced, so a new secret-bearing parameter is hidden by default.
 */
export const REDACTED = "REDACTED";

const ALLOWED_QUERY = new Set([
  "api-version",
  "$skiptoken",
  "$top",
  "$filter",
  "$expand",
  "resource",
  "client_id",
  "object_id",
  "format",
  "nonce",
  "text",
  "lat",
  "lng",
  "country",
  "radius",
  "from",
  "to",
  "q",
  "address",
  "streetname",
  "placetype",
  "lang",
  "style",
  "indent",
  "postal",
  "bypass_cache",
]);

const ALLOWED_HEADERS = new Set([
  "accept",
  "content-type",
  "content-length",
  "user-agent",
  "date",
  "retry-after",
  "retry-after-ms",
  "x-ms-retry-after-ms",
  "x-ms-request-id",
  "x-ms-client-request-id",
  "x-ms-correlation-request-id",
  "x-ms-ratelimit-remaining-subscription-reads",
  "x-ms-ratelimit-remaining-subscription-writes",
  "azure-asyncoperation",
  "location",
  "metadata",
  "www-authenticate",
  "etag",
  "x-apisetu-clientid",
  "x-gateway-clientid",
]);

/** Returns the URL with every query value outside the allowlist replaced by `REDACTED`. */
export function redactUrl(url: string | URL): string {
  let u: URL;
  try {
    u = typeof url === "string" ? new URL(url) : new URL(url.href);
  } catch {
    return "<unparseable url>";
  }
  if (u.username || u.password) {
    u.username = u.username ? REDACTED : "";
    u.password = u.password ? REDACTED : "";
  }
  if (!u.search) return u.href;
  const out: string[] = [];
  for (const [k, v] of u.searchParams) {
    const value = ALLOWED_QUERY.has(k.toLowerCase()) ? v : REDACTED;
    out.push(`${encodeURIComponent(k)}=${encodeURIComponent(value)}`);
  }
  u.search = out.join("&");
  return u.href;
}

/** Returns a copy of the headers with every value outside the allowlist replaced by `REDACTED`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = ALLOWED_HEADERS.has(k.toLowerCase()) ? String(v) : REDACTED;
  }
  return out;
}

/**
 * Replaces every occurrence of a known secret value in free text (error bodies may echo a key back).
 * Secrets shorter than 4 characters are ignored: replacing them would mangle ordinary text.
 */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) {
    if (s && s.length >= 4 && out.includes(s)) out = out.split(s).join(REDACTED);
  }
  return out;
}

/** Matches bearer tokens and JWT-shaped strings, for text whose secrets are not known in advance. */
const TOKENISH = /\b(Bearer\s+)[A-Za-z0-9\-._~+/]+=*|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g;

/** Redacts bearer tokens and JWTs found anywhere in free text. */
export function scrubTokens(text: string): string {
  return text.replace(TOKENISH, (_m, bearer: string | undefined) => (bearer ? `${bearer}${REDACTED}` : REDACTED));
}
