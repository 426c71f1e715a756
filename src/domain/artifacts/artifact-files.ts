import type { DetectedPacker } from "../../platform/executables/packer-detection";

/**
 * What the artifact gate asks of the files it resolves, reads and scans: the domain touches no file
 * itself. `localArtifactFiles` (src/platform/files/artifact-files.ts) answers for this machine's
 * disk; a test may answer from memory.
 */
export interface ArtifactFiles {
  /** Whether anything is at `path` (a project's Pulumi.yaml). */
  exists(path: string): boolean;
  /** What is at `path`: a file, a directory, or nothing readable. */
  kind(path: string): "file" | "directory" | "missing";
  /** The files under `dir` whose name `accept`s, depth first in name order, hidden entries skipped. */
  filesUnder(dir: string, accept: (name: string) => boolean): string[];
  /** A file's text (UTF-8); the file system's error (ENOENT …) is thrown as is. */
  readText(path: string): string;
  /**
   * The files under `base` that match one of `patterns` (path-glob.ts's globs), sorted, each once,
   * with the index of the first pattern that matched each; and the patterns that matched nothing.
   */
  expandGlobs(base: string, patterns: readonly string[]): { files: string[]; patternIndex: number[]; unmatched: string[] };
  /** What a file looks like now (a changed file has another stamp); undefined when nothing is there. */
  stamp(path: string): Promise<string | undefined>;
  /** The file's sha-256 and size, computed once, when `start` or `result` first asks. */
  digest(path: string): ArtifactDigest;
  /** The packer a file was packed with, if any (reading only its headers and tables). */
  detectPacker(path: string): Promise<DetectedPacker | undefined>;
  /** An empty file at `path`, made once (what the scan cache's engine probe uploads). */
  ensureEmptyFile(path: string): Promise<void>;
}

/** A file's digest, computed once: `start` begins it (a scan calls it when the upload has read the file), `result` waits for it. */
export interface ArtifactDigest {
  readonly start: () => void;
  result(): Promise<{ sha256: string; size: number }>;
}
