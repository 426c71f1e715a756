import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";
import { DOCTYPE_INFO, type Doctype, type Issuer } from "../../../services/certificates/catalogue";
import { CERTIFICATE_ERRORS, type CertificateErrorBody } from "../../../services/certificates/types";
import { readSpec } from "../../../platform/schemas/swagger-schemas";

/**
 * Checks request bodies against each operation's published request schema
 * (`paths./<doctype>/certificate.post.requestBody.content.application/json.schema` of
 * specs/apisetu/<issuer>/openapi.yaml) and turns the first problem into the spec's 400 body,
 * naming the field. Values are never quoted: they are personal data.
 */
const SPEC_BASE = "https://specs.stackwarden.invalid/apisetu/";

let ajv: Ajv | undefined;
const validators = new Map<Doctype, ValidateFunction>();

function getAjv(): Ajv {
  if (!ajv) {
    // strict=false: the specs carry `example`, `xml` and `minLength` on integers.
    ajv = new Ajv({ strict: false, allErrors: false, logger: false });
    addFormats(ajv, ["uuid", "date-time"]);
  }
  return ajv;
}

function specId(issuer: Issuer): string {
  return `${SPEC_BASE}${issuer}/openapi.yaml`;
}

/** The compiled request schema of a doctype's operation. */
export function requestSchemaValidator(doctype: Doctype): ValidateFunction {
  let v = validators.get(doctype);
  if (!v) {
    const issuer = DOCTYPE_INFO[doctype].issuer;
    const a = getAjv();
    if (!a.getSchema(specId(issuer))) a.addSchema({ ...readSpec(`apisetu/${issuer}/openapi.yaml`), $id: specId(issuer) }, specId(issuer));
    v = a.compile({ $ref: `${specId(issuer)}#/paths/~1${doctype}~1certificate/post/requestBody/content/application~1json/schema` });
    validators.set(doctype, v);
  }
  return v;
}

/** The spec's 400 body for an unacceptable request, or undefined when the body is acceptable. */
export function requestProblem(doctype: Doctype, body: unknown): CertificateErrorBody | undefined {
  if (!body || typeof body !== "object" || Array.isArray(body)) return badRequest("invalid_parameter", "body");
  const validate = requestSchemaValidator(doctype);
  if (!validate(body)) return toErrorBody(validate.errors![0]);
  // The schema leaves certificateParameters optional, but no record can be found without them.
  if ((body as Record<string, unknown>).certificateParameters === undefined)
    return badRequest("missing_parameter", "certificateParameters");
  return undefined;
}

/** One ajv error as the spec's 400: missing → missing_parameter; txnId, format, consentId their own codes; else invalid_parameter. */
export function toErrorBody(e: ErrorObject): CertificateErrorBody {
  const path = e.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (e.keyword === "required") return badRequest("missing_parameter", [...path, String(e.params.missingProperty)].join("."));
  const field = path.join(".") || "body";
  if (field === "txnId") return badRequest("invalid_txnid", field);
  if (field === "format") return badRequest("invalid_format", field);
  if (field === "consentArtifact.consent.consentId") return badRequest("invalid_consentid", field);
  return badRequest("invalid_parameter", field);
}

/** A 400 body with the spec's code and description and the field it is about. */
export function badRequest(code: keyof (typeof CERTIFICATE_ERRORS)[400], field: string): CertificateErrorBody {
  return { error: code, errorDescription: CERTIFICATE_ERRORS[400][code], field };
}
