/** A credential that cannot give a token here (not configured, or its source failed). */
export class CredentialUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialUnavailableError";
  }
}
