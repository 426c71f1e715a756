import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { IncomingMessage } from "node:http";

/** The shortest status token accepted: long enough that guessing it over HTTP is hopeless. */
export const MIN_STATUS_TOKEN_LENGTH = 16;

/** The cookie a browser keeps after signing in with `?token=`. */
export const STATUS_COOKIE = "stackwarden_status";

/** Whether a listen host is a loopback address (127.0.0.0/8, ::1, localhost): reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || /^::ffff:127\./.test(h) || /^0*:0*:0*:0*:0*:0*:0*:0*1$/.test(h);
  return false;
}

/** What a request may see. */
export type AccessVerdict =
  | { ok: true }
  /** No credential, or a wrong one: 401 with a challenge. */
  | { ok: false; status: 401; reason: string }
  /** On a loopback address without a token: a Host header that is not a loopback name (DNS rebinding). */
  | { ok: false; status: 403; reason: string };

/**
 * Who may read the status page, the API and /metrics. On a loopback address without a token,
 * anyone on this machine, provided the Host header names a loopback address too (a page on
 * another site, its name rebound to 127.0.0.1, is turned away). With a token (required on any other
 * address), every request carries it: `Authorization: Bearer TOKEN`, or Basic with TOKEN as the
 * password (what a browser asks for), or the cookie set by `/?token=TOKEN`. Comparisons are constant-time.
 */
export class StatusAccess {
  private readonly tokenDigest?: Buffer;
  private readonly cookieValue?: string;

  constructor(
    readonly host: string,
    token: string | undefined,
  ) {
    if (token !== undefined) {
      if (token.length < MIN_STATUS_TOKEN_LENGTH || /\s/.test(token))
        throw new Error(
          `the status token must be at least ${MIN_STATUS_TOKEN_LENGTH} characters without spaces (e.g. \`openssl rand -hex 32\`)`,
        );
      this.tokenDigest = digest(token);
      // The cookie holds a value derived from the token, not the token itself.
      this.cookieValue = createHmac("sha256", token).update("stackwarden status cookie v1").digest("base64url");
    } else if (!isLoopbackHost(host)) {
      throw new Error(
        `${host} is not a loopback address: the status page and API there need a token (--status-token or STACKWARDEN_STATUS_TOKEN, at least ${MIN_STATUS_TOKEN_LENGTH} characters), or listen on 127.0.0.1`,
      );
    }
  }

  /** Whether requests must carry the token. */
  get tokenRequired(): boolean {
    return this.tokenDigest !== undefined;
  }

  /** Checks a request (not for the health endpoints, which are open). */
  check(req: IncomingMessage): AccessVerdict {
    if (!this.tokenDigest) {
      return hostHeaderIsLoopback(req)
        ? { ok: true }
        : { ok: false, status: 403, reason: "this address serves requests for a loopback host name only (127.0.0.1, localhost, [::1])" };
    }
    const presented = this.presentedToken(req);
    if (presented !== undefined && timingSafeEqual(digest(presented), this.tokenDigest)) return { ok: true };
    const cookie = cookieOf(req.headers.cookie, STATUS_COOKIE);
    if (cookie !== undefined && timingSafeEqual(digest(cookie), digest(this.cookieValue!))) return { ok: true };
    return {
      ok: false,
      status: 401,
      reason: presented === undefined && cookie === undefined ? "a token is required" : "the token is not the status token",
    };
  }

  /** Whether `candidate` (from `?token=`) is the token. */
  tokenMatches(candidate: string): boolean {
    return this.tokenDigest !== undefined && timingSafeEqual(digest(candidate), this.tokenDigest);
  }

  /** The Set-Cookie header that signs a browser in after `?token=` matched. */
  signInCookie(): string {
    return `${STATUS_COOKIE}=${this.cookieValue}; Path=/; HttpOnly; SameSite=Strict`;
  }

  private presentedToken(req: IncomingMessage): string | undefined {
    const auth = req.headers.authorization;
    if (!auth) return undefined;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (bearer) return bearer[1];
    const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(auth);
    if (basic) {
      const text = Buffer.from(basic[1], "base64").toString("utf8");
      const colon = text.indexOf(":");
      return colon >= 0 ? text.slice(colon + 1) : undefined;
    }
    return undefined;
  }
}

/** Digests make the constant-time comparison independent of the lengths compared. */
function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Whether a request's Host header names a loopback address: what a page on another site, its name
 * rebound to 127.0.0.1 (DNS rebinding), cannot forge, since the browser sends that site's name.
 */
export function hostHeaderIsLoopback(req: IncomingMessage): boolean {
  const host = hostOf(req.headers.host);
  return host !== undefined && isLoopbackHost(host);
}

/** The host part of a Host header (`127.0.0.1:9090`, `[::1]:9090`, `localhost`). */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const m = /^(\[[^\]]+\]|[^:]+)(?::\d+)?$/.exec(header.trim());
  return m ? m[1] : undefined;
}

function cookieOf(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
