import type { ErrorCode } from "./error-codes";
import { swCodeOf } from "./stackwarden-error";
import { systemErrorCode } from "./system-error";

/**
 * The stable code of any error: the one it carries, else what the system said (a file, a port),
 * itself or as the cause of a message written around it; anything else is a bug: `SW_INTERNAL`.
 */
export function errorCodeOf(e: unknown): ErrorCode {
  const cause = e instanceof Error ? e.cause : undefined;
  return swCodeOf(e) ?? systemErrorCode(e) ?? systemErrorCode(cause) ?? "SW_INTERNAL";
}
