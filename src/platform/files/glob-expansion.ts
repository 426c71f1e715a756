import { readdirSync, statSync, type Dirent } from "node:fs";
import { isAbsolute, join, sep } from "node:path";
import { expandBraces, MAGIC, segmentRegExp } from "./path-glob";

/**
 * Globs expanded on the disk: the walk of path-glob.ts's patterns, apart from them so that what
 * only matches and shows paths (the domain uses it) touches no file.
 */

/**
 * The files under `base` that match one of `patterns` (relative to `base`, or absolute), sorted, each
 * once, with the index of the first pattern that matched each; and the patterns that matched nothing.
 */
export function expandGlobs(base: string, patterns: readonly string[]): { files: string[]; patternIndex: number[]; unmatched: string[] } {
  const found = new Map<string, number>();
  const unmatched: string[] = [];
  patterns.forEach((pattern, index) => {
    const hits = new Set<string>();
    for (const p of expandBraces(pattern)) {
      const abs = isAbsolute(p);
      const segments = p.split(/[\\/]+/).filter((s, i) => s !== "" && !(s === "." && i > 0));
      walk(abs ? sep : base, segments, 0, hits);
    }
    for (const h of hits) if (!found.has(h)) found.set(h, index);
    if (hits.size === 0) unmatched.push(pattern);
  });
  const files = [...found.keys()].sort();
  return { files, patternIndex: files.map((f) => found.get(f)!), unmatched };
}

function walk(dir: string, segments: string[], i: number, out: Set<string>): void {
  const seg = segments[i];
  const last = i === segments.length - 1;
  if (seg === undefined) return;
  if (seg === "**") {
    if (last) {
      // A trailing `**` means every file below.
      for (const e of entries(dir)) {
        if (e.name.startsWith(".")) continue;
        const p = join(dir, e.name);
        if (isFile(p, e)) out.add(p);
        else if (e.isDirectory()) walk(p, segments, i, out);
      }
      return;
    }
    walk(dir, segments, i + 1, out);
    for (const e of entries(dir)) if (e.isDirectory() && !e.name.startsWith(".")) walk(join(dir, e.name), segments, i, out);
    return;
  }
  if (!MAGIC.test(seg)) {
    const p = join(dir, seg.replace(/\\(.)/g, "$1"));
    if (last) {
      if (isFile(p)) out.add(p);
    } else if (isDir(p)) walk(p, segments, i + 1, out);
    return;
  }
  const re = segmentRegExp(seg);
  for (const e of entries(dir)) {
    if (!re.test(e.name)) continue;
    const p = join(dir, e.name);
    if (last) {
      if (isFile(p, e)) out.add(p);
    } else if (e.isDirectory() || (e.isSymbolicLink() && isDir(p))) walk(p, segments, i + 1, out);
  }
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function isFile(p: string, e?: Dirent): boolean {
  if (e && e.isFile()) return true;
  if (e && !e.isSymbolicLink()) return false;
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
