import type forgeModule from "node-forge";

/**
 * Signs the attested document as IMDS does: a base64 PKCS#7 SignedData that carries the JSON
 * content and the signing certificate. The emulator's certificate is self-signed and made once per process.
 */
let signer: { key: forgeModule.pki.rsa.PrivateKey; cert: forgeModule.pki.Certificate } | undefined;

/**
 * node-forge, loaded at the first attested document rather than with the emulator: it is ~10 MB of
 * the process's memory, kept for the life of an emulator that may never be asked for one.
 */
function forgeLib(): typeof forgeModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, see above
  return require("node-forge") as typeof forgeModule;
}

function getSigner() {
  if (signer) return signer;
  const forge = forgeLib();
  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = "01";
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600_000);
  const attrs = [
    { name: "commonName", value: "metadata.azure.com" },
    { name: "organizationName", value: "stackwarden emulator" },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  signer = { key: keys.privateKey, cert };
  return signer;
}

/** Returns the base64 DER of a PKCS#7 SignedData over `content`. */
export function signAttestedDocument(content: string): string {
  const { key, cert } = getSigner();
  const forge = forgeLib();
  const p7 = forge.pkcs7.createSignedData();
  p7.content = forge.util.createBuffer(content, "utf8");
  p7.addCertificate(cert);
  p7.addSigner({ key, certificate: cert, digestAlgorithm: forge.pki.oids.sha256 });
  p7.sign();
  return forge.util.encode64(forge.asn1.toDer(p7.toAsn1()).getBytes());
}
