/** What a scan finds about some bytes under some rules: the gate's verdict and the rules that matched. */

/**
 * The binary analysis gate's summary of one artifact (error > matched > packed-not-unpackable >
 * clean), computed by `artifactVerdict` only.
 */
export type ArtifactVerdict = "clean" | "matched" | "packed-not-unpackable" | "error";

/** One rule that matched an artifact. */
export interface ArtifactMatch {
  rule: string;
  /** The rule file that declares it (as shown). */
  ruleFile: string;
  tags: string[];
  meta: Record<string, string | number | boolean>;
  /** Every matched string: identifier, offset and length. */
  strings: { identifier: string; offset: number; length?: number }[];
  /** Offset of the first matched string (for a SARIF region), when the rule matched strings. */
  offset?: number;
  /** Length of the first matched string. */
  length?: number;
}

/** What a scan found that depends only on its input (the bytes, the rules, the engine): what the scan cache keeps. No path: the same bytes may sit in many places. */
export interface ScanOutcome {
  packer?: { name: string; version?: string; evidence: string[] };
  scannedUnpacked: boolean;
  unpackError?: string;
  matches: ArtifactMatch[];
  verdict: ArtifactVerdict;
}
