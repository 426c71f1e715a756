import type { TokenCredential } from "../http/token-credential";

/** Which credential gives the tokens: a stable id and words for people. */
export interface CredentialAnswer {
  /**
   * `AZURE_ACCESS_TOKEN`, or the @azure/identity class the link stands for (`EnvironmentCredential`,
   * `WorkloadIdentityCredential`, `ManagedIdentityCredential`, `AzureCliCredential`,
   * `AzureDeveloperCliCredential`): the names AZURE_TOKEN_CREDENTIALS takes.
   */
  id: string;
  /** e.g. `Azure CLI`, `managed identity via IMDS at http://127.0.0.1:4000/metadata`. */
  label: string;
}

/** A credential that can say which of its sources answered. */
export interface AnsweringCredential extends TokenCredential {
  /** The source of the tokens handed out so far; undefined before the first token. */
  answeredBy(): CredentialAnswer | undefined;
}

/** Which credential answered, when `credential` can tell (stackwarden's default credential can), else undefined. */
export function credentialAnswerOf(credential: TokenCredential): CredentialAnswer | undefined {
  const c = credential as Partial<AnsweringCredential>;
  return typeof c.answeredBy === "function" ? c.answeredBy() : undefined;
}
