import { isErrorCode, type ErrorCode } from "./error-codes";

/**
 * An error with a stable code from the catalogue (error-codes.ts). The CLI prints
 * `stackwarden: <code>: <message>`; the message says what happened, where, and what to do next.
 * `swCode`, not `code`: Node's and the services' errors already use `code` for their own.
 */
export class StackwardenError extends Error {
  constructor(
    readonly swCode: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "StackwardenError";
  }
}

/** The stable code an error carries, if it carries one of the catalogue. */
export function swCodeOf(e: unknown): ErrorCode | undefined {
  const code = (e as { swCode?: unknown } | null)?.swCode;
  return isErrorCode(code) ? code : undefined;
}
