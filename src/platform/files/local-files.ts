import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * The few questions the domain asks of the project's own files (a stack file, signature rules, the
 * artifacts a stack ships, Azure's region list): here, so the domain itself touches no file system
 * and its state goes through the ports of `src/domain/state/`.
 */

/** A file's text (UTF-8); the file system's error (ENOENT …) is thrown as is. */
export function readTextFile(path: string): string {
  return readFileSync(path, "utf8");
}

/** Whether anything exists at `path`. */
export function pathExists(path: string): boolean {
  return existsSync(path);
}

/** What is at `path`: a file, a directory, or nothing readable. */
export function pathKind(path: string): "file" | "directory" | "missing" {
  try {
    const s = statSync(path);
    return s.isDirectory() ? "directory" : s.isFile() ? "file" : "missing";
  } catch {
    return "missing";
  }
}

/** A file's size and whether it is one (undefined when nothing is there), without blocking. */
export async function fileInfo(path: string): Promise<{ isFile: boolean; size: number } | undefined> {
  try {
    const s = await stat(path);
    return { isFile: s.isFile(), size: s.size };
  } catch {
    return undefined;
  }
}

/** The names in a directory; undefined when it cannot be read. */
export function directoryNames(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch {
    return undefined;
  }
}

/** The files under `dir` whose name `accept`s, depth first in name order, skipping hidden entries. */
export function filesUnder(dir: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p, accept));
    else if (accept(e.name)) out.push(p);
  }
  return out;
}

/**
 * An empty file at `path`, made once (written under another name and renamed, so a concurrent
 * maker's reader never sees anything but an empty file): what the scan cache's engine probe uploads.
 */
export async function ensureEmptyFile(path: string): Promise<void> {
  const info = await fileInfo(path);
  if (info?.isFile && info.size === 0) return;
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  await writeFile(tmp, "");
  await rename(tmp, path);
}
