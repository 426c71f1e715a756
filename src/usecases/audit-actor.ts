import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { ARM_SCOPE } from "../platform/auth/scopes";
import type { TokenCredential } from "../platform/http/token-credential";
import { scrubTokens } from "../platform/redaction";
import { verifyAttestedSignature } from "../services/imds/attested-signature";
import type { ImdsClient } from "../services/imds/client";
import type { AuditActor } from "../domain/audit/audit-entry";
import { identityClaimsOf } from "../domain/audit/token-claims";

export interface ActorSources {
  /** The credential the apply used; its ARM token's claims say who. */
  credential: TokenCredential;
  /** IMDS, when this runs on an Azure VM (managed identity, or an IMDS endpoint set explicitly). */
  imds?: Pick<ImdsClient, "instance" | "attestedDocument">;
  signal?: AbortSignal;
}

/**
 * Who is applying (asked here, above the domain, which is told: the lock, the apply and the audit
 * entry take the answer): the ARM token's tid/oid/appid (decoded, never kept), the host, and on a VM
 * the vmId with a check of IMDS's attested document (its signature, and that it carries the
 * nonce sent and the same vmId). Failures are recorded as such, never thrown: an audit entry is
 * written whatever can be learnt.
 */
export async function resolveActor(src: ActorSources): Promise<AuditActor> {
  const actor: AuditActor = { claims: "unavailable", host: hostname() };
  try {
    const token = await src.credential.getToken(ARM_SCOPE, { abortSignal: src.signal });
    const claims = token ? identityClaimsOf(token.token) : undefined;
    if (claims) Object.assign(actor, claims, { claims: "decoded" });
    else if (token) actor.claims = "not-a-jwt";
    else actor.claimsProblem = "the credential returned no token";
  } catch (e) {
    actor.claimsProblem = scrubTokens((e as Error).message);
  }
  if (src.imds) actor.vm = await vmIdentity(src.imds, src.signal);
  return actor;
}

async function vmIdentity(imds: NonNullable<ActorSources["imds"]>, signal?: AbortSignal): Promise<NonNullable<AuditActor["vm"]>> {
  const nonce = randomBytes(12).toString("hex");
  try {
    const [instance, attested] = await Promise.all([imds.instance(signal), imds.attestedDocument(nonce, signal)]);
    const vmId = instance.compute?.vmId;
    if (!attested.signature) return { vmId, signatureVerified: false, problem: "the attested document has no signature" };
    const check = verifyAttestedSignature(attested.signature);
    let problem = check.problem;
    if (check.signatureVerified) {
      let content: { nonce?: string; vmId?: string } = {};
      try {
        content = JSON.parse(check.content ?? "") as typeof content;
      } catch {
        problem = "the signed content is not JSON";
      }
      if (!problem && content.nonce !== nonce) problem = "the signed document does not carry the nonce sent (a replayed document)";
      else if (!problem && vmId && content.vmId !== vmId) problem = `the signed vmId ${content.vmId} differs from the instance's ${vmId}`;
    }
    return { vmId, signatureVerified: check.signatureVerified && !problem, signer: check.signer, ...(problem ? { problem } : {}) };
  } catch (e) {
    return { signatureVerified: false, problem: `IMDS: ${scrubTokens((e as Error).message)}` };
  }
}
