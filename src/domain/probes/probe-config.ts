import {
  CERTIFICATE_FORMATS,
  DOCTYPE_INFO,
  DOCTYPES,
  defaultFormat,
  ISSUERS,
  parameterField,
  type CertificateFormat,
  type Doctype,
  type Issuer,
} from "../../services/certificates/catalogue";
import { ENV_REFERENCE_PATTERN, isSecureValue, parseEnvReference, secretVariableName, type ParameterSource } from "./parameter-source";

/** Where a value was written (file, line, column): the same shape as the stack loader's. */
export interface ProbeSourceLocation {
  file: string;
  line: number;
  column: number;
}

/** A post-deploy probe of a certificate issuer, as the stack declares it. It holds no parameter values. */
export interface ProbeSpec {
  name: string;
  issuer: Issuer;
  doctype: Doctype;
  format: CertificateFormat;
  /** By the spec's field names (`UDF1`, `CERT_NO` ...), whichever name or alias the stack file used. */
  parameters: Record<string, ParameterSource>;
  source?: ProbeSourceLocation;
}

/** The `stackwarden:probes` value as written. */
export interface RawProbe {
  name: string;
  issuer: Issuer;
  doctype: Doctype;
  format?: CertificateFormat;
  parameters: Record<string, string | { secure: string }>;
}

/** Why a parameter must not be written as a value; the stack loader reports it at the value's line. */
export const PLAIN_PARAMETER_PROBLEM =
  "probe parameters are personal data and are never written in the stack file: write ${env:NAME} (the value comes from the environment variable NAME) or store it as a Pulumi secret (pulumi config set --secret --path)";

/** The JSON Schema of `stackwarden:probes`. A parameter is `${env:NAME}`, `${env:NAME:-DEMO}` or `{ secure: ... }`, never a plain value. */
export const PROBES_SCHEMA = {
  type: "array",
  description: "optional, default []: post-deploy probes of the certificate issuers (stackwarden probe)",
  items: {
    type: "object",
    additionalProperties: false,
    required: ["name", "issuer", "doctype", "parameters"],
    properties: {
      name: {
        type: "string",
        pattern: "^[a-z0-9][a-z0-9-]{0,62}$",
        description: "required: the probe's name, unique in the stack (lower case, digits, '-')",
      },
      issuer: { type: "string", enum: ISSUERS, description: "required: the issuer" },
      doctype: { type: "string", enum: DOCTYPES, description: "required: the document type; it must belong to the issuer" },
      format: {
        type: "string",
        enum: CERTIFICATE_FORMATS,
        description: "optional, default pdf: a format the doctype's spec allows (govid: xml or pdf; the others pdf)",
      },
      parameters: {
        type: "object",
        minProperties: 1,
        description:
          "required: the doctype's certificateParameters by the spec's name or its alias (UDF1 or policyNo); each ${env:NAME}, ${env:NAME:-DEMO} or a Pulumi secret",
        additionalProperties: {
          anyOf: [
            { type: "string", pattern: ENV_REFERENCE_PATTERN },
            { type: "object", additionalProperties: false, required: ["secure"], properties: { secure: { type: "string" } } },
          ],
        },
      },
    },
  },
} as const;

/**
 * The path (below `stackwarden:probes`) of the first parameter written as a plain value, so the
 * loader can say why it is refused before the schema's terser error.
 */
export function plainProbeParameter(value: unknown): (string | number)[] | undefined {
  if (!Array.isArray(value)) return undefined;
  for (let i = 0; i < value.length; i++) {
    const params = (value[i] as { parameters?: unknown } | null)?.parameters;
    if (!params || typeof params !== "object" || Array.isArray(params)) continue;
    for (const [k, v] of Object.entries(params)) {
      if (isSecureValue(v)) continue;
      if (typeof v === "string" && parseEnvReference(v)) continue;
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return [i, "parameters", k];
    }
  }
  return undefined;
}

/** Whether a path (from `stackwarden:probes`) is a probe parameter, where a Pulumi secret is allowed. */
export function isProbeParameterPath(path: readonly (string | number)[]): boolean {
  return path.length === 3 && typeof path[0] === "number" && path[1] === "parameters";
}

export interface BuildProbesOptions {
  /** Reports a problem at a path below `stackwarden:probes`; returns the error to throw. */
  fail(path: (string | number)[], problem: string): Error;
  where(path: (string | number)[]): ProbeSourceLocation | undefined;
  /**
   * `{ secure }` values hold plaintext Pulumi decrypted (the Pulumi program), not ciphertext.
   * Default false: the CLI never sees decrypted secrets.
   */
  secretsDecrypted?: boolean;
}

/**
 * Checks what the schema cannot (the doctype belongs to the issuer, the format is one its spec
 * allows, the parameters are the doctype's fields, names are unique) and builds the probes.
 */
export function buildProbes(raw: readonly RawProbe[] | undefined, opts: BuildProbesOptions): ProbeSpec[] {
  const names = new Map<string, number>();
  return (raw ?? []).map((p, i) => {
    const first = names.get(p.name);
    if (first !== undefined) throw opts.fail([i, "name"], `duplicate probe name "${p.name}": already stackwarden:probes[${first}]`);
    names.set(p.name, i);
    const info = DOCTYPE_INFO[p.doctype];
    if (info.issuer !== p.issuer) {
      throw opts.fail([i, "doctype"], `${p.doctype} is issued by ${info.issuer}, not ${p.issuer}`);
    }
    const format = p.format ?? defaultFormat(p.doctype);
    if (!info.formats.includes(format)) {
      throw opts.fail([i, "format"], `${p.doctype} is offered as ${info.formats.join(" or ")} only (its spec's format enum)`);
    }
    const parameters: Record<string, ParameterSource> = {};
    const writtenAs: Record<string, string> = {};
    for (const [key, value] of Object.entries(p.parameters)) {
      const field = parameterField(p.doctype, key);
      if (!field) {
        throw opts.fail(
          [i, "parameters", key],
          `${p.doctype} has no parameter "${key}"; it takes ${info.parameters.map((f) => `${f.name} (${f.alias})`).join(", ")}`,
        );
      }
      if (writtenAs[field.name] !== undefined) {
        throw opts.fail([i, "parameters", key], `"${key}" and "${writtenAs[field.name]}" are the same parameter (${field.name})`);
      }
      writtenAs[field.name] = key;
      if (isSecureValue(value)) {
        const variable = secretVariableName(p.name, key);
        parameters[field.name] = opts.secretsDecrypted ? { from: "secret", variable, value: value.secure } : { from: "secret", variable };
      } else {
        const ref = parseEnvReference(value);
        if (!ref) throw opts.fail([i, "parameters", key], PLAIN_PARAMETER_PROBLEM);
        parameters[field.name] = ref;
      }
    }
    const missing = info.parameters.filter((f) => f.required && !parameters[f.name]);
    if (missing.length) {
      throw opts.fail([i, "parameters"], `${p.doctype} needs ${missing.map((f) => `${f.name} (${f.alias}: ${f.description})`).join(", ")}`);
    }
    return { name: p.name, issuer: p.issuer, doctype: p.doctype, format, parameters, source: opts.where([i]) };
  });
}
