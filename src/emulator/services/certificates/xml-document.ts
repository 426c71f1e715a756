import type * as XmlBuilder from "xmlbuilder2";
import type { Doctype, Issuer } from "../../../services/certificates/catalogue";
import { CERTIFICATE_XML_ROOT } from "../../../services/certificates/types";
import type { CertificateContent } from "./certificate-content";
import type { AddressSeed } from "./seed-schema";

let xmlbuilder: typeof XmlBuilder | undefined;
/** xmlbuilder2 (a DOM implementation underneath) loads with the first XML document, not with the emulator. */
function loadXmlBuilder(): typeof XmlBuilder {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred until an XML document is issued
  return (xmlbuilder ??= require("xmlbuilder2") as typeof XmlBuilder);
}

/** The element inside `CertificateData` that carries a doctype's own data. */
const DATA_ELEMENT: Record<Doctype, string> = {
  cripc: "Policy",
  cvipc: "Policy",
  egipc: "Policy",
  hlipc: "Policy",
  miipc: "Policy",
  tripc: "Policy",
  twipc: "Policy",
  dpicr: "IdentityCard",
  govid: "IdentityCard",
  hscer: "Marksheet",
  sscer: "Marksheet",
  trcer: "TransferCertificate",
};

/** The `Organization/@type` of each issuer: CG central government, SG state government, PSU public sector undertaking. */
const ORGANIZATION_TYPE: Record<Issuer, string> = { newindia: "PSU", swavlambancard: "CG", mbose: "SG", lawcollegeandaman: "SG" };

const ADDRESS_KEYS: (keyof AddressSeed)[] = ["line1", "line2", "locality", "vtc", "district", "state", "pin", "country"];

/**
 * Renders a certificate as XML in the shape DigiLocker issuers publish, which the specs give as
 * `AcademicCertificateSchema` (referenced by govid's `application/xml` response):
 *
 * ```xml
 * <Certificate language name type number issuedAt issueDate validFromDate status>
 *   <IssuedBy><Organization name code tin uid type><Address .../></Organization></IssuedBy>
 *   <IssuedTo><Person uid title name dob swd swdIndicator motherName gender ...><Address .../><Photo format=""/></Person></IssuedTo>
 *   <CertificateData><IdentityCard CERT_NO="..." .../></CertificateData>
 * </Certificate>
 * ```
 *
 * The envelope follows that schema attribute for attribute. `CertificateData` holds one element
 * with the doctype's own data (its parameters by the spec's names, then the record's fields),
 * because the schema's School/Examination/Performance describe marksheets, not ID cards.
 */
export function renderCertificateXml(c: CertificateContent): string {
  const root = loadXmlBuilder().create({ version: "1.0", encoding: "UTF-8" }).ele(CERTIFICATE_XML_ROOT, {
    language: "99",
    name: c.doctype.title,
    type: c.doctype.id.toUpperCase(),
    number: c.number,
    issuedAt: c.issuedAt,
    issueDate: c.issueDate,
    validFromDate: c.issueDate,
    status: "A",
  });
  root
    .ele("IssuedBy")
    .ele("Organization", { name: c.issuer.title, code: c.issuer.id, tin: "", uid: "", type: ORGANIZATION_TYPE[c.issuer.id] })
    .ele("Address", address("", { country: "IN" }));
  const h = c.holder;
  const person = root.ele("IssuedTo").ele("Person", {
    uid: "",
    title: "",
    name: c.holderName,
    dob: h.dob ?? "",
    swd: h.swd ?? "",
    swdIndicator: h.swdIndicator ?? "",
    motherName: h.motherName ?? "",
    gender: h.gender ?? "",
    maritalStatus: "",
    disabilityStatus: "",
    category: h.category ?? "",
    religion: "",
    phone: "",
    email: "",
  });
  person.ele("Address", address("permanent", h.address ?? {}));
  person.ele("Photo", { format: "" });
  const data: Record<string, string> = {};
  for (const p of c.parameters) data[p.name] = p.value;
  for (const f of c.fields) data[f.key] = f.value;
  root.ele("CertificateData").ele(DATA_ELEMENT[c.doctype.id], data);
  return root.end({ prettyPrint: true });
}

function address(type: string, a: AddressSeed): Record<string, string> {
  const out: Record<string, string> = { type, house: "", landmark: "" };
  for (const k of ADDRESS_KEYS) out[k] = a[k] ?? "";
  out.country ||= "IN";
  return out;
}
