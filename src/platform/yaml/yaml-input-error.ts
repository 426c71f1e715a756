/** Bad input in a YAML file, located to a line, a column and a key path. The message is one line. */
export class YamlInputError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly keyPath: string,
    readonly problem: string,
  ) {
    // Line 0 is the file as a whole (missing, unreadable): no position to show.
    super(`${file}${line > 0 ? `:${line}:${column}` : ""}: ${keyPath ? `${keyPath}: ` : ""}${problem}`);
    this.name = "YamlInputError";
  }
}
