import type { IncomingHttpHeaders } from "node:http";
import FindMyWay from "find-my-way";

export type Method = "GET" | "PUT" | "POST" | "DELETE" | "PATCH";

/** A request as a local implementation sees it: parsed, with its route parameters. */
export interface EmulatorRequest {
  method: string;
  /** Path without the query string, as sent (original case). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body bytes (empty for none). */
  rawBody: Buffer;
  /** The body parsed as JSON when the request said it was JSON, else undefined. */
  body: unknown;
  /** `http://host:port` of this emulator, for links it hands out (nextLink, operation URLs). */
  baseUrl: string;
  /** The emulator's clock, in ms (real time plus any offset set through the admin API). */
  now: number;
  /** A fault the injector chose for this request that the service itself must act out (a scan that stalls or fails). */
  fault?: { scan?: { outcome: "stall" | "fail"; failAtPercent?: number; stallMs?: number } };
}

/** What a handler answers; the app serializes `body` as JSON unless it is a Buffer or string. */
export interface EmulatorReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (req: EmulatorRequest) => EmulatorReply | Promise<EmulatorReply>;

interface RouteStore {
  handler: Handler;
  /** The registered path, `{name}` style, for request statistics. */
  pattern: string;
}

/** The router every local implementation mounts its routes on. Paths match case-insensitively, as ARM does. */
export class EmulatorApp {
  private readonly router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });

  /** Registers a handler; `path` uses `:name` parameters. */
  route(method: Method, path: string, handler: Handler): void {
    const pattern = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    this.router.on(method, path, () => undefined, { handler, pattern } satisfies RouteStore);
  }

  /** Finds the handler and parameters for a request, or undefined. */
  find(method: string, path: string): { handler: Handler; params: Record<string, string>; pattern: string } | undefined {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found) return undefined;
    const store = found.store as RouteStore;
    return { handler: store.handler, params: found.params as Record<string, string>, pattern: store.pattern };
  }

  /** Whether some method is routed at this path (for 405 versus 404). */
  hasPath(path: string): boolean {
    return (["GET", "PUT", "POST", "DELETE", "PATCH"] as const).some((m) => this.router.find(m, path));
  }
}
