import { StackwardenError } from "./errors/stackwarden-error";

/** An error the user can act on (bad input, a missing choice): printed as one line, exit code 1 (`SW_USAGE`). */
export class UsageError extends StackwardenError {
  constructor(message: string) {
    super("SW_USAGE", message);
    this.name = "UsageError";
  }
}
