import { createReadStream } from "node:fs";

/** A printable string found in a file. */
export interface FoundString {
  text: string;
  /** `ascii`, or `wide` (UTF-16LE: each character followed by a zero byte). */
  kind: "ascii" | "wide";
  /** Offset of its first occurrence. */
  offset: number;
  occurrences: number;
}

/** Longest string kept, in characters (longer runs are cut: a rule needs a distinctive piece, not a page). */
export const MAX_STRING_CHARS = 200;
/** Distinct strings remembered; past this, new ones are ignored (memory stays bounded on any file). */
const MAX_DISTINCT = 200_000;

const printable = (b: number) => (b >= 0x20 && b < 0x7f) || b === 0x09;

/**
 * Collects printable ASCII and UTF-16LE strings of at least `minLength` characters, streaming
 * through the file once. `onChunk` sees every chunk too (for hashing in the same pass).
 */
export async function extractStrings(path: string, minLength: number, onChunk?: (chunk: Buffer) => void): Promise<FoundString[]> {
  const found = new Map<string, FoundString>();
  const keep = (kind: "ascii" | "wide", chars: number[], offset: number) => {
    if (chars.length < minLength) return;
    const text = String.fromCharCode(...chars.slice(0, MAX_STRING_CHARS));
    const key = `${kind}\u0000${text}`;
    const seen = found.get(key);
    if (seen) seen.occurrences++;
    else if (found.size < MAX_DISTINCT) found.set(key, { text, kind, offset, occurrences: 1 });
  };

  // ASCII run state.
  let ascii: number[] = [];
  let asciiStart = 0;
  // UTF-16LE runs, one per alignment (a string may start at an odd offset).
  const wide: { chars: number[]; start: number }[] = [
    { chars: [], start: 0 },
    { chars: [], start: 0 },
  ];
  let carry: Buffer | undefined;
  let base = 0;

  const push = (c: number, list: number[]) => {
    // Past the cut, only the run's length matters (for minLength); the characters are not kept.
    if (list.length <= MAX_STRING_CHARS) list.push(c);
  };

  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    onChunk?.(chunk);
    const asciiBase = base + (carry ? carry.length : 0);
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (printable(b)) {
        if (ascii.length === 0) asciiStart = asciiBase + i;
        push(b, ascii);
      } else if (ascii.length > 0) {
        keep("ascii", ascii, asciiStart);
        ascii = [];
      }
    }
    // Pairs (b[i], b[i+1]) at every position; the last byte waits for the next chunk.
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    for (let i = 0; i + 1 < data.length; i++) {
      const run = wide[(base + i) & 1];
      if (printable(data[i]) && data[i + 1] === 0) {
        if (run.chars.length === 0) run.start = base + i;
        push(data[i], run.chars);
      } else if (run.chars.length > 0) {
        keep("wide", run.chars, run.start);
        run.chars = [];
      }
    }
    carry = data.subarray(data.length - 1);
    base += data.length - 1;
  }
  if (ascii.length > 0) keep("ascii", ascii, asciiStart);
  for (const run of wide) if (run.chars.length > 0) keep("wide", run.chars, run.start);
  return [...found.values()];
}
