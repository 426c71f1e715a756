import type { StringMatch } from "./types";

/**
 * `0x<offset>:<length>:<identifier>: <data>`, the line `yara --print-strings --print-string-length`
 * prints per match and the spec's `string_information` carries. Without the length (`--print-strings`
 * alone) it is `0x<offset>:<identifier>: <data>`.
 */
const LINE = /^0x([0-9a-fA-F]+):(?:(\d+):)?(\$[A-Za-z0-9_*]*):\s?([\s\S]*)$/;

/** Parses one `string_information` line; undefined when it is not in that form. */
export function parseStringInformation(line: string): StringMatch | undefined {
  const m = LINE.exec(line);
  if (!m) return undefined;
  return { offset: parseInt(m[1], 16), length: m[2] === undefined ? undefined : Number(m[2]), identifier: m[3], data: m[4] };
}

/** Formats a match as a `string_information` line. */
export function formatStringInformation(m: { offset: number; length: number; identifier: string; data: Uint8Array | string }): string {
  const data = typeof m.data === "string" ? m.data : escapeBytes(m.data);
  return `0x${m.offset.toString(16)}:${m.length}:${m.identifier}: ${data}`;
}

/** Printable ASCII as is, `\\` and `"` escaped, every other byte as `\xNN` (as the yara CLI prints matched data). */
export function escapeBytes(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) {
    if (b === 0x5c) out += "\\\\";
    else if (b === 0x22) out += '\\"';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return out;
}
