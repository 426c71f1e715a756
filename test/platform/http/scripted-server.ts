import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the scripted server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Answers the n-th request (0-based, counted over the server's life). */
export type Script = (req: SeenRequest, res: ServerResponse, n: number) => void;

export interface ScriptedServer {
  url: string;
  seen: SeenRequest[];
  /** Replaces the script and forgets the requests seen so far. */
  script(s: Script): void;
  close(): Promise<void>;
}

/** A real node:http server on a free port whose answers each test scripts. */
export async function startScriptedServer(initial: Script = (_q, res) => json(res, 200, {})): Promise<ScriptedServer> {
  let script = initial;
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: SeenRequest = {
        method: req.method ?? "GET",
        url: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(r);
      script(r, res, seen.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script(s) {
      script = s;
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON reply with a content length, plus any headers given (a request id, a retry delay). */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** Sends raw text with the given content type. */
export function text(res: ServerResponse, status: number, body: string, contentType: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}
