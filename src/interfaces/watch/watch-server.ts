import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AZURE_EVENTS_PATH, type AzureEventsRoute } from "./server/azure-events-route";
import { StatusAccess } from "./server/status-access";
import { admit, serveStatus } from "./server/status-routes";
import { StatusStream } from "./server/status-stream";
import { StatusBoard } from "./status/status-board";
import type { Readiness } from "../../usecases/watch-ports";

export type { Readiness };

export interface WatchServerOptions {
  host: string;
  port: number;
  readiness: () => Readiness;
  metrics: () => Promise<{ contentType: string; body: string }>;
  /** The statuses the page (`/`, `/stacks/{name}`) and the API (`/api/v1/…`) show. Default: an empty board. */
  status?: StatusBoard;
  /** This replica's role and the leader, for `/api/v1/replica`. Default: a lone replica that leads. */
  replica?: () => Promise<unknown>;
  /**
   * Required on any address that is not loopback (the start fails without it); when set, every
   * request but /healthz and /readyz must carry it (Bearer, Basic password, or the cookie of `/?token=`).
   * At least 16 characters.
   */
  statusToken?: string;
  /** Event Grid's deliveries at `POST /events/azure` (watch --events); absent: the path is not served. */
  events?: AzureEventsRoute;
}

/** Parses `--listen HOST:PORT` (`:9090` listens on 127.0.0.1; `[::1]:9090` for IPv6). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`expected HOST:PORT such as 127.0.0.1:9090 or 0.0.0.0:9090, got "${text}"`);
  return { host: m[1] ?? (m[2] || "127.0.0.1"), port };
}

/**
 * The watcher's HTTP endpoints: /healthz (alive), /readyz (see Readiness), /metrics (Prometheus
 * text), the status page and the status API (see serveStatus). Loopback by default; on another
 * address `statusToken` is required, and checked on every request but the health endpoints.
 */
export async function startWatchServer(opts: WatchServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const access = new StatusAccess(opts.host, opts.statusToken);
  const board = opts.status ?? new StatusBoard();
  const stream = new StatusStream(board);
  const server: Server = createServer((req, res) => {
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const path = q < 0 ? target : target.slice(0, q);
    // Event Grid authenticates with its own secret (not the status token): its deliveries are no reads of the status.
    if (path === AZURE_EVENTS_PATH && opts.events) {
      opts.events.serve(req, res, new URLSearchParams(q < 0 ? "" : target.slice(q + 1)));
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    if (path === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok\n");
    } else if (path === "/readyz") {
      const r = opts.readiness();
      res.writeHead(r.ready ? 200 : 503, { "content-type": "text/plain" }).end(`${r.ready ? "ready" : "not ready"}: ${r.reason}\n`);
    } else if (path === "/metrics") {
      if (!admit(access, req, res, false)) return;
      opts.metrics().then(
        (m) => res.writeHead(200, { "content-type": m.contentType }).end(m.body),
        (e: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${(e as Error).message}\n`),
      );
    } else if (path === "/api/v1/replica") {
      if (!admit(access, req, res, false)) return;
      (opts.replica ?? (async () => ({ role: "leader" })))().then(
        (v) => res.writeHead(200, { "content-type": "application/json" }).end(`${JSON.stringify(v)}\n`),
        (e: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`replica failed: ${(e as Error).message}\n`),
      );
    } else if (!serveStatus({ board, access, stream }, req, res, path, new URLSearchParams(q < 0 ? "" : target.slice(q + 1)))) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: try /, /api/v1/stacks, /healthz, /readyz or /metrics\n");
    }
  });
  // Scrapers keep connections open; they must not hold the process at shutdown.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) =>
      reject(new Error(`cannot listen on ${opts.host}:${opts.port}: ${e.code === "EADDRINUSE" ? "the address is in use" : e.message}`)),
    );
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${host}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        stream.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
