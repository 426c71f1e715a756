import { open, readFile, stat, type FileHandle } from "node:fs/promises";
import { basename } from "node:path";
import { ReadableStream } from "node:stream/web";
import { StackwardenError } from "../../platform/errors/stackwarden-error";

/** Bytes a read takes from disk while a part is sent. */
const READ_CHUNK = 4 << 20;
/** Reads kept ready ahead of the socket. */
const READS_AHEAD = 2;

/**
 * A file on disk as a part of undici's FormData, streamed when the request is sent and never held
 * whole. It stands where a Blob from `fs.openAsBlob` would: that Blob streams in 64 KiB reads through
 * the blob reader, and a Node.js read stream bridged with `Readable.toWeb` keeps a single chunk
 * ahead, so either made the client, not the service, the slower end of an upload. This one pulls
 * 4 MiB reads straight from a file handle, two ahead of the socket: on a 200 MB upload to the
 * emulator ~800 ms against ~1 000 ms through `Readable.toWeb` with 1 MiB reads and ~1 800 ms through
 * the Blob (bench/binary-scan.bench.ts has the figures of record). Each `stream()` opens the file
 * again, so a retry sends it from the start.
 */
export class DiskFile extends File {
  readonly #path: string;
  readonly #onRead?: () => void;

  private constructor(path: string, size: number, onRead?: () => void) {
    super([], basename(path), { type: "application/octet-stream" });
    this.#path = path;
    this.#onRead = onRead;
    // Blob's size is an accessor of the base class; an own property shadows it for FormData's length.
    Object.defineProperty(this, "size", { value: size, enumerable: true });
  }

  /**
   * The file at `path`, as it is now (its size is what the multipart body announces). `onRead` is
   * called each time a stream has read the file to its end: the disk and the CPU are the caller's
   * again while the service works on the bytes.
   */
  static async open(path: string, opts: { onRead?: () => void } = {}): Promise<DiskFile> {
    const s = await stat(path);
    if (!s.isFile()) throw new StackwardenError("SW_IO_FAILED", `${path} is not a file`);
    return new DiskFile(path, s.size, opts.onRead);
  }

  override stream(): ReadableStream<Uint8Array> {
    const path = this.#path;
    const onRead = this.#onRead;
    let handle: FileHandle | undefined;
    return new ReadableStream<Uint8Array>(
      {
        async start() {
          handle = await open(path, "r");
        },
        async pull(controller) {
          const chunk = Buffer.allocUnsafe(READ_CHUNK);
          let bytesRead: number;
          try {
            ({ bytesRead } = await handle!.read(chunk, 0, READ_CHUNK, null));
          } catch (e) {
            await handle?.close().catch(() => undefined);
            handle = undefined;
            throw e;
          }
          if (bytesRead > 0) {
            controller.enqueue(chunk.subarray(0, bytesRead));
            return;
          }
          await handle!.close();
          handle = undefined;
          controller.close();
          onRead?.();
        },
        async cancel() {
          await handle?.close();
          handle = undefined;
        },
      },
      { highWaterMark: READS_AHEAD },
    );
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
