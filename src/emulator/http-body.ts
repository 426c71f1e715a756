import type { IncomingMessage } from "node:http";

/** What `parseJson` gives for a body that is not JSON. */
export const INVALID = Symbol("invalid-json");

/** The body of a request that carries none (or whose route reads the stream itself). */
export const NO_BODY = Buffer.alloc(0);

/** Reads a request's whole body. */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/** The body parsed as JSON: undefined when empty, INVALID when it does not parse. */
export function parseJson(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return INVALID;
  }
}

/** Whether a request carries a body (a GET without Content-Length or Transfer-Encoding has none, and is not read). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}
