import type { ErrorCode } from "./error-codes";

/** `PREFIX: SW_CODE: message`: how every error line starts, whoever prints it (`stackwarden`, `stackwarden plan`). */
export function errorLine(prefix: string, code: ErrorCode, message: string): string {
  return `${prefix}: ${code}: ${message}`;
}
