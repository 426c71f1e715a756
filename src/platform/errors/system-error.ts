import type { ErrorCode } from "./error-codes";

/**
 * The code of an error the operating system raised (Node's system errors carry an errno `code`
 * such as `EACCES` and the `syscall` that failed): a file or directory that could not be read or
 * written is the machine's state, not a bug, so it is `SW_IO_FAILED`; a port taken is
 * `SW_ADDRESS_IN_USE`. Undefined for anything else.
 */
export function systemErrorCode(e: unknown): ErrorCode | undefined {
  const err = e as { code?: unknown; syscall?: unknown } | null;
  if (typeof err?.code !== "string" || typeof err.syscall !== "string" || !/^E[A-Z0-9]+$/.test(err.code)) return undefined;
  return err.code === "EADDRINUSE" ? "SW_ADDRESS_IN_USE" : "SW_IO_FAILED";
}
