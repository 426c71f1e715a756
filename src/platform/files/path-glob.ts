import { isAbsolute, relative, sep } from "node:path";

/**
 * Globs for the artifact paths of a stack, matched segment by segment (so a walk never enters a
 * directory no pattern can match): `*` and `?` within a segment, `**` for any depth, `[abc]`,
 * `{a,b}`. Wildcards do not match names starting with `.` (write the dot to match them), and `**`
 * does not follow symbolic links to directories (no loops).
 */

/** Expands `{a,b}` alternatives (nested too) into plain patterns. */
export function expandBraces(pattern: string): string[] {
  const open = findBrace(pattern);
  if (!open) return [pattern];
  const { start, end, parts } = open;
  return parts.flatMap((p) => expandBraces(pattern.slice(0, start) + p + pattern.slice(end + 1)));
}

function findBrace(p: string): { start: number; end: number; parts: string[] } | undefined {
  for (let i = 0; i < p.length; i++) {
    if (p[i] === "\\") {
      i++;
      continue;
    }
    if (p[i] !== "{") continue;
    let depth = 0;
    const parts: string[] = [];
    let from = i + 1;
    for (let j = i; j < p.length; j++) {
      if (p[j] === "\\") {
        j++;
        continue;
      }
      if (p[j] === "{") depth++;
      else if (p[j] === "}") {
        depth--;
        if (depth === 0) {
          parts.push(p.slice(from, j));
          return parts.length > 1 ? { start: i, end: j, parts } : undefined;
        }
      } else if (p[j] === "," && depth === 1) {
        parts.push(p.slice(from, j));
        from = j + 1;
      }
    }
    return undefined;
  }
  return undefined;
}

/** Whether a path segment holds a wildcard (`*`, `?`, `[`). */
export const MAGIC = /[*?[]/;

/** A RegExp for one path segment (no `/` in it). */
export function segmentRegExp(segment: string): RegExp {
  let re = "";
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i];
    if (c === "\\" && i + 1 < segment.length) re += escape(segment[++i]);
    else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close < 0) re += "\\[";
      else {
        let body = segment.slice(i + 1, close);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        re += `[${body.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else re += escape(c);
  }
  // Wildcards leave dot files alone unless the pattern itself starts with a dot.
  return new RegExp(`^${segment.startsWith(".") ? "" : "(?!\\.)"}${re}$`);
}

function escape(c: string): string {
  return /[.+^${}()|[\]\\/]/.test(c) ? `\\${c}` : c;
}

/** A path as reports show it: relative to `base` with `/` separators when it lies below it, else absolute. */
export function displayPath(base: string, file: string): string {
  const rel = relative(base, file);
  return rel.startsWith("..") || isAbsolute(rel) ? file : rel.split(sep).join("/");
}

/**
 * Whether a relative path (`/` separators) matches a glob of `stackwarden:artifacts.paths`, by the
 * same rules `expandGlobs` (glob-expansion.ts) walks the disk with (for paths that need not exist: changed files in git).
 */
export function globMatches(pattern: string, path: string): boolean {
  const parts = path.split("/").filter((s) => s !== "" && s !== ".");
  return expandBraces(pattern).some((p) => {
    const segments = p.split(/[\\/]+/).filter((s) => s !== "" && s !== ".");
    return matchSegments(segments, 0, parts, 0);
  });
}

function matchSegments(segments: string[], i: number, parts: string[], j: number): boolean {
  if (i === segments.length) return j === parts.length;
  const seg = segments[i];
  if (seg === "**") {
    // As the walk does: a trailing `**` is every file below; otherwise it spans any number of directories. Neither enters dot names.
    if (i + 1 === segments.length) return j < parts.length && parts.slice(j).every((x) => !x.startsWith("."));
    for (let k = j; k < parts.length; k++) {
      if (matchSegments(segments, i + 1, parts, k)) return true;
      if (parts[k].startsWith(".")) return false;
    }
    return false;
  }
  if (j >= parts.length) return false;
  const ok = MAGIC.test(seg) ? segmentRegExp(seg).test(parts[j]) : parts[j] === seg.replace(/\\(.)/g, "$1");
  return ok && matchSegments(segments, i + 1, parts, j + 1);
}
