import type { ByteSource } from "./byte-source";

/** Shannon entropy in bits per byte (0 for uniform data, 8 for random data) of a byte histogram. */
export function entropyOfCounts(counts: ArrayLike<number>, total: number): number {
  if (total <= 0) return 0;
  let h = 0;
  for (let i = 0; i < 256; i++) {
    const c = counts[i];
    if (c === 0) continue;
    const p = c / total;
    h -= p * Math.log2(p);
  }
  return h;
}

/** Shannon entropy in bits per byte of a buffer. */
export function entropyOf(buf: Uint8Array): number {
  const counts = new Float64Array(256);
  for (let i = 0; i < buf.length; i++) counts[buf[i]]++;
  return entropyOfCounts(counts, buf.length);
}

const CHUNK = 1 << 20;

/** Entropy of `length` bytes at `offset` of a source, read in 1 MiB chunks (memory stays flat). */
export async function rangeEntropy(src: ByteSource, offset: number, length: number): Promise<number> {
  const counts = new Float64Array(256);
  const end = Math.min(src.size, offset + length);
  let total = 0;
  for (let o = Math.max(0, offset); o < end; o += CHUNK) {
    const buf = await src.read(o, Math.min(CHUNK, end - o));
    if (buf.length === 0) break;
    for (let i = 0; i < buf.length; i++) counts[buf[i]]++;
    total += buf.length;
  }
  return entropyOfCounts(counts, total);
}
