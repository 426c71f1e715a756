"use strict";
/**
 * Markdown cut to a size GitHub accepts (a comment or issue body: 65,536 characters; a job summary:
 * 1 MiB), at a line boundary, with an open code fence or <details> closed so what follows renders,
 * and one last line saying exactly what was left out and where the whole text is.
 */

/** GitHub's limit for a pull-request comment or an issue body, in characters. */
const COMMENT_LIMIT = 65536;
/** GitHub's limit for one step's job summary, in bytes. */
const SUMMARY_LIMIT = 1024 * 1024;

/** Characters, as GitHub counts a comment. */
const chars = (s) => s.length;
/** Bytes of UTF-8, as GitHub counts a job summary. */
const bytes = (s) => Buffer.byteLength(s, "utf8");

/** The lines that close what `kept` leaves open: a code fence, then <details> blocks. */
function closers(kept) {
  const out = [];
  const fences = kept.filter((l) => /^\s*```/.test(l)).length;
  if (fences % 2) out.push("```");
  const opened = kept.filter((l) => l.includes("<details>")).length - kept.filter((l) => l.includes("</details>")).length;
  for (let i = 0; i < opened; i++) out.push("", "</details>");
  return out;
}

/** The line that says what a cut left out: how many lines and characters (or bytes), and where the whole text is. */
function cutNote(leftLines, leftSize, unit, where) {
  return `_… ${leftLines} more line(s) (${leftSize} ${unit}) left out here to stay within GitHub's limit: ${where}._`;
}

/**
 * `text` whole when it measures at most `limit`, else its first lines that fit with what closes
 * them and the note of what was left out. `measure` is `chars` (comments) or `bytes` (job summaries).
 * Returns the text and what was left out ({ lines, size }, 0 when nothing).
 */
function fitMarkdown(text, limit, where, measure = chars) {
  if (measure(text) <= limit) return { text, leftLines: 0, leftSize: 0 };
  const unit = measure === bytes ? "bytes" : "characters";
  const lines = text.split("\n");
  // Room for the closers and the note, measured on the widest note this text can need.
  const reserve = measure(cutNote(lines.length, measure(text), unit, where)) + 64;
  let size = 0;
  let n = 0;
  while (n < lines.length && size + measure(lines[n]) + 1 + reserve <= limit) size += measure(lines[n++]) + 1;
  const kept = lines.slice(0, n);
  const rest = lines.slice(n);
  const leftSize = measure(rest.join("\n"));
  const out = [...kept, ...closers(kept), "", cutNote(rest.length, leftSize, unit, where)].join("\n");
  return { text: out, leftLines: rest.length, leftSize };
}

module.exports = { fitMarkdown, chars, bytes, COMMENT_LIMIT, SUMMARY_LIMIT };
