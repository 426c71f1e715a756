import { createHash } from "node:crypto";

/** The manifest's format tag: what `evidence verify` recognises. */
export const EVIDENCE_FORMAT = "stackwarden-evidence/1";
/** The manifest's file name inside a bundle. */
export const MANIFEST_FILE = "manifest.json";

/** One file of a bundle, as the manifest lists it. */
export interface BundleFile {
  /** Relative to the bundle's directory, `/` separators. */
  path: string;
  /** Hex sha-256 of its bytes. */
  sha256: string;
  bytes: number;
}

/** `manifest.json`: what the bundle is, and the hash of every other file in it. */
export interface BundleManifest {
  format: typeof EVIDENCE_FORMAT;
  /** The stack's name: its audit trail holds the bundle's anchor. */
  stack: string;
  /** The stack file judged, as reports name it, and its sha-256 when it was judged. */
  stackFile: string;
  stackFileSha256: string;
  generatedAt: string;
  tool: { name: "stackwarden"; version: string };
  /** The check's counts and exit code (0, 3 a mandatory violation, 1 an artifact not scanned). */
  summary: Record<string, number>;
  exitCode: number;
  files: BundleFile[];
}

/** Hex sha-256 of bytes. */
export function sha256Of(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A bundle file's entry from its bytes. */
export function bundleFile(path: string, bytes: Buffer | string): BundleFile {
  const buf = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  return { path, sha256: sha256Of(buf), bytes: buf.length };
}

/** What is wrong with one file of a bundle. */
export interface BundleProblem {
  path: string;
  kind: "changed" | "missing" | "unlisted" | "manifest";
  message: string;
}

/**
 * Checks a bundle's files against its manifest: each listed file must be there with its hash, and
 * nothing else may be (the manifest itself aside). `read` gives a file's bytes (undefined when it is
 * missing); `present` lists the files found. Pure over what it is handed.
 */
export function checkBundleFiles(
  manifest: Pick<BundleManifest, "files">,
  present: readonly string[],
  read: (path: string) => Buffer | undefined,
): BundleProblem[] {
  const problems: BundleProblem[] = [];
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const bytes = read(f.path);
    if (!bytes) problems.push({ path: f.path, kind: "missing", message: `${f.path} is listed in the manifest but missing` });
    else if (sha256Of(bytes) !== f.sha256 || bytes.length !== f.bytes)
      problems.push({ path: f.path, kind: "changed", message: `${f.path} was changed: its sha-256 is no longer ${f.sha256}` });
  }
  for (const p of present) {
    if (p !== MANIFEST_FILE && !listed.has(p))
      problems.push({ path: p, kind: "unlisted", message: `${p} is in the bundle but not in its manifest: it was added` });
  }
  return problems;
}

/** The manifest from its text, or why it is not one (a manifest that does not parse was edited). */
export function parseManifest(text: string): { manifest?: BundleManifest; problem?: string } {
  let m: unknown;
  try {
    m = JSON.parse(text);
  } catch {
    return { problem: "manifest.json is not JSON" };
  }
  const o = m as Partial<BundleManifest>;
  if (!o || typeof o !== "object" || o.format !== EVIDENCE_FORMAT) return { problem: `manifest.json is not a ${EVIDENCE_FORMAT} manifest` };
  if (typeof o.stack !== "string" || !Array.isArray(o.files)) return { problem: "manifest.json lacks its stack or its files" };
  for (const f of o.files) {
    const x = f as Partial<BundleFile>;
    if (typeof x?.path !== "string" || typeof x.sha256 !== "string" || typeof x.bytes !== "number" || !isInside(x.path))
      return { problem: "manifest.json lists a file it cannot name (path, sha256, bytes; a path inside the bundle)" };
  }
  return { manifest: o as BundleManifest };
}

/** A relative path that stays inside the bundle's directory. */
function isInside(path: string): boolean {
  return path.length > 0 && !path.startsWith("/") && !path.split("/").includes("..") && !path.includes("\\");
}
