import { createHash } from "node:crypto";
import { DOCTYPE_INFO, ISSUER_INFO, type DoctypeInfo, type IssuerInfo } from "../../../services/certificates/catalogue";
import type { CertificateRecordSeed, HolderSeed } from "./seed-schema";

/** What a certificate says, whatever its format: the PDF and the XML are both rendered from this. */
export interface CertificateContent {
  issuer: IssuerInfo;
  doctype: DoctypeInfo;
  number: string;
  /** `DD-MM-YYYY`, as DigiLocker documents print dates. */
  issueDate: string;
  /** The issue date as a time (UTC midnight), for the PDF's fixed creation date. */
  issuedOn: Date;
  issuedAt: string;
  holderName: string;
  holder: HolderSeed;
  /** The doctype's parameters other than the name, by the spec's names, with the spec's descriptions as labels. */
  parameters: { name: string; label: string; value: string }[];
  /** The record's further data, with labels derived from the keys. */
  fields: { key: string; label: string; value: string }[];
}

/** The content of a record's certificate. A record always gives the same content. */
export function certificateContent(record: CertificateRecordSeed): CertificateContent {
  const doctype = DOCTYPE_INFO[record.doctype];
  const [y, m, d] = record.issueDate.split("-");
  return {
    issuer: ISSUER_INFO[doctype.issuer],
    doctype,
    number: record.number ?? documentNumber(record),
    issueDate: `${d}-${m}-${y}`,
    issuedOn: new Date(`${record.issueDate}T00:00:00Z`),
    issuedAt: record.issuedAt ?? "",
    holderName: record.parameters.FullName ?? "",
    holder: record.holder ?? {},
    parameters: doctype.parameters
      .filter((f) => f.name !== "FullName" && record.parameters[f.name] !== undefined)
      .map((f) => ({ name: f.name, label: f.description, value: record.parameters[f.name] })),
    fields: Object.entries(record.fields ?? {}).map(([key, value]) => ({ key, label: labelOf(key), value: String(value) })),
  };
}

/**
 * A stable document number when the seed gives none: ten digits from a digest of the doctype and
 * its parameters (digits, because the spec's XML schema types the certificate's `number` as an integer).
 */
export function documentNumber(record: Pick<CertificateRecordSeed, "doctype" | "parameters">): string {
  const canonical = Object.keys(record.parameters)
    .sort()
    .map((k) => `${k}=${record.parameters[k]}`)
    .join("\n");
  const digest = createHash("sha256").update(`${record.doctype}\n${canonical}`).digest();
  return String((digest.readUIntBE(0, 6) % 9_000_000_000) + 1_000_000_000);
}

/** `sumInsured` → `Sum insured`. */
export function labelOf(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
