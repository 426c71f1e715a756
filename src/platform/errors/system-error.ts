import type { ErrorCode } from "./error-codes";

/**
 * The code of an error the operating system raised (Node's system errors carry an errno `code`
 * such as `EACCES`): a file or directory that could not be read or written (the error names its
 * `path`) is the machine's state, not a bug, so it is `SW_IO_FAILED`; a port already taken is
 * `SW_ADDRESS_IN_USE`. Undefined for anything else.
 */
export function systemErrorCode(e: unknown): ErrorCode | undefined {
  const err = e as { code?: unknown; syscall?: unknown; path?: unknown } | null;
  if (typeof err?.code !== "string" || typeof err.syscall !== "string") return undefined;
  if (err.code === "EADDRINUSE") return "SW_ADDRESS_IN_USE";
  return typeof err.path === "string" ? "SW_IO_FAILED" : undefined;
}
