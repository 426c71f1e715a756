import type PDFKit from "pdfkit";
import type { CertificateContent } from "./certificate-content";

const MARGIN = 56;

let pdfkit: typeof PDFKit | undefined;
/** pdfkit, with fontkit and its tables under it (~14 MB resident), loads with the first PDF, not with the emulator. */
function loadPdfKit(): typeof PDFKit {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred until a PDF is issued
  return (pdfkit ??= require("pdfkit") as typeof PDFKit);
}

/**
 * Renders a certificate as a one-page PDF with pdfkit's built-in Helvetica (text extractable).
 * The bytes depend on the content only: the creation date is the issue date and pdfkit derives
 * the file id from the document info, so the same record gives the same bytes every time.
 */
export function renderCertificatePdf(c: CertificateContent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const PDFDocument = loadPdfKit();
    const doc = new PDFDocument({
      size: "A4",
      margin: MARGIN,
      compress: true,
      info: {
        // No holder data in the metadata: it is what indexes and previews show first.
        Title: `${c.doctype.title} - ${c.issuer.title}`,
        Author: c.issuer.title,
        Subject: `${c.doctype.id.toUpperCase()} ${c.number}`,
        Creator: "stackwarden emulator",
        Producer: "stackwarden emulator (pdfkit)",
        CreationDate: c.issuedOn,
        ModDate: c.issuedOn,
      },
    });
    const chunks: Buffer[] = [];
    doc.on("data", (chunk: Buffer) => chunks.push(chunk));
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);

    const width = doc.page.width - 2 * MARGIN;
    doc.font("Helvetica-Bold").fontSize(13).fillColor("#333333").text(c.issuer.title, { width });
    doc.moveDown(0.6);
    doc.font("Helvetica-Bold").fontSize(20).fillColor("#000000").text(c.doctype.title, { width });
    doc.moveDown(0.3);
    doc.font("Helvetica").fontSize(10).fillColor("#555555").text(`Document type: ${c.doctype.id.toUpperCase()}`, { width });
    doc.moveDown(1);

    const rows: [string, string][] = [
      ["Document number", c.number],
      ["Issue date", c.issueDate],
      ...(c.issuedAt ? ([["Place of issue", c.issuedAt]] as [string, string][]) : []),
      ["Issued to", c.holderName],
      ...holderRows(c),
      ...c.parameters.map((p): [string, string] => [p.label, p.value]),
      ...c.fields.map((f): [string, string] => [f.label, f.value]),
    ];
    doc.fillColor("#000000");
    for (const [label, value] of rows) {
      doc.font("Helvetica-Bold").fontSize(11).text(`${label}: `, { continued: true, width });
      doc.font("Helvetica").text(value, { width });
      doc.moveDown(0.25);
    }

    doc.moveDown(2);
    doc
      .font("Helvetica-Oblique")
      .fontSize(8)
      .fillColor("#777777")
      .text(
        `Issued electronically by ${c.issuer.title} (${c.issuer.id}). Served by the stackwarden emulator from invented records: not a real document.`,
        { width },
      );
    doc.end();
  });
}

function holderRows(c: CertificateContent): [string, string][] {
  const h = c.holder;
  const rows: [string, string | undefined][] = [
    ["Date of birth", h.dob],
    ["Gender", h.gender],
    [h.swdIndicator === "W" ? "Wife of" : h.swdIndicator === "D" ? "Daughter of" : "Son/daughter of", h.swd],
    ["Mother's name", h.motherName],
    ["Category", h.category],
    ["Address", h.address ? Object.values(h.address).filter(Boolean).join(", ") : undefined],
  ];
  return rows.filter((r): r is [string, string] => !!r[1]);
}
