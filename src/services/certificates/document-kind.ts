import type { CertificateFormat } from "./catalogue";

/** `pdf`, `xml` or `other`, from a content type (`application/pdf`; `application/xml`, `text/xml`, `*+xml`). */
export function documentKind(contentType: string): CertificateFormat | "other" {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "application/pdf") return "pdf";
  if (type === "application/xml" || type === "text/xml" || type.endsWith("+xml")) return "xml";
  return "other";
}
