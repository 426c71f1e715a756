import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";

/** The sha-256 (hex) and size of a file, read as a stream (any size, flat memory). */
export async function sha256File(path: string): Promise<{ sha256: string; size: number }> {
  const h = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    h.update(chunk);
    size += chunk.length;
  }
  return { sha256: h.digest("hex"), size };
}
