import type { EnforcementLevel } from "./enforcement-level";
import type { Exemption } from "./declared-exemption";
import type { SourceLocation } from "../../platform/yaml/source-location";

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
  /** Set when what the finding judged came from the scan cache (an artifact not scanned again): when it was scanned. */
  cached?: { scannedAt: string };
}

/**
 * - `fail`: the rule flags the resource;
 * - `pass`: checked and fine;
 * - `not-applicable`: the rule cannot judge (no advisor output, `master`, no limit);
 * - `unknown`: a value is not known yet (preview);
 * - `exempt`: it would fail, but an active exemption covers it.
 */
export type Verdict = "pass" | "fail" | "not-applicable" | "unknown" | "exempt";

export interface Finding {
  ruleId: string;
  /** ARM id of the resource judged. */
  resourceId: string;
  /** Short name for tables: `rg/server/db` or `eastus/cores`. */
  label: string;
  verdict: Verdict;
  level: EnforcementLevel;
  /** One sentence, phrased "X must …" for failures. */
  message: string;
  source?: SourceLocation;
  /** The file the finding is about when that is not the stack file (an artifact): reports point there first. */
  location?: FileLocation;
  /**
   * Tells apart several findings of one rule on one resource (the signature rule that matched an
   * artifact): part of their identity in reports (SARIF fingerprints). Absent: one finding per rule and resource.
   */
  facet?: string;
  /** Machine-readable details beside the message (JSON findings, SARIF result properties). */
  properties?: Record<string, string | number | boolean | string[]>;
  /** The judged fact's `origin`, carried through (the resource a policy pack reports the finding on). */
  origin?: string;
  exemption?: Exemption;
  /**
   * On a not-applicable finding that only says what the rule would judge is absent (no advisor
   * output, a service-managed protector for a key rule, no probe result yet): that, in a few words
   * shared by every such finding of the rule. The people's reports (table, markdown) count these in
   * one line per rule and reason; JSON, SARIF and JUnit keep each finding as it is, without this.
   */
  absent?: string;
}

/** A failure that counts against the exit code / `pulumi up`. */
export function isMandatoryViolation(f: Finding): boolean {
  return f.verdict === "fail" && f.level === "mandatory";
}

export function isAdvisoryViolation(f: Finding): boolean {
  return f.verdict === "fail" && f.level === "advisory";
}
