import { withFileSource } from "../executables/byte-source";
import { readExecutable } from "../executables/executable-format";
import { detectPacker } from "../executables/packer-detection";
import { FileDocumentStore } from "../state/files/file-document-store";
import { DeferredDigest } from "./file-digest";
import { fileStampOf } from "./file-stamp";
import { expandGlobs } from "./glob-expansion";
import { ensureEmptyFile, filesUnder, pathExists, pathKind, readTextFile } from "./local-files";

/**
 * The artifact gate's files on this machine's disk: what the domain's ArtifactFiles port asks
 * (src/domain/artifacts/artifact-files.ts), satisfied structurally. The use cases and interfaces
 * hand it to the gate.
 */
export const localArtifactFiles = {
  exists: pathExists,
  kind: pathKind,
  filesUnder,
  readText: readTextFile,
  expandGlobs,
  stamp: fileStampOf,
  digest: (path: string) => new DeferredDigest(path),
  detectPacker: (path: string) => withFileSource(path, async (src) => detectPacker(src, await readExecutable(src))),
  ensureEmptyFile,
};

/**
 * The scan cache's storage on this machine: its entries are the files of its directory, shared by
 * every process of the user, so readable by them (0644); the engine probe's file is made there too.
 */
export const localScanCacheStorage = {
  documentsAt: (dir: string) => new FileDocumentStore(dir, 0o644),
  files: localArtifactFiles,
};
