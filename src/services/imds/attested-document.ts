import forge from "node-forge";

/** Reads the JSON content and the signer's subject out of an attested document's signature. */
export function readAttestedDocument(signatureB64: string): { content: string; signer: string } {
  const der = forge.util.decode64(signatureB64);
  const msg = forge.pkcs7.messageFromAsn1(forge.asn1.fromDer(der)) as forge.pkcs7.PkcsSignedData & {
    rawCapture?: { content?: forge.asn1.Asn1 };
  };
  const contentNode = msg.rawCapture?.content;
  let content = "";
  if (contentNode) {
    // The content is an OCTET STRING, possibly split into constructed chunks.
    const parts = Array.isArray(contentNode.value) ? contentNode.value : [contentNode];
    for (const p of parts) content += typeof p.value === "string" ? p.value : "";
  }
  const cert = msg.certificates[0];
  return { content: forge.util.decodeUtf8(content), signer: cert ? String(cert.subject.getField("CN")?.value ?? "") : "" };
}
