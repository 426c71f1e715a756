import PDFDocument from "pdfkit";
import { describe, expect, it } from "vitest";
import { certificateContent } from "../../../src/emulator/services/certificates/certificate-content";
import { renderCertificatePdf } from "../../../src/emulator/services/certificates/pdf-document";
import { renderCertificateXml } from "../../../src/emulator/services/certificates/xml-document";
import { checkContentType, checkPdf, checkXml } from "../../../src/domain/probes/document-checks";
import { checkDocument } from "../../../src/domain/probes/probe-runner";
import { devRecords } from "../../services/certificates/certificates-kit";

/** What a probe accepts as a document, and the reasons it gives when it does not. */
function pdfOf(pages: string[]): Promise<Buffer> {
  return new Promise((resolve) => {
    const doc = new PDFDocument({ autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on("data", (c: Buffer) => chunks.push(c));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    for (const text of pages) doc.addPage().text(text);
    doc.end();
  });
}

const record = (doctype: string) => devRecords().find((r) => r.doctype === doctype)!;

describe("PDF", () => {
  it("passes a PDF with the doctype's title on some page, however the extraction spaces it", async () => {
    expect(await checkPdf(await renderCertificatePdf(certificateContent(record("dpicr"))), "dpicr")).toEqual({ ok: true });
    expect(await checkPdf(await pdfOf(["cover page", "CLASS   XII\nmarksheet"]), "hscer")).toEqual({ ok: true });
  });

  it("fails a PDF without the title, a body that is not a PDF, and a PDF that does not parse", async () => {
    expect(await checkPdf(await pdfOf(["Class X Marksheet"]), "hscer")).toEqual({
      ok: false,
      reason: 'none of the PDF\'s 1 page(s) shows the title "Class XII Marksheet"',
    });
    expect(await checkPdf(Buffer.from("<html>portal</html>"), "hscer")).toEqual({
      ok: false,
      reason: "not a PDF: the body does not start with %PDF- (19 bytes)",
    });
    const broken = await checkPdf(Buffer.from("%PDF-1.3\ngarbage without xref\n"), "hscer");
    expect(broken.ok).toBe(false);
    expect((broken as { reason: string }).reason).toMatch(/^the PDF does not parse: /);
  });
});

describe("XML", () => {
  it("passes the emulator's XML and other shapes that name the doctype", () => {
    expect(checkXml(Buffer.from(renderCertificateXml(certificateContent(record("govid")))), "govid")).toEqual({ ok: true });
    expect(checkXml(Buffer.from(`<?xml version="1.0"?><doc><kind>ID Card</kind></doc>`), "govid")).toEqual({ ok: true });
    expect(checkXml(Buffer.from(`<Certificate type="govid"/>`), "govid")).toEqual({ ok: true });
  });

  it("fails XML that is not well-formed or does not name the doctype", () => {
    const broken = checkXml(Buffer.from(`<Certificate type="GOVID"><IssuedTo></Certificate>`), "govid");
    expect(broken.ok).toBe(false);
    expect((broken as { reason: string }).reason).toMatch(/^the XML is not well-formed: .+ \(line 1\)$/);
    expect(checkXml(Buffer.from(`<Certificate type="SSCER" name="Class X Marksheet"/>`), "govid")).toEqual({
      ok: false,
      reason: 'the XML (root <Certificate>) does not name the doctype GOVID or "ID Card"',
    });
  });
});

describe("content type", () => {
  it("must be the format asked for", async () => {
    expect(checkContentType("pdf", "application/pdf")).toEqual({ ok: true });
    expect(checkContentType("xml", "text/xml; charset=utf-8")).toEqual({ ok: true });
    expect(checkContentType("pdf", "text/html; charset=utf-8")).toEqual({
      ok: false,
      reason: 'asked for pdf, got content type "text/html"',
    });
    expect(checkContentType("pdf", "")).toEqual({ ok: false, reason: "asked for pdf, got content type none" });
    const pdf = await renderCertificatePdf(certificateContent(record("govid")));
    const doc = { issuer: "swavlambancard", doctype: "govid", format: "xml", txnId: "t", status: 200, bytes: pdf } as const;
    expect(await checkDocument({ ...doc, kind: "pdf", contentType: "application/pdf" })).toEqual({
      ok: false,
      reason: 'asked for xml, got content type "application/pdf"',
    });
  });
});
