import { createHash } from "node:crypto";
import { closeSync, createReadStream, openSync, readSync } from "node:fs";

/** The sha-256 (hex) and size of a file, read as a stream (any size, flat memory). */
export async function sha256File(path: string): Promise<FileDigest> {
  const h = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    h.update(chunk);
    size += chunk.length;
  }
  return { sha256: h.digest("hex"), size };
}

/**
 * A file's digest, computed once and only when first asked for: `start` begins it (a scan calls it
 * when the upload has read the file, so that hashing runs while the service scans rather than
 * competing with the upload for the main thread), `result` waits for it (starting it if nothing
 * has). A failure is kept for `result`, never left unhandled.
 */
export class DeferredDigest {
  #running?: Promise<FileDigest>;

  constructor(private readonly path: string) {}

  readonly start = (): void => {
    void this.result().catch(() => undefined);
  };

  result(): Promise<FileDigest> {
    this.#running ??= sha256File(this.path);
    return this.#running;
  }
}

export interface FileDigest {
  sha256: string;
  size: number;
}

/** The sha-256 (hex) and size of a file, read synchronously in 1 MiB chunks (flat memory; for the Pulumi program, which registers resources in order). */
export function sha256FileSync(path: string): { sha256: string; size: number } {
  const h = createHash("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, "r");
  let size = 0;
  try {
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0; n = readSync(fd, buf, 0, buf.length, null)) {
      h.update(buf.subarray(0, n));
      size += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: h.digest("hex"), size };
}
