import { randomBytes } from "node:crypto";
import type { ClientSet } from "../clients/client-set";
import { identityClaimsOf, type IdentityClaims } from "../domain/audit/token-claims";
import { credentialAnswerOf, type CredentialAnswer } from "../platform/auth/credential-answer";
import { CredentialUnavailableError } from "../platform/auth/credential-errors";
import { ARM_SCOPE } from "../platform/auth/scopes";
import type { AccessToken } from "../platform/http/token-credential";
import { DEFAULT_IMDS_ENDPOINT, endpointsFromEnv } from "../platform/settings/endpoints";
import type { ImdsAttestedData, ImdsIdentityInfo, ImdsInstance, ImdsTokenResponse } from "../services/imds/types";

/** The resource IMDS is asked a token for (the ARM one, without `/.default`). */
export const ARM_RESOURCE = "https://management.azure.com/";

/** What IMDS says of this machine and its managed identity, when it was read. */
export interface ImdsView {
  instance: ImdsInstance;
  identityInfo: ImdsIdentityInfo;
  attested: ImdsAttestedData;
  token: ImdsTokenResponse;
  /** The nonce the attested document was asked with. */
  nonce: string;
}

/** Who this is: the credential of the chain that answered, whom its ARM token names, and IMDS's view where there is one. */
export interface WhoamiOutcome {
  answer: CredentialAnswer;
  armToken: AccessToken;
  claims?: IdentityClaims;
  /** IMDS's base URL (`STACKWARDEN_IMDS_ENDPOINT`). */
  endpoint: string;
  imds?: ImdsView;
  /** Why IMDS was not read. */
  imdsNotRead?: string;
  /** Why IMDS could not be read. */
  imdsError?: unknown;
}

/**
 * Asks the client set's credential for an ARM token (a CredentialUnavailableError naming what was
 * tried when none works), and reads IMDS where there is one to read: set explicitly, or the managed
 * identity answered. Elsewhere (a laptop signed in with az) the link-local address would only time out.
 */
export async function runWhoami(clients: ClientSet): Promise<WhoamiOutcome> {
  const endpoint = endpointsFromEnv(clients.env).imds;
  const armToken = await clients.credential.getToken(ARM_SCOPE);
  if (!armToken) throw new CredentialUnavailableError("the credential returned no token");
  const answer = credentialAnswerOf(clients.credential) ?? { id: "unknown", label: "unknown" };
  const claims = identityClaimsOf(armToken.token);
  const clientId = clients.env.AZURE_CLIENT_ID?.trim() || undefined;
  const nonce = randomBytes(12).toString("hex");
  if (endpoint === DEFAULT_IMDS_ENDPOINT && answer.id !== "ManagedIdentityCredential") {
    return { answer, armToken, claims, endpoint, imdsNotRead: "no managed identity answered and STACKWARDEN_IMDS_ENDPOINT is not set" };
  }
  const client = clients.imds;
  try {
    const [instance, identityInfo, attested, token] = await Promise.all([
      client.instance(),
      client.identityInfo(),
      client.attestedDocument(nonce),
      client.token({ resource: ARM_RESOURCE, clientId }),
    ]);
    return { answer, armToken, claims, endpoint, imds: { instance, identityInfo, attested, token, nonce } };
  } catch (e) {
    return { answer, armToken, claims, endpoint, imdsError: e };
  }
}
