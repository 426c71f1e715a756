import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** The storage faults of one run, each decided by its generator. */
export interface StorageFaults {
  /** Share of requests answered 500 or 503 (ServerBusy), as Blob Storage does under load. */
  errorRate: number;
  /** Share of requests held past the client's timeout, then dropped. */
  timeoutRate: number;
  /** Share of lease renewals refused (409 LeaseIdMismatchWithLeaseOperation): the holder loses its lock. */
  renewalRefusedRate: number;
  /** The store is down (connections refused) from `at` for `ms`, in ms after the proxy starts; absent: never. */
  down?: { at: number; ms: number };
  /** How long a held request is held, in ms (longer than the client's try timeout). */
  holdMs: number;
}

/** A proxy in front of Azurite that injects storage faults, and counts them. */
export interface StorageFaultProxy {
  /** The account URL through the proxy (`http://127.0.0.1:PORT/devstoreaccount1`). */
  accountUrl: string;
  injected: { errors: number; timeouts: number; renewalsRefused: number; refusedWhileDown: number; heldWhileSilent: number };
  /**
   * Switches "accept and hold" on or off: while on, the store stops answering without refusing
   * anything (a partition, a hung proxy, a paused Azurite): connections are accepted, requests read
   * and swallowed, and nothing is answered, not even what Azurite answers to a request forwarded
   * before. Switched off, it answers again; the requests it held are never answered (their
   * connections are closed).
   */
  silence(on: boolean): void;
  close(): Promise<void>;
}

/**
 * Forwards every request to Azurite unchanged (Shared Key signs the path and headers, not the host),
 * except those its faults pick: a 500/503 with Blob Storage's error body, a request held until the
 * client gives up, a lease renewal refused, every connection refused while the store is down, and
 * (switched by `silence`) every request accepted and never answered.
 */
export async function startStorageFaultProxy(target: string, faults: StorageFaults, rand: () => number): Promise<StorageFaultProxy> {
  const upstream = new URL(target);
  const started = Date.now();
  const injected = { errors: 0, timeouts: 0, renewalsRefused: 0, refusedWhileDown: 0, heldWhileSilent: 0 };
  const sockets = new Set<Socket>();
  /** The connections of requests held while silent, closed when the silence ends. */
  const held = new Set<Socket>();
  let silent = false;
  const isDown = () => !!faults.down && Date.now() - started >= faults.down.at && Date.now() - started < faults.down.at + faults.down.ms;
  const server: Server = createServer((req, res) => void handle(req, res));
  server.on("connection", (s) => {
    if (isDown()) {
      injected.refusedWhileDown += 1;
      s.destroy();
      return;
    }
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    if (silent) return hold(req);
    if (isDown()) {
      injected.refusedWhileDown += 1;
      req.socket.destroy();
      return;
    }
    if (req.headers["x-ms-lease-action"] === "renew" && rand() < faults.renewalRefusedRate) {
      injected.renewalsRefused += 1;
      return storageError(res, 409, "LeaseIdMismatchWithLeaseOperation", "The lease ID specified did not match the lease ID for the blob.");
    }
    const r = rand();
    if (r < faults.errorRate) {
      injected.errors += 1;
      return rand() < 0.5
        ? storageError(res, 503, "ServerBusy", "The server is currently unable to receive requests. Please retry your request.")
        : storageError(res, 500, "InternalError", "The server encountered an internal error. Please retry the request.");
    }
    if (r < faults.errorRate + faults.timeoutRate) {
      injected.timeouts += 1;
      setTimeout(() => req.socket.destroy(), faults.holdMs).unref();
      return;
    }
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (silent) {
          answer.resume();
          return hold(req);
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => req.socket.destroy());
    out.end(body);
  }

  function hold(req: IncomingMessage): void {
    injected.heldWhileSilent += 1;
    held.add(req.socket);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    accountUrl: `http://127.0.0.1:${port}${upstream.pathname}`,
    injected,
    silence(on) {
      silent = on;
      if (on) return;
      for (const s of held) s.destroy();
      held.clear();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

function storageError(res: ServerResponse, status: number, code: string, message: string): void {
  const body = `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, { "content-type": "application/xml", "x-ms-error-code": code, "content-length": Buffer.byteLength(body) });
  res.end(body);
}
