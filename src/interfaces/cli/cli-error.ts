import { ERROR_CODES, type ErrorCode } from "../../platform/errors/error-codes";
import { errorCodeOf as codeOfError } from "../../platform/errors/error-code-of";
import { errorLine } from "../../platform/errors/error-line";
import { scrubTokens } from "../../platform/redaction";
import { UsageError } from "../../platform/usage-error";
import type { CommandIO } from "./command-io";

export { errorLine, UsageError };

/** The stable code of an error that ends a command (errorCodeOf's: its own, or what it maps to). */
export function errorCodeOf(e: unknown): ErrorCode {
  return codeOfError(e);
}

/**
 * The message of an error, in one line, never a stack trace, with tokens scrubbed. Ours are
 * written for users and shown as they are; the system's get their errno code when the message
 * lacks it; a bug's is preceded by its class name (`TypeError: …`), which is what a report needs.
 */
export function describeError(e: unknown): string {
  if (!(e instanceof Error)) return oneLine(String(e));
  const code = errorCodeOf(e);
  if (code !== "SW_INTERNAL") {
    const errno = code === "SW_IO_FAILED" || code === "SW_ADDRESS_IN_USE" ? (e as NodeJS.ErrnoException).code : undefined;
    return oneLine(`${e.message}${errno && !e.message.includes(errno) ? ` (${errno})` : ""}`);
  }
  const errno = (e as NodeJS.ErrnoException).code;
  return oneLine(`${e.name}: ${e.message}${typeof errno === "string" && !e.message.includes(errno) ? ` (${errno})` : ""}`);
}

/** The one JSON document a command with `--output json` prints on stdout when it ends with an error. */
export function errorDocument(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

/**
 * Reports an error that ends a command: its line on stderr (`stackwarden: SW_CODE: message`, or
 * with the command's own prefix), and, when the command was asked for JSON, `{"error":…}` on
 * stdout. Returns the exit code the catalogue gives the code, and sets it on `io`.
 */
export function reportError(io: CommandIO, e: unknown, opts: { prefix?: string; json?: boolean } = {}): number {
  const code = errorCodeOf(e);
  const message = describeError(e);
  io.err(errorLine(opts.prefix ?? "stackwarden", code, message));
  if (opts.json) io.out(errorDocument(code, message));
  return (io.exitCode = ERROR_CODES[code].exit);
}

function oneLine(s: string): string {
  return scrubTokens(s.replace(/\s*\n\s*/g, " ").trim());
}
