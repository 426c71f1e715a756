import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { EmulatorReply } from "./kit/emulator-app";

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * Writes a reply with one writeHead (a flat header list: `base` first, then the reply's own).
 * `truncate` (an injected fault) sends the headers with the full length, then half the body, then
 * closes the connection: an answer cut off on its way, as a dying proxy or a reset leaves it. The
 * request itself was handled (a PUT took effect), as it would have been.
 */
export function send(res: ServerResponse, reply: EmulatorReply, base: string[], truncate = false): void {
  const headers = base;
  let hasType = false;
  if (reply.headers) {
    for (const k in reply.headers) {
      headers.push(k, reply.headers[k]);
      if (k === "content-type") hasType = true;
    }
  }
  if (reply.body instanceof Readable) return pipeReply(res, reply.status, headers, reply.body);
  let payload: string | Buffer | undefined;
  if (reply.body === undefined) payload = undefined;
  else if (Buffer.isBuffer(reply.body) || typeof reply.body === "string") payload = reply.body;
  else {
    payload = JSON.stringify(reply.body);
    if (!hasType) headers.push("content-type", JSON_TYPE);
  }
  if (payload !== undefined) headers.push("content-length", String(Buffer.byteLength(payload)));
  res.writeHead(reply.status, headers);
  if (!truncate) {
    res.end(payload);
    return;
  }
  const bytes = payload === undefined ? Buffer.alloc(0) : Buffer.from(payload);
  res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
}

/**
 * Streamed replies (a large file): piped with backpressure; a failure mid-way cuts the connection,
 * which the client sees as a truncated response rather than a wrong one.
 */
function pipeReply(res: ServerResponse, status: number, headers: string[], body: Readable): void {
  if (res.destroyed) {
    body.destroy();
    return;
  }
  res.writeHead(status, headers);
  body.once("error", () => res.destroy());
  res.once("close", () => body.destroy());
  body.pipe(res);
}
