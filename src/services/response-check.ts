import type { Logger } from "../http/logger";
import type { SchemaCheck } from "../specs/swagger-schemas";

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
