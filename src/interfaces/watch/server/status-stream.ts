import type { IncomingMessage, ServerResponse } from "node:http";
import type { StatusBoard, StatusChange } from "../status/status-board";

export interface StatusStreamOptions {
  /** Streams open at once; one more is answered 503. Default 64. */
  maxClients?: number;
  /** A comment line this often keeps proxies from closing an idle stream, in ms. Default 15 000 (15 s). */
  heartbeatMs?: number;
  /** A client that has this many bytes unread is dropped (it reconnects and catches up), in bytes. Default 1 MiB. */
  maxBufferedBytes?: number;
}

/**
 * `GET /api/v1/stream`: server-sent events of the board's changes. Each change is an event
 * `status` whose data is the stack's StackStatus (as `GET /api/v1/stacks/{name}` returns it), or
 * `removed` with `{ "name": … }`; the event id is the board's revision. A slow reader is dropped
 * rather than buffered without bound: EventSource reconnects, and the page refreshes on reconnect.
 */
export class StatusStream {
  private readonly clients = new Set<ServerResponse>();
  private readonly unsubscribe: () => void;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly maxClients: number;
  private readonly maxBuffered: number;

  constructor(board: StatusBoard, opts: StatusStreamOptions = {}) {
    this.maxClients = opts.maxClients ?? 64;
    this.maxBuffered = opts.maxBufferedBytes ?? 1024 * 1024;
    this.unsubscribe = board.subscribe((c) => this.broadcast(c));
    this.heartbeat = setInterval(() => this.send(": keep-alive\n\n"), opts.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  /** Streams open now. */
  get size(): number {
    return this.clients.size;
  }

  /** Answers a stream request; `headers` are the security headers every status response carries. */
  open(req: IncomingMessage, res: ServerResponse, headers: Record<string, string>): void {
    if (this.clients.size >= this.maxClients) {
      res
        .writeHead(503, { ...headers, "content-type": "application/json; charset=utf-8", "retry-after": "30" })
        .end(`${JSON.stringify({ error: { code: "TooManyStreams", message: `at most ${this.maxClients} streams at once` } })}\n`);
      return;
    }
    res.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
    res.write("retry: 2000\n\n");
    this.clients.add(res);
    const drop = () => this.clients.delete(res);
    req.on("close", drop);
    res.on("close", drop);
  }

  /** Ends every stream and stops listening to the board. */
  close(): void {
    clearInterval(this.heartbeat);
    this.unsubscribe();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private broadcast(c: StatusChange): void {
    if (this.clients.size === 0) return;
    const frame = c.current
      ? `event: status\nid: ${c.revision}\ndata: ${JSON.stringify(c.current)}\n\n`
      : `event: removed\nid: ${c.revision}\ndata: ${JSON.stringify({ name: c.name })}\n\n`;
    this.send(frame);
  }

  private send(frame: string): void {
    for (const res of this.clients) {
      if (res.writableLength > this.maxBuffered) {
        this.clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(frame);
    }
  }
}
