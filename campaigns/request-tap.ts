import { createServer, request, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/** One request as it passed the tap. */
export interface TappedRequest {
  method: string;
  path: string;
  /** When it arrived at the tap, before it was forwarded (ms since the epoch). */
  at: number;
}

/** A forwarder that notes every request it passes on. */
export interface RequestTap {
  /** The target's origin through the tap (`http://127.0.0.1:PORT`). */
  url: string;
  requests: TappedRequest[];
  close(): Promise<void>;
}

/**
 * Forwards every request to `target` (an origin) unchanged and notes when it arrived: what one
 * process sent and when, where several share a service (the emulator serves two applies alike).
 */
export async function startRequestTap(target: string): Promise<RequestTap> {
  const upstream = new URL(target);
  const requests: TappedRequest[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? "GET", path: req.url ?? "/", at: Date.now() });
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => req.socket.destroy());
    req.pipe(out);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
