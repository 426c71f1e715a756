import { createHash } from "node:crypto";
import type { ScanOutcome } from "./scan-outcome";

/**
 * The scan cache's entries: what a scan found about some bytes under some rules on some engine,
 * kept in a file named by the cache key and checked when read back, so that a damaged or edited
 * entry is rescanned rather than believed.
 */

/** The entry format; part of every key, so a new format never reads an old entry. Bump it when what a scan finds changes shape or meaning. */
export const ENTRY_FORMAT = "stackwarden-scan-cache/1";

/** What a scan's result depends on: the bytes, the rules, the engine, and stackwarden's own scan logic (packer detection, match parsing). */
export interface ScanCacheInput {
  /** sha-256 (hex) of the artifact's bytes. */
  sha256: string;
  size: number;
  /** The rule set's digest (RuleSet.digest: each rule file's shown path and content). */
  rulesDigest: string;
  /** The engine as the service reports it (engine-identity.ts). */
  engine: string;
  /** stackwarden's version. */
  version: string;
}

export type { ScanOutcome } from "./scan-outcome";

/** A decoded entry. */
export interface ScanCacheEntry {
  key: string;
  input: ScanCacheInput;
  /** When the service scanned the bytes (ISO 8601). */
  scannedAt: string;
  outcome: ScanOutcome;
}

/** The cache key of an input: a sha-256 over the entry format and every part of the input. */
export function scanCacheKey(input: ScanCacheInput): string {
  const parts = [ENTRY_FORMAT, input.version, input.engine, input.rulesDigest, input.sha256, String(input.size)];
  return createHash("sha256").update(parts.join("\0")).digest("hex");
}

const DIGEST_LINE = /^sha256:([0-9a-f]{64})$/;

/**
 * An entry as stored: one line of JSON, then `sha256:<hex>` of that line's bytes, each ending in a
 * newline. The digest inside the entry tells a cut or edited file from a whole one.
 */
export function encodeEntry(entry: Omit<ScanCacheEntry, "key">): string {
  const body = JSON.stringify({ format: ENTRY_FORMAT, key: scanCacheKey(entry.input), ...entry });
  return `${body}\nsha256:${createHash("sha256").update(body).digest("hex")}\n`;
}

/** Either the entry, or why it cannot be believed (for the one warning line). */
export type DecodedEntry = { ok: true; entry: ScanCacheEntry } | { ok: false; problem: string };

/**
 * Reads an entry back and checks that it is whole (its digest matches its content), that it is an
 * entry of this format, and that it is the entry of `key`: its input hashes to `key` (a file
 * renamed or copied over another key is refused).
 */
export function decodeEntry(text: string, key: string): DecodedEntry {
  const lines = text.split("\n");
  if (lines.length !== 3 || lines[2] !== "") return { ok: false, problem: "it is truncated or has extra lines" };
  const digest = DIGEST_LINE.exec(lines[1]);
  if (!digest) return { ok: false, problem: "its integrity digest is missing or malformed" };
  if (createHash("sha256").update(lines[0]).digest("hex") !== digest[1]) {
    return { ok: false, problem: "its content does not match its integrity digest" };
  }
  let doc: Partial<ScanCacheEntry> & { format?: unknown };
  try {
    doc = JSON.parse(lines[0]) as typeof doc;
  } catch {
    return { ok: false, problem: "its content is not JSON" };
  }
  if (doc.format !== ENTRY_FORMAT) return { ok: false, problem: `its format is ${JSON.stringify(doc.format)}, not ${ENTRY_FORMAT}` };
  if (!isInput(doc.input) || !isOutcome(doc.outcome) || typeof doc.scannedAt !== "string") {
    return { ok: false, problem: "it lacks the input, the outcome or the scan time" };
  }
  if (doc.key !== key || scanCacheKey(doc.input) !== key) return { ok: false, problem: "it holds the entry of another key" };
  return { ok: true, entry: { key, input: doc.input, scannedAt: doc.scannedAt, outcome: doc.outcome } };
}

function isInput(x: unknown): x is ScanCacheInput {
  const i = x as ScanCacheInput | undefined;
  return (
    !!i &&
    typeof i.sha256 === "string" &&
    typeof i.size === "number" &&
    typeof i.rulesDigest === "string" &&
    typeof i.engine === "string" &&
    typeof i.version === "string"
  );
}

function isOutcome(x: unknown): x is ScanOutcome {
  const o = x as ScanOutcome | undefined;
  return !!o && typeof o.scannedUnpacked === "boolean" && Array.isArray(o.matches) && typeof o.verdict === "string";
}
