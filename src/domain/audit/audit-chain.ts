import { createHash } from "node:crypto";
import { GENESIS_HASH, type AuditEntry, type AuditRecord } from "./audit-entry";

/** sha-256 (hex) of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** The line that follows a line whose text is `previousLine` (undefined: the trail's first line), with its seq. */
export function chainEntry(record: AuditRecord, previous: { line: string; seq: number } | undefined): { entry: AuditEntry; line: string } {
  const body = { seq: (previous?.seq ?? 0) + 1, ...record, prev: previous ? sha256Hex(previous.line) : GENESIS_HASH };
  const hash = sha256Hex(JSON.stringify(body));
  const entry = { ...body, hash } as AuditEntry;
  return { entry, line: JSON.stringify(entry) };
}

/** What is wrong with one line of a trail. */
export interface TrailProblem {
  /** 1-based line number in the file. */
  line: number;
  kind: "unparseable" | "edited" | "removed" | "reordered" | "incomplete";
  message: string;
}

/** Where a head kept from an earlier verify (a checkpoint) is in the trail now. */
export interface CheckpointVerdict {
  /** The expected head's hash, as given. */
  hash: string;
  /** The line and seq of the entry that carries it; absent when no entry does (the trail was cut or rewritten). */
  found?: { line: number; seq: number };
  /** Lines after that entry: 0 when it is still the head. Absent when not found. */
  appendedSince?: number;
}

export interface TrailVerdict {
  /** No problem in the chain and, when a checkpoint was given, the checkpoint is in it. */
  intact: boolean;
  entries: number;
  /** The last entry's seq and hash: keep them elsewhere to notice a trail cut short at its end. */
  head?: { seq: number; hash: string };
  problems: TrailProblem[];
  /** Only when an expected head was given. */
  checkpoint?: CheckpointVerdict;
}

/** A full sha-256 in hex, as `audit verify` prints a head. */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Checks a trail's text. Each line must hash to its own `hash` (an edited line), carry the hash of
 * the line before it as `prev` (an edited, removed or inserted line before it), and follow its
 * predecessor's seq by one (which tells a removal from a reordering). With `expectHead` (a head
 * printed by an earlier verify), that hash must also be carried by an entry: a chain cannot show
 * entries cut from its end, or a rewrite from some line on, but a checkpoint kept elsewhere can. Pure.
 */
export function verifyTrailText(text: string, expectHead?: string): TrailVerdict {
  const problems: TrailProblem[] = [];
  if (text === "")
    return expectHead === undefined
      ? { intact: true, entries: 0, problems }
      : { intact: false, entries: 0, problems, checkpoint: { hash: expectHead } };
  const lines = text.split("\n");
  const complete = lines[lines.length - 1] === "";
  if (complete) lines.pop();
  if (!complete) {
    const n = lines.length;
    problems.push({
      line: n,
      kind: "incomplete",
      message: `line ${n} is incomplete (no newline at the end): a write was cut off or the file was truncated`,
    });
    lines.pop();
  }
  const parsed = lines.map((line, i): Partial<AuditEntry> | undefined => {
    try {
      const e = JSON.parse(line) as Partial<AuditEntry>;
      if (e && typeof e === "object" && typeof e.seq === "number" && typeof e.prev === "string" && typeof e.hash === "string") return e;
    } catch {
      /* reported below */
    }
    problems.push({
      line: i + 1,
      kind: "unparseable",
      message: `line ${i + 1} is not an audit entry (not JSON with seq, prev and hash): it was edited`,
    });
    return undefined;
  });
  // Every seq from 1 to N present once, but not in order: the entries were reordered.
  const seqs = parsed.map((e) => e?.seq);
  const reordered =
    seqs.every((s) => s !== undefined) &&
    seqs.some((s, i) => s !== i + 1) &&
    [...seqs].sort((a, b) => a! - b!).every((s, i) => s === i + 1);
  let previous: { line: string; seq: number; hash: string } | undefined;
  parsed.forEach((e, i) => {
    const n = i + 1;
    if (!e) {
      previous = undefined;
      return;
    }
    const { hash, ...body } = e;
    if (sha256Hex(JSON.stringify(body)) !== hash) {
      problems.push({
        line: n,
        kind: "edited",
        message: `line ${n} (seq ${e.seq}) was edited: its content no longer hashes to the hash it carries`,
      });
    }
    if (reordered) {
      if (e.seq !== n)
        problems.push({ line: n, kind: "reordered", message: `line ${n} holds seq ${e.seq}, not ${n}: entries were reordered` });
    } else if (previous || i === 0) {
      const expectedSeq = (previous?.seq ?? 0) + 1;
      if (e.seq! > expectedSeq) {
        const gap = e.seq! - expectedSeq === 1 ? `entry seq ${expectedSeq} was` : `entries seq ${expectedSeq}..${e.seq! - 1} were`;
        problems.push({
          line: n,
          kind: "removed",
          message: `${gap} removed before line ${n} (line ${n} holds seq ${e.seq}, expected ${expectedSeq})`,
        });
      } else if (e.seq! < expectedSeq) {
        problems.push({
          line: n,
          kind: "reordered",
          message: `line ${n} is out of order: it holds seq ${e.seq} after seq ${previous?.seq ?? 0}; entries were reordered or copied`,
        });
      } else if (e.prev !== (previous ? sha256Hex(previous.line) : GENESIS_HASH) && !problems.some((p) => p.line === n - 1)) {
        // Seq follows on but the chain does not: the line before was edited and its own hash recomputed
        // (or, for the first line, the trail does not start where it says).
        problems.push(
          previous
            ? {
                line: n - 1,
                kind: "edited",
                message: `line ${n - 1} (seq ${previous.seq}) was edited: line ${n} recorded a different hash for it`,
              }
            : { line: n, kind: "edited", message: `line ${n} (seq 1) does not start the chain: its prev hash was changed` },
        );
      }
    }
    previous = { line: lines[i], seq: e.seq!, hash: hash! };
  });
  problems.sort((a, b) => a.line - b.line);
  const entries = parsed.filter(Boolean).length;
  const head = previous ? { seq: previous.seq, hash: previous.hash } : undefined;
  if (expectHead === undefined) return { intact: problems.length === 0, entries, head, problems };
  const at = parsed.findIndex((e) => e?.hash === expectHead);
  const checkpoint: CheckpointVerdict =
    at < 0
      ? { hash: expectHead }
      : { hash: expectHead, found: { line: at + 1, seq: parsed[at]!.seq! }, appendedSince: parsed.length - 1 - at };
  return { intact: problems.length === 0 && checkpoint.found !== undefined, entries, head, problems, checkpoint };
}
