import { XMLParser, XMLValidator } from "fast-xml-parser";
import { DOCTYPE_INFO, type CertificateFormat, type Doctype } from "../../services/certificates/catalogue";
import { documentKind } from "../../services/certificates/document-kind";

/** A check's verdict; the reason names what was wrong, never the document's content. */
export type DocumentVerdict = { ok: true } | { ok: false; reason: string };

const PDF_MAGIC = Buffer.from("%PDF-");

/** Collapses runs of whitespace and case, so a title broken over lines or re-spaced by extraction still matches. */
function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim().toLowerCase();
}

/** The content type must be the format asked for. */
export function checkContentType(format: CertificateFormat, contentType: string): DocumentVerdict {
  const kind = documentKind(contentType);
  if (kind === format) return { ok: true };
  return { ok: false, reason: `asked for ${format}, got content type ${contentType ? `"${contentType.split(";")[0]}"` : "none"}` };
}

/** A PDF must parse (unpdf) and have at least one page whose text contains the doctype's title. */
export async function checkPdf(bytes: Uint8Array, doctype: Doctype): Promise<DocumentVerdict> {
  const title = DOCTYPE_INFO[doctype].title;
  if (bytes.length < PDF_MAGIC.length || !Buffer.from(bytes.subarray(0, PDF_MAGIC.length)).equals(PDF_MAGIC)) {
    return { ok: false, reason: `not a PDF: the body does not start with %PDF- (${bytes.length} bytes)` };
  }
  let pages: string[];
  try {
    const { extractText, getDocumentProxy } = await import("unpdf");
    // unpdf hands the buffer to a worker-less pdf.js that may detach it: give it a copy.
    // verbosity 0: pdf.js would print its warnings ("Indexing all PDF objects") to the console.
    const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } finally {
      // pdf.js 6 (unpdf 1.8) dropped PDFDocumentProxy.destroy(); the loading task's is what it called.
      await pdf.loadingTask.destroy();
    }
  } catch (e) {
    return { ok: false, reason: `the PDF does not parse: ${(e as Error).message.split("\n")[0]}` };
  }
  if (pages.length === 0) return { ok: false, reason: "the PDF has no pages" };
  const wanted = normalise(title);
  if (pages.some((p) => normalise(p).includes(wanted))) return { ok: true };
  return { ok: false, reason: `none of the PDF's ${pages.length} page(s) shows the title "${title}"` };
}

/**
 * XML must be well-formed and name the doctype: the root's `type` attribute is the doctype code
 * (DigiLocker's `<Certificate type="GOVID">`), or, in a document of another shape, some attribute
 * or text is the doctype code or its title.
 */
export function checkXml(bytes: Uint8Array, doctype: Doctype): DocumentVerdict {
  const text = Buffer.from(bytes).toString("utf8");
  const valid = XMLValidator.validate(text);
  if (valid !== true) return { ok: false, reason: `the XML is not well-formed: ${valid.err.msg} (line ${valid.err.line})` };
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", parseAttributeValue: false, parseTagValue: false }).parse(
    text,
  ) as Record<string, unknown>;
  const rootName = Object.keys(doc).find((k) => !k.startsWith("?"));
  if (!rootName) return { ok: false, reason: "the XML has no root element" };
  const code = doctype.toLowerCase();
  const title = normalise(DOCTYPE_INFO[doctype].title);
  const root = doc[rootName];
  if (root && typeof root === "object" && String((root as Record<string, unknown>)["@type"] ?? "").toLowerCase() === code)
    return { ok: true };
  if (mentions(root, (s) => s.toLowerCase() === code || normalise(s) === title)) return { ok: true };
  return {
    ok: false,
    reason: `the XML (root <${rootName}>) does not name the doctype ${doctype.toUpperCase()} or "${DOCTYPE_INFO[doctype].title}"`,
  };
}

function mentions(node: unknown, match: (s: string) => boolean): boolean {
  if (typeof node === "string" || typeof node === "number") return match(String(node));
  if (Array.isArray(node)) return node.some((n) => mentions(n, match));
  if (node && typeof node === "object") return Object.values(node).some((n) => mentions(n, match));
  return false;
}
