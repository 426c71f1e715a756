import type { ErrorCode } from "../errors/error-codes";
import { StackwardenError } from "../errors/stackwarden-error";

/**
 * Bad input in a YAML file, located to a line, a column and a key path. The message is one line.
 * Its code is `SW_CONFIG_INVALID`, unless the loader knows better (a stack file that is not there
 * is `SW_STACK_NOT_FOUND`).
 */
export class YamlInputError extends StackwardenError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly keyPath: string,
    readonly problem: string,
    swCode: ErrorCode = "SW_CONFIG_INVALID",
  ) {
    // Line 0 is the file as a whole (missing, unreadable): no position to show.
    super(swCode, `${file}${line > 0 ? `:${line}:${column}` : ""}: ${keyPath ? `${keyPath}: ` : ""}${problem}`);
    this.name = "YamlInputError";
  }
}
