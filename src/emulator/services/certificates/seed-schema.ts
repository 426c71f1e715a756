import { DOCTYPE_INFO, DOCTYPES, type Doctype } from "../../../services/certificates/catalogue";

/**
 * The JSON Schema of the emulator seed's `certificates:` section, and its TypeScript twin.
 * Every record is an INVENTED person's document; the example estate (stacks/dev.estate.yaml) has
 * some for every doctype. Each key's `description` says whether it is optional and its default.
 */

/** The holder's details printed on the document beside the name (all optional; the spec's `Person` attributes). */
export interface HolderSeed {
  dob?: string;
  gender?: string;
  motherName?: string;
  /** Son/wife/daughter of (the spec's `swd`). */
  swd?: string;
  /** `S`, `W` or `D` (the spec's `swdIndicator`). */
  swdIndicator?: string;
  category?: string;
  address?: AddressSeed;
}

export interface AddressSeed {
  line1?: string;
  line2?: string;
  locality?: string;
  vtc?: string;
  district?: string;
  state?: string;
  pin?: string;
  country?: string;
}

/** One certificate an issuer can hand out. */
export interface CertificateRecordSeed {
  doctype: Doctype;
  /** The doctype's `certificateParameters` (the spec's names): a request whose parameters match gets this document. */
  parameters: Record<string, string>;
  /** `YYYY-MM-DD`. */
  issueDate: string;
  /** The document number; default derived from the doctype and parameters. */
  number?: string;
  /** Where it was issued (the XML's `issuedAt`). */
  issuedAt?: string;
  holder?: HolderSeed;
  /** Further data printed on the document: camelCase key → value (label derived from the key). */
  fields?: Record<string, string | number>;
}

export interface CertificatesSeed {
  /** The keys the issuers accept; default: any non-empty API key and client id. */
  accept?: { apiKeys?: string[]; clientIds?: string[] };
  records?: CertificateRecordSeed[];
}

const text = (description: string) => ({ type: "string", minLength: 1, maxLength: 200, description });

const addressSchema = {
  type: "object",
  additionalProperties: false,
  description: "optional: the holder's address (the spec's Address attributes)",
  properties: Object.fromEntries(
    ["line1", "line2", "locality", "vtc", "district", "state", "pin", "country"].map((k) => [k, text(`optional: ${k}`)]),
  ),
};

const holderSchema = {
  type: "object",
  additionalProperties: false,
  description: "optional: the holder's details printed beside the name",
  properties: {
    dob: text("optional: date of birth, as printed (e.g. 14-02-1996)"),
    gender: text("optional"),
    motherName: text("optional"),
    swd: text("optional: son/wife/daughter of"),
    swdIndicator: { type: "string", enum: ["S", "W", "D"], description: "optional: S, W or D" },
    category: text("optional"),
    address: addressSchema,
  },
};

/** Per doctype: its parameters are exactly the spec's fields, each required one present. */
const parametersByDoctype = DOCTYPES.map((d) => ({
  if: { properties: { doctype: { const: d } }, required: ["doctype"] },
  then: {
    properties: {
      parameters: {
        type: "object",
        additionalProperties: false,
        required: DOCTYPE_INFO[d].parameters.filter((f) => f.required).map((f) => f.name),
        properties: Object.fromEntries(DOCTYPE_INFO[d].parameters.map((f) => [f.name, text(`${f.description}`)])),
      },
    },
  },
}));

export const certificatesSeedSchema = {
  type: "object",
  additionalProperties: false,
  description: "optional: the certificate issuers' records (invented people) and accepted keys",
  properties: {
    accept: {
      type: "object",
      additionalProperties: false,
      description: "optional: the accepted keys; without it any non-empty API key and client id are accepted",
      properties: {
        apiKeys: {
          type: "array",
          minItems: 1,
          items: { type: "string", minLength: 1 },
          description: "optional: accepted API keys; default any",
        },
        clientIds: {
          type: "array",
          minItems: 1,
          items: { type: "string", minLength: 1 },
          description: "optional: accepted client ids; default any",
        },
      },
    },
    records: {
      type: "array",
      description: "optional, default []: the documents the issuers can hand out",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["doctype", "parameters", "issueDate"],
        properties: {
          doctype: { type: "string", enum: DOCTYPES, description: "required: the document type (its issuer follows from it)" },
          parameters: { type: "object", description: "required: the doctype's certificateParameters, by the spec's names" },
          issueDate: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "required: YYYY-MM-DD" },
          number: text("optional: the document number; default derived from the doctype and parameters"),
          issuedAt: text("optional: the place of issue"),
          holder: holderSchema,
          fields: {
            type: "object",
            description: "optional: further data printed on the document (camelCase key: value)",
            propertyNames: { pattern: "^[a-z][A-Za-z0-9]*$" },
            additionalProperties: { type: ["string", "number"] },
          },
        },
        allOf: parametersByDoctype,
      },
    },
  },
} as const;
