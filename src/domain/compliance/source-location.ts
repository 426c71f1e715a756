/** Where a value was written in a stack file: for errors and for report locations (SARIF). */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

/**
 * A file that a finding is about when that is not the stack file (an artifact the stack ships), and
 * where in it: reports point there (SARIF's physicalLocation), and at the stack file's line beside it.
 */
export interface FileLocation {
  /** As reports show it: relative to the working directory like the stack file, `/` separators. */
  file: string;
  /** Byte offset in the file itself, when known (never an offset in derived content such as an unpacked payload). */
  byteOffset?: number;
  /** Length in bytes of the region at `byteOffset`, when known. */
  byteLength?: number;
  /** sha-256 (hex) of the content the finding judged. */
  sha256?: string;
}
