import type { CertificateFormat, Doctype, Issuer } from "./catalogue";

/**
 * Types of the certificate issuers' API, from specs/apisetu/<issuer>/openapi.yaml. The four specs
 * share their `components` (errors, ConsentArtifactSchema, AcademicCertificateSchema) word for word.
 */

/** `certificateParameters` of the insurance policies (`cripc` ... `twipc`). */
export interface PolicyParameters {
  /** Full name. */
  FullName: string;
  /** Policy Number. */
  UDF1: string;
  /** Customer Id. */
  UDF2: string;
  /** Policy Start Date (the spec's example: `DD/MM/YYYY`). */
  UDF3: string;
}

/** `certificateParameters` of the disability identity card and ID card (`dpicr`, `govid`). */
export interface DisabilityCardParameters {
  /** CERTIFICATE NO. */
  CERT_NO: string;
  /** Full name. */
  FullName: string;
}

/** `certificateParameters` of the Class X and XII marksheets (`sscer`, `hscer`). */
export interface MarksheetParameters {
  /** Full name. */
  FullName: string;
  /** Roll No. */
  RROLL: string;
  /** Year. */
  YEAR: string;
}

/** `certificateParameters` of the transfer certificate (`trcer`). */
export interface TransferCertificateParameters {
  /** Admn No. */
  ADMN_NO: string;
  /** Full name. */
  FullName: string;
}

/** Each doctype's `certificateParameters`. */
export interface CertificateParametersByDoctype {
  cripc: PolicyParameters;
  cvipc: PolicyParameters;
  egipc: PolicyParameters;
  hlipc: PolicyParameters;
  miipc: PolicyParameters;
  tripc: PolicyParameters;
  twipc: PolicyParameters;
  dpicr: DisabilityCardParameters;
  govid: DisabilityCardParameters;
  hscer: MarksheetParameters;
  sscer: MarksheetParameters;
  trcer: TransferCertificateParameters;
}

/** The formats each doctype's spec allows. */
export interface FormatsByDoctype {
  cripc: "pdf";
  cvipc: "pdf";
  egipc: "pdf";
  hlipc: "pdf";
  miipc: "pdf";
  tripc: "pdf";
  twipc: "pdf";
  dpicr: "pdf";
  govid: "xml" | "pdf";
  hscer: "pdf";
  sscer: "pdf";
  trcer: "pdf";
}

/** The spec's `ConsentArtifactSchema`: the citizen's consent to share the document. */
export interface ConsentArtifact {
  consent: {
    /** A unique consent id in UUID format. */
    consentId: string;
    /** UTC date-time, `YYYY-MM-DDThh:mm:ss.vZ`. */
    timestamp: string;
    dataConsumer: { id: string };
    dataProvider: { id: string };
    purpose: { description: string };
    user: { idType: string; idNumber: string; mobile: string; email: string };
    data: { id: string };
    permission: {
      access: string;
      dateRange: { from: string; to: string };
      frequency: { unit: string; value: number; repeats: number };
    };
  };
  signature: { signature: string };
}

/** The request body of every `POST /<doctype>/certificate`. */
export interface CertificateRequestBody<D extends Doctype = Doctype> {
  /** A fresh UUID per call, for tracking. */
  txnId: string;
  format: FormatsByDoctype[D];
  certificateParameters: CertificateParametersByDoctype[D];
  consentArtifact?: ConsentArtifact;
}

/** The spec's error codes per status (`components/responses/<status>Error`). */
export const CERTIFICATE_ERRORS = {
  400: {
    missing_parameter: "Please provide all mandatory parameters",
    invalid_parameter: "Bad request",
    invalid_format: "The format parameter is invalid",
    invalid_txnid: "The txnId parameter must be in UUID format",
    invalid_consentid: "The consentId parameter must be in UUID format",
  },
  401: {
    invalid_authentication: "Authentication failed",
    invalid_authorization: "You are not authorized to use this API",
  },
  404: {
    record_not_found: "No record found",
    url_not_found: "Your API url or path is incorrect",
  },
  500: { internal_server_error: "Internal server error" },
  // The spec spells it `bad_gatewy`; clients match the spec's spelling.
  502: { bad_gatewy: "Publisher service returned an invalid response" },
  503: { service_unavailable: "Publisher service is temporarily unavailable" },
  504: { gateway_timeout: "Publisher service did not respond in time" },
} as const;

export type CertificateErrorStatus = keyof typeof CERTIFICATE_ERRORS;
export type CertificateErrorCode = { [S in CertificateErrorStatus]: keyof (typeof CERTIFICATE_ERRORS)[S] }[CertificateErrorStatus];

/**
 * The body of every error response: `{ error, errorDescription }`. The emulator adds `field`, the
 * request field a 400 is about (the spec's error schema allows further properties).
 */
export interface CertificateErrorBody {
  error: CertificateErrorCode | string;
  errorDescription: string;
  field?: string;
}

/** The root element of the XML documents (the spec's `AcademicCertificateSchema` has `xml.name: Certificate`). */
export const CERTIFICATE_XML_ROOT = "Certificate";

/** A document the issuer returned. */
export interface IssuedDocument {
  issuer: Issuer;
  doctype: Doctype;
  /** The format asked for. */
  format: CertificateFormat;
  /** What the response's content type says it is: `pdf`, `xml`, or `other` (anything else). */
  kind: CertificateFormat | "other";
  /** The response's `content-type`, as sent. */
  contentType: string;
  bytes: Buffer;
  /** The txnId the request carried. */
  txnId: string;
  status: number;
  /** The response's request id (`x-ms-request-id` or `x-request-id`), when there was one. */
  requestId?: string;
}
