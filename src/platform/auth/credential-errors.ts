import { StackwardenError } from "../errors/stackwarden-error";

/** A credential that cannot give a token here (not configured, or its source failed): `SW_CREDENTIAL_UNAVAILABLE`. */
export class CredentialUnavailableError extends StackwardenError {
  constructor(message: string) {
    super("SW_CREDENTIAL_UNAVAILABLE", message);
    this.name = "CredentialUnavailableError";
  }
}
