import Ajv from "ajv";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { certificateContent } from "../../../src/emulator/services/certificates/certificate-content";
import type { CertificateRecordSeed } from "../../../src/emulator/services/certificates/seed-schema";
import { DOCTYPE_INFO, DOCTYPES, ISSUER_INFO, type CertificateFormat } from "../../../src/services/certificates/catalogue";
import type { CertificateParametersByDoctype } from "../../../src/services/certificates/types";
import { readSpec } from "../../../src/platform/schemas/swagger-schemas";
import type { TestEmulator } from "../../helpers/emulator";
import { clientFor, devRecords, pdfPages, squash, startCertificateEmulator } from "./certificates-kit";

/**
 * Every doctype of the four issuers, in every format its spec allows, issued by the client from the
 * emulator's example estate and read back: the PDF's text with unpdf, the XML with fast-xml-parser.
 */
let t: TestEmulator;
const records = devRecords();
beforeAll(async () => {
  t = await startCertificateEmulator();
});
afterAll(async () => {
  await t?.close();
});

const cases = DOCTYPES.flatMap((doctype) => DOCTYPE_INFO[doctype].formats.map((format) => ({ doctype, format })));

function recordOf(doctype: string): CertificateRecordSeed {
  const r = records.find((x) => x.doctype === doctype);
  if (!r) throw new Error(`the example estate has no ${doctype} record`);
  return r;
}

/** The spec's XML envelope (AcademicCertificateSchema) without CertificateData, whose School/Examination/Performance describe marksheets only. */
function envelopeValidator() {
  const spec = readSpec("apisetu/swavlambancard/openapi.yaml") as {
    components: { schemas: { AcademicCertificateSchema: { required: string[]; properties: Record<string, unknown> } } };
  };
  const schema = structuredClone(spec.components.schemas.AcademicCertificateSchema);
  schema.required = schema.required.filter((k) => k !== "CertificateData");
  delete schema.properties.CertificateData;
  // XML attributes are text: let the schema's integer `number` accept digits.
  return new Ajv({ strict: false, allErrors: true, coerceTypes: true }).compile(schema);
}

describe("every doctype in every format its spec allows", () => {
  it("covers the 12 operations and 13 doctype/format pairs", () => {
    expect(new Set(cases.map((c) => c.doctype)).size).toBe(12);
    expect(cases).toHaveLength(13);
    expect(cases).toContainEqual({ doctype: "govid", format: "xml" });
  });

  it.each(cases)("$doctype as $format", async ({ doctype, format }) => {
    const record = recordOf(doctype);
    const info = DOCTYPE_INFO[doctype];
    const doc = await clientFor(t).issue(doctype, {
      format: format as never,
      certificateParameters: record.parameters as unknown as CertificateParametersByDoctype[typeof doctype],
    });
    expect(doc).toMatchObject({ issuer: info.issuer, doctype, format, kind: format, status: 200 });
    expect(doc.txnId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const content = certificateContent(record);

    if (format === "pdf") {
      expect(doc.contentType).toBe("application/pdf");
      expect(doc.bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
      const pages = await pdfPages(doc.bytes);
      expect(pages).toHaveLength(1);
      const text = squash(pages[0]);
      // issuer, document type and title, holder, the record's fields, issue date, document number
      expect(text).toContain(ISSUER_INFO[info.issuer].title);
      expect(text).toContain(info.title);
      expect(text).toContain(`Document type: ${doctype.toUpperCase()}`);
      expect(text).toContain(`Issued to: ${record.parameters.FullName}`);
      expect(text).toContain(`Issue date: ${content.issueDate}`);
      expect(text).toContain(`Document number: ${content.number}`);
      for (const p of content.parameters) expect(text).toContain(`${p.label}: ${p.value}`);
      for (const f of content.fields) expect(text).toContain(`${f.label}: ${f.value}`);
    } else {
      expect(doc.contentType).toMatch(/^application\/xml/);
      const xml = doc.bytes.toString("utf8");
      expect(XMLValidator.validate(xml)).toBe(true);
      const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", parseAttributeValue: false }).parse(xml) as {
        Certificate: Record<string, unknown> & {
          IssuedBy: { Organization: Record<string, string> };
          IssuedTo: { Person: Record<string, unknown> };
          CertificateData: Record<string, Record<string, string>>;
        };
      };
      const cert = parsed.Certificate;
      expect(cert).toMatchObject({ type: doctype.toUpperCase(), name: info.title, number: content.number, issueDate: content.issueDate });
      expect(cert.IssuedBy.Organization).toMatchObject({ name: ISSUER_INFO[info.issuer].title, code: info.issuer });
      expect(cert.IssuedTo.Person).toMatchObject({ name: record.parameters.FullName, dob: record.holder?.dob });
      const data = Object.values(cert.CertificateData)[0];
      for (const p of content.parameters) expect(data[p.name]).toBe(p.value);
      for (const f of content.fields) expect(data[f.key]).toBe(f.value);
      const validate = envelopeValidator();
      expect(validate(structuredClone(cert)), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  it("gives the same bytes for the same record every time, and different documents to different records", async () => {
    const client = clientFor(t);
    const hl = recordOf("hlipc");
    const issue = (doctype: "hlipc" | "cripc", params: Record<string, string>, format: CertificateFormat = "pdf") =>
      client.issue(doctype, { format: format as "pdf", certificateParameters: params as never });
    const a = await issue("hlipc", hl.parameters);
    const b = await issue("hlipc", { ...hl.parameters, FullName: `  ${hl.parameters.FullName.toUpperCase()} ` });
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.txnId).not.toBe(a.txnId);
    const other = await issue("cripc", recordOf("cripc").parameters);
    expect(other.bytes.equals(a.bytes)).toBe(false);
  });
});
