import { open, type FileHandle } from "node:fs/promises";

/**
 * Random access to the bytes of a file (or a buffer), so parsers read only the headers and
 * tables they need: a 1 GB executable is never loaded whole.
 */
export interface ByteSource {
  /** Size in bytes. */
  readonly size: number;
  /** Reads up to `length` bytes at `offset`; fewer at the end of the data, none past it. */
  read(offset: number, length: number): Promise<Buffer>;
}

/** A ByteSource over bytes already in memory (tests, small payloads). */
export function bufferSource(buf: Buffer): ByteSource {
  return {
    size: buf.length,
    read: (offset, length) => Promise.resolve(offset >= buf.length || offset < 0 ? Buffer.alloc(0) : buf.subarray(offset, offset + length)),
  };
}

/** A ByteSource over an open file; close it when done. */
export interface FileByteSource extends ByteSource {
  close(): Promise<void>;
}

/** Opens a file for random access reads. */
export async function openFileSource(path: string): Promise<FileByteSource> {
  const handle: FileHandle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    return {
      size,
      async read(offset, length) {
        if (offset < 0 || offset >= size || length <= 0) return Buffer.alloc(0);
        const n = Math.min(length, size - offset);
        const buf = Buffer.allocUnsafe(n);
        const { bytesRead } = await handle.read(buf, 0, n, offset);
        return bytesRead === n ? buf : buf.subarray(0, bytesRead);
      },
      close: () => handle.close(),
    };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/** Runs `fn` with a file source that is closed afterwards, also on error. */
export async function withFileSource<T>(path: string, fn: (src: FileByteSource) => Promise<T>): Promise<T> {
  const src = await openFileSource(path);
  try {
    return await fn(src);
  } finally {
    await src.close();
  }
}

/** Thrown when a structure points outside the data: the file is truncated or malformed. */
export class TruncatedError extends Error {
  constructor(what: string, offset: number) {
    super(`${what} at offset 0x${offset.toString(16)} lies outside the file`);
    this.name = "TruncatedError";
  }
}

/** Bounds-checked little/big-endian reads over one buffer read from a source at `base`. */
export class FieldReader {
  constructor(
    readonly buf: Buffer,
    readonly littleEndian: boolean,
    /** File offset of `buf[0]`, for error messages. */
    readonly base = 0,
  ) {}

  private check(o: number, n: number, what: string): void {
    if (o < 0 || o + n > this.buf.length) throw new TruncatedError(what, this.base + o);
  }
  u8(o: number, what = "byte"): number {
    this.check(o, 1, what);
    return this.buf[o];
  }
  u16(o: number, what = "16-bit field"): number {
    this.check(o, 2, what);
    return this.littleEndian ? this.buf.readUInt16LE(o) : this.buf.readUInt16BE(o);
  }
  u32(o: number, what = "32-bit field"): number {
    this.check(o, 4, what);
    return this.littleEndian ? this.buf.readUInt32LE(o) : this.buf.readUInt32BE(o);
  }
  /** A 64-bit field as a number; values above 2^53 (never valid offsets or sizes) read as Infinity. */
  u64(o: number, what = "64-bit field"): number {
    this.check(o, 8, what);
    const v = this.littleEndian ? this.buf.readBigUInt64LE(o) : this.buf.readBigUInt64BE(o);
    return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(v);
  }
}

/** A NUL-terminated string at `offset` of `buf` (at most `max` bytes), as latin1. */
export function cString(buf: Buffer, offset: number, max = 256): string {
  if (offset < 0 || offset >= buf.length) return "";
  let end = offset;
  const limit = Math.min(buf.length, offset + max);
  while (end < limit && buf[end] !== 0) end++;
  return buf.toString("latin1", offset, end);
}
