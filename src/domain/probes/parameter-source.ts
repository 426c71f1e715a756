/**
 * Where a probe parameter's value comes from. Probe parameters are personal data (names, policy
 * and certificate numbers), so a stack file never holds them in plain text: it names an
 * environment variable, or holds a Pulumi secret.
 *
 * - `${env:NAME}`: the value of the environment variable NAME (it must be set and non-empty).
 * - `${env:NAME:-DEMO}`: NAME when it is set and non-empty, else DEMO. Demo values are for the
 *   example stack only: they are invented and match invented records in the emulator's example
 *   estate, and they are never sent to the real issuers (https://apisetu.gov.in).
 * - `{ secure: ... }`: a Pulumi secret. The Pulumi program receives it decrypted; the CLI cannot
 *   decrypt it and reads `STACKWARDEN_PROBE_<PROBE>_<PARAMETER>` instead.
 */
export type ParameterSource = EnvParameter | SecretParameter;

export interface EnvParameter {
  from: "env";
  /** The environment variable that holds the value. */
  variable: string;
  /** The invented value used when the variable is unset or empty (example stacks only). */
  demoDefault?: string;
}

export interface SecretParameter {
  from: "secret";
  /** The environment variable that supplies the secret to the CLI. */
  variable: string;
  /** The decrypted value, only when Pulumi decrypted it (the Pulumi program); never from a stack file read by the CLI. */
  value?: string;
}

/** `${env:NAME}` or `${env:NAME:-DEMO}`: NAME a POSIX variable name, DEMO any text without `}`. */
export const ENV_REFERENCE_PATTERN = "^\\$\\{env:[A-Za-z_][A-Za-z0-9_]*(?::-[^}]+)?\\}$";
const ENV_REFERENCE = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]+))?\}$/;

/** Parses `${env:NAME}` / `${env:NAME:-DEMO}`; undefined for anything else. */
export function parseEnvReference(text: string): EnvParameter | undefined {
  const m = ENV_REFERENCE.exec(text);
  if (!m) return undefined;
  return m[2] === undefined ? { from: "env", variable: m[1] } : { from: "env", variable: m[1], demoDefault: m[2] };
}

/** Whether a stack-file value is a Pulumi secret (`{ secure: <ciphertext> }`). */
export function isSecureValue(v: unknown): v is { secure: string } {
  return !!v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && "secure" in v;
}

/** `STACKWARDEN_PROBE_<PROBE>_<PARAMETER>`: the variable that supplies a secret probe parameter to the CLI. */
export function secretVariableName(probe: string, parameter: string): string {
  const part = (s: string) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/[^A-Za-z0-9]+/g, "_")
      .replace(/^_+|_+$/g, "")
      .toUpperCase();
  return `STACKWARDEN_PROBE_${part(probe)}_${part(parameter)}`;
}
