import { constants, crc32, deflateRawSync } from "node:zlib";

/**
 * A part of an answer compressed once and sent many times: its bytes, and the same bytes as raw
 * deflate blocks that end the stream (the last block is final).
 */
export interface KeptPart {
  bytes: Buffer;
  deflated: Buffer;
}

/** Compresses `bytes` once, to be sent as the end of many gzip answers (gzipWithKeptTail). */
export function keptPart(bytes: Buffer): KeptPart {
  return { bytes, deflated: deflateRawSync(bytes, { level: 6 }) };
}

// RFC 1952: ID1 ID2, CM (deflate), FLG (none), MTIME (none), XFL, OS (unknown).
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);

/**
 * One gzip member (RFC 1952) of `head` then `tail`, compressing only `head` now: its deflate blocks end
 * with a sync flush (byte-aligned, not final), so the tail's blocks, compressed once on their own
 * (keptPart: they refer back only within themselves), continue the same deflate stream. The trailer
 * carries the CRC-32 and length of the whole. An answer with a fresh head (a time) and a large body
 * that changes rarely is then compressed per request for the price of its head.
 */
export function gzipWithKeptTail(head: Buffer, tail: KeptPart): Buffer[] {
  const headBlocks = deflateRawSync(head, { level: 6, finishFlush: constants.Z_SYNC_FLUSH });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(tail.bytes, crc32(head)) >>> 0, 0);
  trailer.writeUInt32LE((head.length + tail.bytes.length) % 2 ** 32, 4);
  return [GZIP_HEADER, headBlocks, tail.deflated, trailer];
}

/**
 * Whether an Accept-Encoding header (RFC 9110 §12.5.3) accepts gzip: `gzip` (or `x-gzip`, or `*`
 * when gzip is not named) with a weight above 0. No header: no (identity). Never on a Node.js
 * without `zlib.crc32` (before 22.2), which the trailer needs: those clients get identity.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined || typeof crc32 !== "function") return false;
  let star: boolean | undefined;
  for (const item of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [name = "", ...params] = item.split(";").map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weighted = q === undefined || Number(q.slice(2)) > 0;
    if (name === "gzip" || name === "x-gzip") return weighted;
    if (name === "*") star = weighted;
  }
  return star ?? false;
}
