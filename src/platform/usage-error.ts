/** An error the user can act on (bad input, a missing choice): printed as one line, exit code 1. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
