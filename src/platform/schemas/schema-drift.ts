import type { Logger } from "../http/logger";
import type { SchemaCheck } from "./swagger-schemas";

const warned = new Set<string>();

/**
 * Validates a response to learn, not to refuse: real services drift from their specs, so a
 * mismatch is logged once per operation and problem, and the data is handed on unchanged.
 */
export function noteSchemaDrift(operation: string, check: SchemaCheck, logger: Logger): void {
  if (check.valid) return;
  for (const e of check.errors.slice(0, 5)) {
    const key = `${operation} ${e}`;
    if (warned.has(key)) continue;
    warned.add(key);
    logger.warn(`${operation}: response differs from the published schema: ${e}`);
  }
}

/**
 * Checks a response object against its schema and notes drift. `null` counts as absent (services send
 * it for "not set"): only on a first mismatch is the object checked again without its null members,
 * so nulls alone never warn and the common, valid case costs one check.
 */
export function noteDrift(operation: string, validate: (data: unknown) => SchemaCheck, value: unknown, logger: Logger): void {
  if (validate(value).valid) return;
  noteSchemaDrift(operation, validate(withoutNullMembers(value)), logger);
}

/** A copy without `null` object members, at any depth (array elements are kept: a null item is drift). */
export function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (!value || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = withoutNullMembers(v);
  return out;
}
