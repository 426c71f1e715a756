import { createHash } from "node:crypto";
import Ajv, { type ValidateFunction } from "ajv";
import { DOCTYPES, CERTIFICATE_FORMATS, ISSUERS } from "../../services/certificates/catalogue";
import { buildProbes, PROBES_SCHEMA, type ProbeSpec, type RawProbe } from "../../domain/probes/probe-config";
import type { ParameterSource } from "../../domain/probes/parameter-source";
import type { ProbeResult } from "../../domain/probes/probe-runner";
import { prepareStackProbes } from "../../usecases/probe";
import { clientSetFromEnv } from "../../clients/client-set";
import { describeAjvError, formatKeyPath, pointerToPath } from "../../platform/yaml/located-yaml";

/**
 * Inputs of the CertificateProbe resource: one `stackwarden:probes` entry. Parameters are
 * references, resolved when the probe runs, inside the provider:
 * - `{ from: "env", variable, demoDefault? }`: the provider reads the variable from its own
 *   environment at call time, so the value is never an input and never in state;
 * - `{ from: "secret", variable, value }`: a Pulumi secret, decrypted by Pulumi for the program.
 *   The resource wraps `value` with `pulumi.secret`, so state holds it only encrypted.
 */
export interface CertificateProbeInputs {
  name: string;
  issuer: string;
  doctype: string;
  format?: string;
  /** By the spec's field names (`UDF1`, `CERT_NO` ...). */
  parameters: Record<string, ParameterSource>;
  /**
   * What the probe follows: the outputs of the resources whose deployment it proves (the program
   * passes the TDE resources' statuses). When one of them is updated, this changes (it is unknown
   * during the preview), so the probe runs again after it; otherwise a converged stack previews clean.
   */
  deployment?: unknown;
}

/**
 * Outputs: the probe's identity and what a probe keeps: outcome, latency, the document's size and
 * sha-256, and for a failure the issuer's error code and message (cleared of parameter values).
 * Never a parameter, never the document.
 */
export interface CertificateProbeOutputs {
  name: string;
  issuer: string;
  doctype: string;
  format: string;
  outcome: "passed" | "failed";
  latencyMs: number;
  size?: number;
  sha256?: string;
  error?: { code: string; message: string };
  /** The sha-256 of the inputs it ran with (probeInputsDigest): `diff` compares it with the new inputs'. */
  inputsDigest: string;
}

export interface CheckFailure {
  property: string;
  reason: string;
}

const probeItem = PROBES_SCHEMA.items.properties;
/** One probe as the resource takes it: the stack schema's fields, parameters as references. */
export const CERTIFICATE_PROBE_INPUTS_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["name", "issuer", "doctype", "parameters"],
  properties: {
    name: probeItem.name,
    issuer: { type: "string", enum: ISSUERS },
    doctype: { type: "string", enum: DOCTYPES },
    format: { type: "string", enum: CERTIFICATE_FORMATS },
    deployment: {},
    parameters: {
      type: "object",
      minProperties: 1,
      additionalProperties: {
        anyOf: [
          {
            type: "object",
            additionalProperties: false,
            required: ["from", "variable"],
            properties: {
              from: { const: "env" },
              variable: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
              demoDefault: { type: "string", pattern: "^[^}]+$" },
            },
          },
          {
            type: "object",
            additionalProperties: false,
            required: ["from", "variable"],
            properties: {
              from: { const: "secret" },
              variable: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
              value: { type: "string" },
            },
          },
        ],
      },
    },
  },
};

let validate: ValidateFunction | undefined;

/**
 * The probe the inputs describe, checked as the stack loader checks it (the doctype belongs to the
 * issuer, the format is allowed, the parameters are the doctype's). Throws with the property and
 * the problem; `CheckFailure`s come from checkCertificateProbeInputs.
 */
export function probeSpecOf(inputs: CertificateProbeInputs): ProbeSpec {
  const raw: RawProbe = {
    name: inputs.name,
    issuer: inputs.issuer as RawProbe["issuer"],
    doctype: inputs.doctype as RawProbe["doctype"],
    ...(inputs.format ? { format: inputs.format as RawProbe["format"] } : {}),
    parameters: Object.fromEntries(
      Object.entries(inputs.parameters).map(([k, p]) => [
        k,
        p.from === "secret" ? { secure: p.value ?? "" } : `\${env:${p.variable}${p.demoDefault !== undefined ? `:-${p.demoDefault}` : ""}}`,
      ]),
    ),
  };
  const [spec] = buildProbes([raw], {
    secretsDecrypted: true,
    where: () => undefined,
    fail: (path, problem) => Object.assign(new Error(problem), { property: formatKeyPath(path.slice(1)) }),
  });
  // A secret keeps the variable the program was given (the CLI's STACKWARDEN_PROBE_<PROBE>_<PARAMETER>).
  for (const [field, source] of Object.entries(spec.parameters)) {
    const given = inputs.parameters[field];
    if (given?.from === "secret" && source.from === "secret") spec.parameters[field] = { ...given };
  }
  return spec;
}

