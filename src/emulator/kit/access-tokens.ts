import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";

/** Claims of a token this emulator's IMDS issues (a JWT signed with HS256). */
export interface TokenClaims {
  aud: string;
  iss: string;
  tid: string;
  oid: string;
  appid: string;
  iat: number;
  nbf: number;
  exp: number;
  jti: string;
  /** A user's token (the admin route `user-token`): the user's sign-in name, as Entra ID's v1 tokens carry it. */
  upn?: string;
  unique_name?: string;
  name?: string;
}

/** A token checked: valid, or why not (an expired token's claims are still given, so its audience can be judged first). */
export type TokenVerdict =
  | { ok: true; reason?: undefined; claims: TokenClaims }
  | { ok: false; reason: "expired"; claims: TokenClaims; expiresAt: number }
  | { ok: false; reason: "malformed" | "signature" | "not-yet-valid"; claims?: undefined; expiresAt: number };

/**
 * Issues and verifies the emulator's access tokens. They are real JWTs signed with a per-estate
 * key, so they survive a restart with `--state` and expire as Azure AD tokens do.
 */
export class AccessTokens {
  /**
   * Tokens whose signature was checked, with their claims: a client sends the same token for an
   * hour, and the HMAC check costs more than the rest of a request. Time checks run every time.
   */
  private readonly signed = new Map<string, TokenClaims>();

  constructor(private readonly key: Buffer = randomBytes(32)) {}

  static fromKey(hex: string | undefined): AccessTokens {
    return new AccessTokens(hex ? Buffer.from(hex, "hex") : randomBytes(32));
  }

  get keyHex(): string {
    return this.key.toString("hex");
  }

  issue(c: {
    resource: string;
    tenantId: string;
    objectId: string;
    clientId: string;
    ttlSeconds: number;
    now: number;
    /** For a user's token: its UPN and display name. */
    user?: { upn: string; name?: string };
  }): {
    token: string;
    claims: TokenClaims;
  } {
    const iat = Math.floor(c.now / 1000);
    const claims: TokenClaims = {
      aud: c.resource,
      iss: `https://sts.windows.net/${c.tenantId}/`,
      tid: c.tenantId,
      oid: c.objectId,
      appid: c.clientId,
      iat,
      nbf: iat,
      exp: iat + c.ttlSeconds,
      jti: randomUUID(),
      ...(c.user ? { upn: c.user.upn, unique_name: c.user.upn, ...(c.user.name ? { name: c.user.name } : {}) } : {}),
    };
    const head = b64(JSON.stringify({ typ: "JWT", alg: "HS256" }));
    const body = b64(JSON.stringify(claims));
    return { token: `${head}.${body}.${this.sign(`${head}.${body}`)}`, claims };
  }

  verify(token: string, now: number): TokenVerdict {
    let claims = this.signed.get(token);
    if (!claims) {
      const checked = this.checkSignature(token);
      if (!checked.ok) return checked;
      claims = checked.claims;
      // Bounded: a long-running emulator sees a new token per client per hour.
      if (this.signed.size >= 1000) this.signed.clear();
      this.signed.set(token, claims);
    }
    const secs = now / 1000;
    // An expired token's claims are still returned: Resource Manager judges the audience first.
    if (secs >= claims.exp) return { ok: false, reason: "expired", claims, expiresAt: claims.exp * 1000 };
    if (secs + 300 < claims.nbf) return { ok: false, reason: "not-yet-valid", expiresAt: claims.exp * 1000 };
    return { ok: true, claims };
  }

  private checkSignature(token: string): { ok: true; claims: TokenClaims } | (TokenVerdict & { ok: false }) {
    const parts = token.split(".");
    if (parts.length !== 3) return { ok: false, reason: "malformed", expiresAt: 0 };
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: "signature", expiresAt: 0 };
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as TokenClaims;
    } catch {
      return { ok: false, reason: "malformed", expiresAt: 0 };
    }
    return { ok: true, claims };
  }

  private sign(data: string): string {
    return createHmac("sha256", this.key).update(data).digest("base64url");
  }
}

function b64(s: string): string {
  return Buffer.from(s).toString("base64url");
}
