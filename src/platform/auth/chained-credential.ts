import { CredentialUnavailableError } from "./credential-errors";
import {
  type AccessToken,
  canDiscardTokens,
  type DiscardableTokenCredential,
  type GetTokenOptions,
  type TokenCredential,
} from "../http/token-credential";

/** A named credential in a chain, so the final error can say what each one tried. */
export interface NamedCredential {
  name: string;
  credential: TokenCredential;
}

/**
 * Tries each credential in order and remembers the first that works. When all fail, the error
 * lists what each one tried.
 */
export class ChainedTokenCredential implements DiscardableTokenCredential {
  private chosen?: TokenCredential;

  constructor(private readonly links: NamedCredential[]) {}

  /** Passed to the chosen credential, when it can discard tokens. */
  discardToken(token: string): void {
    if (this.chosen && canDiscardTokens(this.chosen)) this.chosen.discardToken(token);
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken> {
    if (this.chosen) {
      const t = await this.chosen.getToken(scopes, options);
      if (!t) throw new CredentialUnavailableError("the credential returned no token");
      return t;
    }
    const tried: string[] = [];
    for (const { name, credential } of this.links) {
      try {
        const t = await credential.getToken(scopes, options);
        if (t) {
          this.chosen = credential;
          return t;
        }
        tried.push(`${name}: returned no token`);
      } catch (e) {
        tried.push(`${name}: ${(e as Error).message}`);
      }
    }
    throw new CredentialUnavailableError(`no credential could get a token. ${tried.join("; ")}`);
  }
}
