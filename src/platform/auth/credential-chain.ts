import { CachedTokenCredential } from "./cached-token-credential";
import { CredentialUnavailableError } from "./credential-errors";
import type { CredentialAnswer, AnsweringCredential } from "./credential-answer";
import { canDiscardTokens, type AccessToken, type GetTokenOptions, type TokenCredential } from "../http/token-credential";
import { scrubTokens } from "../redaction";
import { EndpointUnreachableError } from "../http/unreachable";

/** One credential of a chain, made only when the chain reaches it. */
export interface ChainLink extends CredentialAnswer {
  /**
   * The credential, made when first tried. Throws a CredentialUnavailableError (or any error) when
   * the environment does not configure it: the chain then notes why and goes on.
   */
  create(): TokenCredential;
}

/**
 * Azure's credential chain, as DefaultAzureCredential walks it: each link in order until one gives
 * a token. A link that is not configured or cannot answer here is noted and skipped; a link that is
 * configured but refused (an AuthenticationError: a wrong secret, a federation that does not
 * match) stops the chain, for a fallback would hide the misconfiguration; so does a token source
 * that nothing answers at where it serves the endpoint itself (EndpointUnreachableError: the
 * emulator is down), which is rethrown as it is, naming the endpoint, not credentials. The link that answered is
 * remembered and asked alone from then on, so a probe that failed (IMDS off Azure) is not repeated.
 * Tokens are cached and refreshed ahead of expiry (CachedTokenCredential). When no link answers,
 * the error is one line naming every link and what it said, with tokens scrubbed.
 */
export class CredentialChain extends CachedTokenCredential implements AnsweringCredential {
  private readonly walker: ChainWalker;

  constructor(links: readonly ChainLink[], opts: { now?: () => number } = {}) {
    const walker = new ChainWalker(links);
    super((scopes) => walker.getToken(scopes), { describe: walker.describe(), now: opts.now });
    this.walker = walker;
  }

  /** The links in the order they are tried. */
  get links(): readonly CredentialAnswer[] {
    return this.walker.links.map(({ id, label }) => ({ id, label }));
  }

  answeredBy(): CredentialAnswer | undefined {
    const chosen = this.walker.chosen;
    return chosen && { id: chosen.link.id, label: chosen.link.label };
  }

  override discardToken(token: string): void {
    super.discardToken(token);
    const chosen = this.walker.chosen?.credential;
    if (chosen && canDiscardTokens(chosen)) chosen.discardToken(token);
  }
}

class ChainWalker {
  chosen?: { link: ChainLink; credential: TokenCredential };
  private readonly made = new Map<ChainLink, TokenCredential>();

  constructor(readonly links: readonly ChainLink[]) {}

  describe(): string {
    return `the credential chain (${this.links.map((l) => l.label).join(", ")})`;
  }

  async getToken(scopes: string[], options?: GetTokenOptions): Promise<AccessToken> {
    if (this.chosen) {
      const { link, credential } = this.chosen;
      try {
        const token = await credential.getToken(scopes, options);
        if (token) return token;
      } catch (e) {
        if (e instanceof EndpointUnreachableError) throw e;
        throw new CredentialUnavailableError(`${link.label}: ${reasonOf(e)}`);
      }
      throw new CredentialUnavailableError(`${link.label}: returned no token`);
    }
    const tried: string[] = [];
    for (const link of this.links) {
      let token: AccessToken | null;
      let credential: TokenCredential;
      try {
        credential = this.credentialOf(link);
        token = await credential.getToken(scopes, options);
      } catch (e) {
        // The link's token source is down: another credential would hide that, not fix it.
        if (e instanceof EndpointUnreachableError) throw e;
        if ((e as Error)?.name === "AuthenticationError") {
          throw new CredentialUnavailableError(`${link.label} is configured but was refused: ${reasonOf(e)}`);
        }
        tried.push(`${link.label}: ${reasonOf(e)}`);
        continue;
      }
      if (!token) {
        tried.push(`${link.label}: returned no token`);
        continue;
      }
      this.chosen = { link, credential };
      return token;
    }
    throw new CredentialUnavailableError(
      `no Azure credential could get a token; tried in order: ${tried.join("; ")}. Sign in with az login (or azd auth login), or set AZURE_ACCESS_TOKEN`,
    );
  }

  private credentialOf(link: ChainLink): TokenCredential {
    let c = this.made.get(link);
    if (!c) {
      c = link.create();
      this.made.set(link, c);
    }
    return c;
  }
}

/** Troubleshooting pointers @azure/identity appends to every message: the reason reads better without them. */
const TROUBLESHOOTING = [
  /\s*See the troubleshooting guide for more information:\s*\S+/g,
  /\s*To mitigate this issue, see the troubleshooting guidelines at\s*\S+?\.?(?=\s|$)/g,
  /\s*To troubleshoot, visit\s*\S+?\.?(?=\s|$)/g,
];

/** A credential's failure as one line: whitespace collapsed, troubleshooting links dropped, tokens scrubbed. */
export function reasonOf(e: unknown): string {
  let text = e instanceof Error ? e.message : String(e);
  for (const re of TROUBLESHOOTING) text = text.replace(re, "");
  text = text.replace(/\s+/g, " ").trim().replace(/\.+$/, "");
  return scrubTokens(text || (e instanceof Error ? e.name : "failed"));
}
