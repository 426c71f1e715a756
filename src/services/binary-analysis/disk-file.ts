import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";

/** Bytes a read takes from disk while a part is sent. */
const READ_CHUNK = 1 << 20;

/**
 * A file on disk as a part of undici's FormData, streamed when the request is sent and never held
 * whole. It stands where a Blob from `fs.openAsBlob` would: that Blob streams in 64 KiB reads through
 * the blob reader, which on a 200 MB upload cost ~300 ms of the main thread against ~60-90 ms for
 * 1 MiB reads, and made the client, not the service, the slower end of the upload. Each `stream()`
 * opens the file again, so a retry sends it from the start.
 */
export class DiskFile extends File {
  readonly #path: string;

  private constructor(path: string, size: number) {
    super([], basename(path), { type: "application/octet-stream" });
    this.#path = path;
    // Blob's size is an accessor of the base class; an own property shadows it for FormData's length.
    Object.defineProperty(this, "size", { value: size, enumerable: true });
  }

  /** The file at `path`, as it is now (its size is what the multipart body announces). */
  static async open(path: string): Promise<DiskFile> {
    const s = await stat(path);
    if (!s.isFile()) throw new Error(`${path} is not a file`);
    return new DiskFile(path, s.size);
  }

  override stream(): ReadableStream<Uint8Array> {
    return Readable.toWeb(createReadStream(this.#path, { highWaterMark: READ_CHUNK })) as ReadableStream<Uint8Array>;
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const b = await readFile(this.#path);
    return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
  }

  override async text(): Promise<string> {
    return readFile(this.#path, "utf8");
  }

  override slice(): Blob {
    throw new Error("a DiskFile is sent whole; it cannot be sliced");
  }
}

/**
 * Appends a file as a form part. No filename is passed: FormData would wrap the part in a new File
 * made from its internal bytes (a DiskFile keeps none); the DiskFile's own name is the file's.
 */
export function appendDiskFile(form: { append(name: string, value: Blob): void }, field: string, file: DiskFile): void {
  form.append(field, file);
}
