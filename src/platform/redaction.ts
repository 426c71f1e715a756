/**
 * Allowlist-based redaction: only names known to be harmless are printed with their values.
 * Everything else is replaced, so a new secret-bearing parameter is hidden by default. `src/platform/http`
 * knows only HTTP's own harmless names; each service adds its own (an ARM client allows
 * `api-version` and `x-ms-request-id`, a geocoding client `lat` and `lng`) through `Redactor.allow`,
 * and never its secrets (`api_key`, `X-APISETU-APIKEY`), which therefore stay hidden. A transport
 * also allows the request-id headers its caller names (they are printed in errors anyway).
 */
export const REDACTED = "REDACTED";

/** Harmless names of any HTTP request or response, and those the transport itself sends or reads. */
const HTTP_HEADERS = [
  "accept",
  "content-type",
  "content-length",
  "user-agent",
  "date",
  // The delays the generic retry policy reads (retry-after.ts): `retry-after-ms` and Azure's
  // `x-ms-retry-after-ms` stay here with `Retry-After`, as they do in Azure's own core-rest-pipeline.
  "retry-after",
  "retry-after-ms",
  "x-ms-retry-after-ms",
  "location",
  "www-authenticate",
  "etag",
];

/** Names a service declares safe to print with their values. */
export interface SafeNames {
  query?: readonly string[];
  headers?: readonly string[];
}

/** Redacts URLs and headers to an allowlist: HTTP's own names plus those the service declared safe. */
export class Redactor {
  private readonly query: ReadonlySet<string>;
  private readonly headers: ReadonlySet<string>;

  constructor(safe: SafeNames = {}) {
    this.query = new Set((safe.query ?? []).map((n) => n.toLowerCase()));
    this.headers = new Set([...HTTP_HEADERS, ...(safe.headers ?? [])].map((n) => n.toLowerCase()));
  }

  /** A redactor that also lets these names through. */
  allow(safe: SafeNames): Redactor {
    return new Redactor({ query: [...this.query, ...(safe.query ?? [])], headers: [...this.headers, ...(safe.headers ?? [])] });
  }

  /** The URL with every query value outside the allowlist, and any user info, replaced by `REDACTED`. */
  url(url: string | URL): string {
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
      const value = this.query.has(k.toLowerCase()) ? v : REDACTED;
      out.push(`${encodeURIComponent(k)}=${encodeURIComponent(value)}`);
    }
    u.search = out.join("&");
    return u.href;
  }

  /** A copy of the headers with every value outside the allowlist replaced by `REDACTED`. */
  headerValues(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (v === undefined) continue;
      out[k] = this.headers.has(k.toLowerCase()) ? String(v) : REDACTED;
    }
    return out;
  }
}

/** Only HTTP's own names: what any code that knows no service may print. */
export const httpRedactor = new Redactor();

/** Redacts a URL with HTTP's own allowlist (every query value hidden). */
export function redactUrl(url: string | URL): string {
  return httpRedactor.url(url);
}

/** Redacts headers with HTTP's own allowlist. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return httpRedactor.headerValues(headers);
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
