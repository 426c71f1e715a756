import Ajv from "ajv";
import { STATIC_KEY_SCHEMAS } from "../../domain/stack/stack-schema";
import { describeAjvError, formatKeyPath, pointerToPath } from "../../platform/yaml/located-yaml";

/**
 * Inputs (and outputs) of the Residency resource: the stack's `stackwarden:residency`. It reads
 * and writes nothing; it carries the allowed countries and the sites into the stack, where the
 * policy pack (which sees resources, never the stack's config) finds them.
 */
export interface ResidencyInputs {
  allowedCountries: string[];
  sites: { name: string; address: string }[];
}

/** The one Residency resource of a stack: its id. */
export const RESIDENCY_RESOURCE_ID = "stackwarden-residency";

/** The stack file's schema of `stackwarden:residency`: the resource accepts exactly what the stack file does. */
export const RESIDENCY_INPUTS_SCHEMA = STATIC_KEY_SCHEMAS["stackwarden:residency"];

let validate: ReturnType<Ajv["compile"]> | undefined;

/** Validates inputs with the stack schema; inputs not known yet (`isUnknown`, a preview) are judged once they are. */
export function checkResidencyInputs(
  news: Record<string, unknown>,
  isUnknown: (v: unknown) => boolean = () => false,
): { property: string; reason: string }[] {
  validate ??= new Ajv({ allErrors: true, strict: false }).compile(RESIDENCY_INPUTS_SCHEMA);
  const entries = Object.entries(news).filter(([k]) => !k.startsWith("__"));
  if (entries.some(([, v]) => isUnknown(v))) return [];
  if (validate(Object.fromEntries(entries))) return [];
  return (validate.errors ?? []).map((err) => {
    const path = pointerToPath(err.instancePath);
    if (err.keyword === "additionalProperties") path.push(String(err.params.additionalProperty));
    return { property: formatKeyPath(path) || String(err.params.missingProperty ?? ""), reason: describeAjvError(err) };
  });
}

/** The outputs: the inputs, with the country codes in upper case and `sites` always a list. */
export function residencyOutputs(inputs: Record<string, unknown>): ResidencyInputs {
  const allowed = Array.isArray(inputs.allowedCountries) ? inputs.allowedCountries : [];
  const sites = Array.isArray(inputs.sites) ? (inputs.sites as { name: string; address: string }[]) : [];
  return {
    allowedCountries: allowed.map((c) => String(c).toUpperCase()),
    sites: sites.map((s) => ({ name: s.name, address: s.address })),
  };
}
