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
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  static fromKey(hex: string | undefined): AccessTokens {
    return new AccessTokens(hex ? Buffer.from(hex, "hex") : randomBytes(32));
  }

  get keyHex(): string {
    return this.key.toString("hex");
  }

  issue(c: { resource: string; tenantId: string; objectId: string; clientId: string; ttlSeconds: number; now: number }): {
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
    };
    const head = b64(JSON.stringify({ typ: "JWT", alg: "HS256" }));
    const body = b64(JSON.stringify(claims));
    return { token: `${head}.${body}.${this.sign(`${head}.${body}`)}`, claims };
  }

  verify(token: string, now: number): TokenVerdict {
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
    const secs = now / 1000;
    if (secs >= claims.exp) return { ok: false, reason: "expired", claims, expiresAt: claims.exp * 1000 };
    if (secs + 300 < claims.nbf) return { ok: false, reason: "not-yet-valid", expiresAt: claims.exp * 1000 };
    return { ok: true, claims };
  }

  private sign(data: string): string {
    return createHmac("sha256", this.key).update(data).digest("base64url");
  }
}

function b64(s: string): string {
  return Buffer.from(s).toString("base64url");
}
