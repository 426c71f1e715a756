import type { AccessToken } from "../http/token-credential";
import type { AnsweringCredential, CredentialAnswer } from "./credential-answer";
import { CredentialUnavailableError } from "./credential-errors";

/** How whoami and errors name the override. */
export const STATIC_TOKEN_ANSWER: CredentialAnswer = { id: "AZURE_ACCESS_TOKEN", label: "AZURE_ACCESS_TOKEN (a static token, used as is)" };

/**
 * A bearer token used as it is (`AZURE_ACCESS_TOKEN`). Its expiry is read from the JWT `exp`
 * claim when it has one, so an expired token is reported before any request is sent. It cannot be
 * renewed, so it has no `discardToken`: a 401 to it is final.
 */
export class StaticTokenCredential implements AnsweringCredential {
  private answered = false;
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
    this.answered = true;
    return { token: this.token, expiresOnTimestamp: this.expiresOnTimestamp, tokenType: "Bearer" };
  }

  answeredBy(): CredentialAnswer | undefined {
    return this.answered ? STATIC_TOKEN_ANSWER : undefined;
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
