import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What /readyz says. */
export interface Readiness {
  ready: boolean;
  reason: string;
}

export interface WatchServerOptions {
  host: string;
  port: number;
  readiness: () => Readiness;
  metrics: () => Promise<{ contentType: string; body: string }>;
}

/** Parses `--listen HOST:PORT` (`:9090` listens on 127.0.0.1; `[::1]:9090` for IPv6). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`expected HOST:PORT such as 127.0.0.1:9090 or 0.0.0.0:9090, got "${text}"`);
  return { host: m[1] ?? (m[2] || "127.0.0.1"), port };
}

/** The watcher's HTTP endpoints: /healthz (alive), /readyz (see Readiness), /metrics (Prometheus text). */
export async function startWatchServer(opts: WatchServerOptions): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
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
      opts.metrics().then(
        (m) => res.writeHead(200, { "content-type": m.contentType }).end(m.body),
        (e: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics failed: ${(e as Error).message}\n`),
      );
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: try /healthz, /readyz or /metrics\n");
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
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
