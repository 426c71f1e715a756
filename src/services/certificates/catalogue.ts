/**
 * The certificate issuers and their document types, as the four published specs describe them
 * (specs/apisetu/<issuer>/openapi.yaml). Each doctype is one operation, `POST /<doctype>/certificate`
 * under `https://apisetu.gov.in/<issuer>/v3`. test/services/certificates/catalogue.test.ts compares
 * this table with the specs field by field, so it cannot drift from them.
 */

export const ISSUERS = ["newindia", "swavlambancard", "mbose", "lawcollegeandaman"] as const;
export type Issuer = (typeof ISSUERS)[number];

export const DOCTYPES = [
  "cripc",
  "cvipc",
  "egipc",
  "hlipc",
  "miipc",
  "tripc",
  "twipc",
  "dpicr",
  "govid",
  "hscer",
  "sscer",
  "trcer",
] as const;
export type Doctype = (typeof DOCTYPES)[number];

/** The formats a certificate may be asked for (the union of every spec's `format` enum). */
export const CERTIFICATE_FORMATS = ["pdf", "xml"] as const;
export type CertificateFormat = (typeof CERTIFICATE_FORMATS)[number];

/** One field of `certificateParameters`. */
export interface ParameterField {
  /** The spec's property name, sent on the wire (`UDF1`, `CERT_NO`, ...). */
  name: string;
  /** The spec's description of it. */
  description: string;
  /** A readable alias a stack file may use instead of `name` (from the description: `UDF1` is `policyNo`). */
  alias: string;
  /** Whether the spec lists it in `required`. */
  required: boolean;
}

export interface IssuerInfo {
  id: Issuer;
  /** The spec's `info.title`: the organisation that issues the documents. */
  title: string;
  doctypes: readonly Doctype[];
}

export interface DoctypeInfo {
  id: Doctype;
  issuer: Issuer;
  /** The operation's `summary`: the document's title, printed on it and looked for by probes. */
  title: string;
  /** The formats its spec's `format` enum allows, in the spec's order. */
  formats: readonly CertificateFormat[];
  parameters: readonly ParameterField[];
}

const FULL_NAME: ParameterField = { name: "FullName", description: "Full name", alias: "fullName", required: true };

const POLICY: readonly ParameterField[] = [
  FULL_NAME,
  { name: "UDF1", description: "Policy Number", alias: "policyNo", required: true },
  { name: "UDF2", description: "Customer Id", alias: "customerId", required: true },
  { name: "UDF3", description: "Policy Start Date", alias: "policyStartDate", required: true },
];
const DISABILITY_CARD: readonly ParameterField[] = [
  { name: "CERT_NO", description: "CERTIFICATE NO", alias: "certificateNo", required: true },
  FULL_NAME,
];
const MARKSHEET: readonly ParameterField[] = [
  FULL_NAME,
  { name: "RROLL", description: "Roll No", alias: "rollNo", required: true },
  { name: "YEAR", description: "Year", alias: "year", required: true },
];
const TRANSFER: readonly ParameterField[] = [{ name: "ADMN_NO", description: "Admn No.", alias: "admissionNo", required: true }, FULL_NAME];

const policy = (id: Doctype, kind: string): DoctypeInfo => ({
  id,
  issuer: "newindia",
  title: `Insurance Policy - ${kind}`,
  formats: ["pdf"],
  parameters: POLICY,
});

/** Every doctype, by id. */
export const DOCTYPE_INFO: Readonly<Record<Doctype, DoctypeInfo>> = {
  cripc: policy("cripc", "Car"),
  cvipc: policy("cvipc", "Commercial Vehicle"),
  egipc: policy("egipc", "Engineering"),
  hlipc: policy("hlipc", "Health"),
  miipc: policy("miipc", "Miscellaneous"),
  tripc: policy("tripc", "Travel"),
  twipc: policy("twipc", "Two Wheeler"),
  dpicr: {
    id: "dpicr",
    issuer: "swavlambancard",
    title: "Disabled Person Identity Card/ Certificate",
    formats: ["pdf"],
    parameters: DISABILITY_CARD,
  },
  govid: { id: "govid", issuer: "swavlambancard", title: "ID Card", formats: ["xml", "pdf"], parameters: DISABILITY_CARD },
  hscer: { id: "hscer", issuer: "mbose", title: "Class XII Marksheet", formats: ["pdf"], parameters: MARKSHEET },
  sscer: { id: "sscer", issuer: "mbose", title: "Class X Marksheet", formats: ["pdf"], parameters: MARKSHEET },
  trcer: { id: "trcer", issuer: "lawcollegeandaman", title: "Transfer Certificate", formats: ["pdf"], parameters: TRANSFER },
};

/** Every issuer, by id. */
export const ISSUER_INFO: Readonly<Record<Issuer, IssuerInfo>> = {
  newindia: {
    id: "newindia",
    title: "New India Assurance Co. Ltd.",
    doctypes: ["cripc", "cvipc", "egipc", "hlipc", "miipc", "tripc", "twipc"],
  },
  swavlambancard: { id: "swavlambancard", title: "Department of Empowerment of Persons with Disabilities", doctypes: ["dpicr", "govid"] },
  mbose: { id: "mbose", title: "Meghalaya Board of School Education, Tura, Meghalaya", doctypes: ["hscer", "sscer"] },
  lawcollegeandaman: { id: "lawcollegeandaman", title: "Andaman Law College, Andaman & Nicobar", doctypes: ["trcer"] },
};

/** Whether a string names a doctype. */
export function isDoctype(value: string): value is Doctype {
  return (DOCTYPES as readonly string[]).includes(value);
}

/** Whether a string names an issuer. */
export function isIssuer(value: string): value is Issuer {
  return (ISSUERS as readonly string[]).includes(value);
}

/** The default format of a doctype: PDF, which every spec offers. */
export function defaultFormat(doctype: Doctype): CertificateFormat {
  const formats = DOCTYPE_INFO[doctype].formats;
  return formats.includes("pdf") ? "pdf" : formats[0];
}

/** The path of a doctype's operation under the issuer's base address: `/<doctype>/certificate`. */
export function operationPath(doctype: Doctype): string {
  return `/${doctype}/certificate`;
}

/** The field a stack-file key stands for: the spec's name or its alias; undefined when the doctype has no such field. */
export function parameterField(doctype: Doctype, key: string): ParameterField | undefined {
  return DOCTYPE_INFO[doctype].parameters.find((f) => f.name === key || f.alias === key);
}