/**
 * Validates the inputs (values not known yet are not judged) and, when `env` is given, that the
 * probe can run there: the issuers' keys are set and every parameter resolves. So `pulumi preview`
 * and the start of `pulumi up` fail on a probe that could not run, before it is reached.
 *
 * A failure about the parameters names no property: the engine prints the value of the property a
 * failure names, and `parameters` may hold a decrypted secret. Its path goes in the reason instead.
 */
export function checkCertificateProbeInputs(
  news: Record<string, unknown>,
  isUnknown: (v: unknown) => boolean = () => false,
  env?: NodeJS.ProcessEnv,
): CheckFailure[] {
  return checkInputs(news, isUnknown, env).map((f) =>
    f.property === "parameters" || f.property.startsWith("parameters.") || f.property.startsWith("parameters[")
      ? { property: "", reason: `${f.property}: ${f.reason}` }
      : f,
  );
}

function checkInputs(news: Record<string, unknown>, isUnknown: (v: unknown) => boolean, env?: NodeJS.ProcessEnv): CheckFailure[] {
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(CERTIFICATE_PROBE_INPUTS_SCHEMA);
  const own = Object.fromEntries(Object.entries(news).filter(([k]) => !k.startsWith("__")));
  if (Object.values(own).some((v) => isUnknown(v) || hasUnknown(v, isUnknown))) return [];
  if (!validate(own)) {
    const failures: CheckFailure[] = [];
    for (const err of validate.errors ?? []) {
      // anyOf reports each branch; the branch errors say what is wrong.
      if (err.keyword === "anyOf") continue;
      const path = pointerToPath(err.instancePath);
      if (err.keyword === "additionalProperties") path.push(String(err.params.additionalProperty));
      failures.push({ property: formatKeyPath(path) || String(err.params.missingProperty ?? ""), reason: describeAjvError(err) });
    }
    return dedupe(failures);
  }
  let spec: ProbeSpec;
  try {
    spec = probeSpecOf(own as unknown as CertificateProbeInputs);
  } catch (e) {
    return [{ property: (e as { property?: string }).property ?? "", reason: (e as Error).message }];
  }
  if (!env) return [];
  try {
    prepareStackProbes([spec], clientSetFromEnv(env), env);
  } catch (e) {
    return [{ property: "parameters", reason: (e as Error).message }];
  }
  return [];
}

/** Runs the probe with the provider's environment; the result is the resource's outputs. */
export async function runCertificateProbe(
  inputs: CertificateProbeInputs,
  env: NodeJS.ProcessEnv,
): Promise<{ id: string; outs: CertificateProbeOutputs }> {
  const spec = probeSpecOf(inputs);
  const run = await prepareStackProbes([spec], clientSetFromEnv(env), env, 1).run();
  return { id: spec.name, outs: probeOutputs(run.results[0], probeInputsDigest(inputs)) };
}

/**
 * The sha-256 of what a probe runs for: its identity, its parameters as references (a secret's
 * variable, never its value: a hash of personal data could be guessed back) and the deployment it
 * follows. Kept as an output, so `diff` can tell a probe whose inputs are as it ran from one to run again.
 */
export function probeInputsDigest(inputs: CertificateProbeInputs): string {
  const parameters = Object.fromEntries(
    Object.entries(inputs.parameters ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, p]) => [k, p.from === "secret" ? { from: p.from, variable: p.variable } : p]),
  );
  const canonical = canonicalJson({
    name: inputs.name,
    issuer: inputs.issuer,
    doctype: inputs.doctype,
    format: inputs.format ?? "pdf",
    parameters,
    deployment: inputs.deployment ?? null,
  });
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * Whether a probe must run again: its inputs are not those it last ran with (a changed probe, or an
 * update of the deployment it follows), or some are not known yet (a preview of such an update).
 * A probe whose inputs are as they were reports no change, so `pulumi preview --refresh
 * --expect-no-changes` passes on a converged stack.
 */
export function certificateProbeChanged(
  olds: Record<string, unknown>,
  news: Record<string, unknown>,
  isUnknown: (v: unknown) => boolean,
): boolean {
  if (Object.values(news).some((v) => hasUnknown(v, isUnknown))) return true;
  return olds.inputsDigest !== probeInputsDigest(news as unknown as CertificateProbeInputs);
}

/** JSON with object keys sorted at every level: the same value always gives the same text. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/** The outputs of a probe result: only what a probe keeps, and the digest of the inputs it ran with. */
export function probeOutputs(r: ProbeResult, inputsDigest: string): CertificateProbeOutputs {
  return {
    name: r.name,
    issuer: r.issuer,
    doctype: r.doctype,
    format: r.format,
    outcome: r.outcome,
    latencyMs: r.latencyMs,
    ...(r.size !== undefined ? { size: r.size } : {}),
    ...(r.sha256 !== undefined ? { sha256: r.sha256 } : {}),
    ...(r.error ? { error: { code: r.error.code, message: r.error.message } } : {}),
    inputsDigest,
  };
}

function hasUnknown(v: unknown, isUnknown: (v: unknown) => boolean): boolean {
  if (isUnknown(v)) return true;
  if (Array.isArray(v)) return v.some((x) => hasUnknown(x, isUnknown));
  if (v && typeof v === "object") return Object.values(v).some((x) => hasUnknown(x, isUnknown));
  return false;
}

function dedupe(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const key = `${f.property}\u0000${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
