import type { AccessToken, TokenCredential } from "../http/token-credential";
import { CredentialUnavailableError } from "./credential-errors";

/**
 * A bearer token used as it is (`AZURE_ACCESS_TOKEN`). Its expiry is read from the JWT `exp`
 * claim when it has one, so an expired token is reported before any request is sent.
 */
export class StaticTokenCredential implements TokenCredential {
  private readonly expiresOnTimestamp: number;

  constructor(
    private readonly token: string,
    private readonly now: () => number = Date.now,
  ) {
    this.expiresOnTimestamp = jwtExpiry(token) ?? Number.MAX_SAFE_INTEGER;
  }

  /** The credential for `AZURE_ACCESS_TOKEN`, or undefined when it is not set. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): StaticTokenCredential | undefined {
    const t = env.AZURE_ACCESS_TOKEN?.trim();
    return t ? new StaticTokenCredential(t) : undefined;
  }

  async getToken(): Promise<AccessToken> {
    if (this.now() >= this.expiresOnTimestamp) {
      throw new CredentialUnavailableError(
        `the static token expired at ${new Date(this.expiresOnTimestamp).toISOString()}; set a fresh AZURE_ACCESS_TOKEN`,
      );
    }
    return { token: this.token, expiresOnTimestamp: this.expiresOnTimestamp, tokenType: "Bearer" };
  }
}

function jwtExpiry(token: string): number | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
