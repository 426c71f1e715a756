import { createHash, verify as verifySignature } from "node:crypto";
import forge from "node-forge";

/** What checking an attested document's PKCS#7 signature found. */
export interface AttestedSignatureCheck {
  /** The signature verifies with the certificate the document carries, over the content it carries. */
  signatureVerified: boolean;
  /** The signed JSON content (the VM's vmId, nonce, subscription ...), read even when the check failed. */
  content?: string;
  /** The signing certificate's subject CN (Azure's is `metadata.azure.com`). */
  signer?: string;
  /** Why it did not verify. */
  problem?: string;
}

const DIGESTS: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};
const MESSAGE_DIGEST_OID = "1.2.840.113549.1.9.4";

/**
 * Verifies the PKCS#7 SignedData of IMDS's attested document (`signature`, base64): the signer's
 * digest of the content (directly, or through the signed attributes and their messageDigest) must
 * verify with the public key of the signer's certificate carried in the document. The chain of
 * that certificate is not validated against a trust store here: the emulator's certificate is
 * self-signed, and Azure's intermediate certificates change; `signer` names who signed.
 */
export function verifyAttestedSignature(signatureB64: string): AttestedSignatureCheck {
  let msg: forge.pkcs7.PkcsSignedData & { rawCapture?: Record<string, forge.asn1.Asn1 | forge.asn1.Asn1[] | undefined> };
  try {
    msg = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(forge.util.decode64(signatureB64))) as typeof msg;
  } catch (e) {
    return { signatureVerified: false, problem: `not a PKCS#7 SignedData: ${(e as Error).message}` };
  }
  const contentBytes = octets(msg.rawCapture?.content as forge.asn1.Asn1 | undefined);
  const content = forge.util.decodeUtf8(contentBytes);
  const signerInfo = (msg.rawCapture?.signerInfos as forge.asn1.Asn1[] | undefined)?.[0];
  const cert = msg.certificates[0];
  const signer = cert ? String(cert.subject.getField("CN")?.value ?? "") : undefined;
  if (!signerInfo || !Array.isArray(signerInfo.value)) return { signatureVerified: false, content, signer, problem: "no signer info" };
  if (!cert) return { signatureVerified: false, content, signer, problem: "no signing certificate in the document" };
  const parts = signerInfo.value as forge.asn1.Asn1[];
  const digestOid = forge.asn1.derToOid((parts[2].value as forge.asn1.Asn1[])[0].value as string);
  const hash = DIGESTS[digestOid];
  if (!hash) return { signatureVerified: false, content, signer, problem: `unsupported digest algorithm ${digestOid}` };
  const attrs = parts.find((p) => p.tagClass === forge.asn1.Class.CONTEXT_SPECIFIC && p.type === 0);
  const signature = parts.find((p, i) => i > 2 && p.tagClass === forge.asn1.Class.UNIVERSAL && p.type === forge.asn1.Type.OCTETSTRING);
  if (!signature) return { signatureVerified: false, content, signer, problem: "no signature value" };
  let signed: Buffer;
  if (attrs) {
    // With signed attributes, the signature covers their DER as a SET OF, and their messageDigest
    // must be the digest of the content.
    const digest = messageDigestOf(attrs);
    const actual = createHash(hash).update(Buffer.from(contentBytes, "binary")).digest();
    if (!digest || !actual.equals(Buffer.from(digest, "binary"))) {
      return { signatureVerified: false, content, signer, problem: "the content does not match the signed digest" };
    }
    const asSet = forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.SET, true, attrs.value as forge.asn1.Asn1[]);
    signed = Buffer.from(forge.asn1.toDer(asSet).getBytes(), "binary");
  } else {
    signed = Buffer.from(contentBytes, "binary");
  }
  let ok: boolean;
  try {
    ok = verifySignature(hash, signed, forge.pki.certificateToPem(cert), Buffer.from(signature.value as string, "binary"));
  } catch (e) {
    return { signatureVerified: false, content, signer, problem: `the signature could not be checked: ${(e as Error).message}` };
  }
  return ok
    ? { signatureVerified: true, content, signer }
    : { signatureVerified: false, content, signer, problem: "the signature does not verify" };
}

/** The bytes of an OCTET STRING, possibly split into constructed chunks (BER). */
function octets(node: forge.asn1.Asn1 | undefined): string {
  if (!node) return "";
  if (typeof node.value === "string") return node.value;
  return (node.value as forge.asn1.Asn1[]).map(octets).join("");
}

function messageDigestOf(attrs: forge.asn1.Asn1): string | undefined {
  for (const attr of attrs.value as forge.asn1.Asn1[]) {
    const [oid, values] = attr.value as forge.asn1.Asn1[];
    if (forge.asn1.derToOid(oid.value as string) === MESSAGE_DIGEST_OID) return octets((values.value as forge.asn1.Asn1[])[0]);
  }
  return undefined;
}
