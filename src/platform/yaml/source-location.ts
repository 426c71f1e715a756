/** Where a value was written in a stack file: for errors and for report locations (SARIF). */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}
