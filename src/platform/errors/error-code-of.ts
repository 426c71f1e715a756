import { ERROR_CODES, type ErrorCode } from "./error-codes";
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

/**
 * The one code that stands for several failures at once: the first that needs a person (retrying
 * will not help, so it is what must be said), else the first.
 */
export function leadingCode(codes: readonly ErrorCode[]): ErrorCode | undefined {
  return codes.find((c) => ERROR_CODES[c].retry === "person") ?? codes[0];
}
