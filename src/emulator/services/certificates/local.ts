import type { IncomingHttpHeaders } from "node:http";
import { DOCTYPE_INFO, ISSUER_INFO, ISSUERS, type CertificateFormat, type Doctype } from "../../../services/certificates/catalogue";
import { ALL_KEY_HEADER_NAMES } from "../../../services/certificates/header-names";
import { CERTIFICATE_ERRORS } from "../../../services/certificates/types";
import type { EmulatorReply, EmulatorRequest } from "../../kit/emulator-app";
import type { LocalService, ServiceContext } from "../../kit/local-service";
import { certificateContent } from "./certificate-content";
import { emulatorErrorReply, errorReply } from "./error-replies";
import { renderCertificatePdf } from "./pdf-document";
import { badRequest, requestProblem } from "./request-validation";
import { certificatesSeedSchema, type CertificateRecordSeed, type CertificatesSeed } from "./seed-schema";
import { renderCertificateXml } from "./xml-document";

/** The emulator's prefix of the issuers: `<url>/apisetu/<issuer>/v3/<doctype>/certificate`. */
export const APISETU_PREFIX = "/apisetu";

export interface CertificatesState {
  accept: { apiKeys?: string[]; clientIds?: string[] };
  records: CertificateRecordSeed[];
}

/** Builds the state from a validated seed section; two records answering the same parameters are refused. */
export function certificatesInitialState(seed: CertificatesSeed | undefined): CertificatesState {
  const records = seed?.records ?? [];
  const seen = new Map<string, number>();
  records.forEach((r, i) => {
    const key = `${r.doctype}\n${matchKey(r.doctype, r.parameters)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      throw new Error(
        `certificates.records[${i}]: a ${r.doctype} record with the same parameters is already certificates.records[${first}]; a request could not tell them apart`,
      );
    }
    seen.set(key, i);
  });
  return { accept: { ...seed?.accept }, records: records.map((r) => ({ ...r })) };
}

/** Case, accents and spacing do not matter when a name or number is compared, as on the real gateway. */
function normalise(value: string): string {
  return value.normalize("NFKC").trim().replace(/\s+/g, " ").toLowerCase();
}

function matchKey(doctype: Doctype, parameters: Record<string, unknown>): string {
  return DOCTYPE_INFO[doctype].parameters.map((f) => normalise(String(parameters[f.name] ?? ""))).join("\u0000");
}

/** The first header of the given names that is present and non-empty. */
function header(headers: IncomingHttpHeaders, names: string[]): string | undefined {
  for (const n of names) {
    const v = headers[n.toLowerCase()];
    const s = Array.isArray(v) ? v[0] : v;
    if (s && s.trim()) return s.trim();
  }
  return undefined;
}

/** 401 unless the request carries an accepted API key and client id (either spelling of the headers). */
function authProblem(state: CertificatesState, headers: IncomingHttpHeaders): EmulatorReply | undefined {
  const key = header(
    headers,
    ALL_KEY_HEADER_NAMES.map((n) => n.apiKey),
  );
  const clientId = header(
    headers,
    ALL_KEY_HEADER_NAMES.map((n) => n.clientId),
  );
  const denied = (code: keyof (typeof CERTIFICATE_ERRORS)[401]) =>
    errorReply(401, { error: code, errorDescription: CERTIFICATE_ERRORS[401][code] });
  if (!key || !clientId) return denied("invalid_authentication");
  if (state.accept.apiKeys && !state.accept.apiKeys.includes(key)) return denied("invalid_authentication");
  if (state.accept.clientIds && !state.accept.clientIds.includes(clientId)) return denied("invalid_authorization");
  return undefined;
}

/**
 * The four certificate issuers of the specs under specs/apisetu/, at `/apisetu/<issuer>/v3`.
 * Requests are authenticated (401), validated against the operation's published request schema
 * (400 naming the field), matched against the seed's records (404), and answered with a real
 * PDF (pdfkit) or XML (xmlbuilder2) document. Nothing a request carries is logged or echoed.
 */
export const certificatesLocal: LocalService<CertificatesState, CertificatesSeed> = {
  name: "certificates",
  seedSchema: certificatesSeedSchema,
  initialState: certificatesInitialState,
  mount(ctx: ServiceContext<CertificatesState>) {
    // Rendered documents by record and format: a record's document never changes, so it is built once.
    const rendered = new WeakMap<CertificateRecordSeed, Partial<Record<CertificateFormat, Promise<Buffer>>>>();
    const documentOf = (record: CertificateRecordSeed, format: CertificateFormat): Promise<Buffer> => {
      let byFormat = rendered.get(record);
      if (!byFormat) rendered.set(record, (byFormat = {}));
      const content = certificateContent(record);
      return (byFormat[format] ??=
        format === "pdf" ? renderCertificatePdf(content) : Promise.resolve(Buffer.from(renderCertificateXml(content), "utf8")));
    };

    for (const issuer of ISSUERS) {
      for (const doctype of ISSUER_INFO[issuer].doctypes) {
        ctx.app.route("POST", `${APISETU_PREFIX}/${issuer}/v3/${doctype}/certificate`, async (req: EmulatorRequest) => {
          const state = ctx.state();
          const denied = authProblem(state, req.headers);
          if (denied) return denied;
          if (req.body === undefined) {
            // The body did not come as JSON: empty, or another content type.
            return errorReply(
              400,
              req.rawBody.length === 0 ? badRequest("missing_parameter", "body") : badRequest("invalid_parameter", "body"),
            );
          }
          const problem = requestProblem(doctype, req.body);
          if (problem) return errorReply(400, problem);
          const body = req.body as { format: CertificateFormat; certificateParameters: Record<string, unknown> };
          const wanted = matchKey(doctype, body.certificateParameters);
          const record = state.records.find((r) => r.doctype === doctype && matchKey(doctype, r.parameters) === wanted);
          if (!record) return errorReply(404, { error: "record_not_found", errorDescription: CERTIFICATE_ERRORS[404].record_not_found });
          const bytes = await documentOf(record, body.format);
          return {
            status: 200,
            headers: { "content-type": body.format === "pdf" ? "application/pdf" : "application/xml; charset=utf-8" },
            body: bytes,
          };
        });
      }
    }
  },
  errorReply(path, status, kind) {
    const lower = path.toLowerCase();
    if (lower !== APISETU_PREFIX && !lower.startsWith(`${APISETU_PREFIX}/`)) return undefined;
    return emulatorErrorReply(status, kind);
  },
};
