import forge from "node-forge";
import { describe, expect, it } from "vitest";
import { signAttestedDocument } from "../../../src/emulator/services/imds/attested-signer";
import { verifyAttestedSignature } from "../../../src/services/imds/attested-signature";

const CONTENT = JSON.stringify({ nonce: "abc123", vmId: "6e0a8f7c-1b2d-4c3e-9f4a-5b6c7d8e9f01", subscriptionId: "s" });

/** Flips one character of the signed JSON inside the DER, leaving the signature as it was. */
function tamper(b64: string): string {
  const der = Buffer.from(b64, "base64");
  const at = der.indexOf(Buffer.from("6e0a8f7c"));
  expect(at).toBeGreaterThan(0);
  der[at] = "7".charCodeAt(0);
  return der.toString("base64");
}

/** A SignedData with signed attributes (contentType, messageDigest, signingTime), as Azure's carries. */
function signWithAttributes(content: string): string {
  const keys = forge.pki.rsa.generateKeyPair({ bits: 1024 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = "02";
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 3600_000);
  const attrs = [{ name: "commonName", value: "metadata.azure.com" }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(content, "utf8");
  p7.addCertificate(cert);
  p7.addSigner({
    key: keys.privateKey,
    certificate: cert,
    digestAlgorithm: forge.pki.oids.sha256,
    authenticatedAttributes: [
      { type: forge.pki.oids.contentType, value: forge.pki.oids.data },
      { type: forge.pki.oids.messageDigest },
      { type: forge.pki.oids.signingTime, value: new Date() as unknown as string },
    ],
  });
  p7.sign();
  return forge.util.encode64(forge.asn1.toDer(p7.toAsn1()).getBytes());
}

describe("the attested document's signature", () => {
  it("a document signed over its content verifies, and its content and signer are read", () => {
    const r = verifyAttestedSignature(signAttestedDocument(CONTENT));
    expect(r).toEqual({ signatureVerified: true, content: CONTENT, signer: "metadata.azure.com" });
  });

  it("a document with signed attributes verifies", () => {
    expect(verifyAttestedSignature(signWithAttributes(CONTENT))).toMatchObject({ signatureVerified: true, content: CONTENT });
  });

  it("changed content does not verify, with or without signed attributes", () => {
    const plain = verifyAttestedSignature(tamper(signAttestedDocument(CONTENT)));
    expect(plain).toMatchObject({ signatureVerified: false, problem: "the signature does not verify" });
    expect(plain.content).toContain('"vmId":"7e0a8f7c');
    expect(verifyAttestedSignature(tamper(signWithAttributes(CONTENT)))).toMatchObject({
      signatureVerified: false,
      problem: "the content does not match the signed digest",
    });
  });

  it("something that is not PKCS#7 is reported, not thrown", () => {
    expect(verifyAttestedSignature("bm90IGEgc2lnbmF0dXJl")).toMatchObject({
      signatureVerified: false,
      problem: expect.stringContaining("not a PKCS#7"),
    });
  });
});
