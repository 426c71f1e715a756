import type { IncomingHttpHeaders } from "node:http";
import type { Readable } from "node:stream";
import FindMyWay from "find-my-way";
import type { PublishedOperation } from "./published-operations";

export type Method = "GET" | "PUT" | "POST" | "DELETE" | "PATCH" | "HEAD";

/** A request as a local implementation sees it: parsed, with its route parameters. */
export interface EmulatorRequest {
  method: string;
  /** Path without the query string, as sent (original case). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The raw body bytes (empty for none, and for routes registered with `streamBody`). */
  rawBody: Buffer;
  /**
   * Routes registered with `streamBody` only: the request body as it arrives, unread. The handler
   * must consume it (or answer; the server then discards the rest), so a large upload never sits in memory.
   */
  bodyStream?: Readable;
  /** Aborted when the client goes away before the reply has been sent (so work for it can stop). */
  signal: AbortSignal;
  /** The body parsed as JSON when the request said it was JSON, else undefined. */
  body: unknown;
  /** `http://host:port` of this emulator, for links it hands out (nextLink, operation URLs). */
  baseUrl: string;
  /** The emulator's clock, in ms (real time plus any offset set through the admin API). */
  now: number;
  /** A fault the injector chose for this request that the service itself must act out (a scan that stalls or fails). */
  fault?: { scan?: { outcome: "stall" | "fail"; failAtPercent?: number; stallMs?: number } };
  /** The client's IP address, as the socket reports it. */
  remoteAddress?: string;
}

/**
 * What a handler answers; the app serializes `body` as JSON unless it is a Buffer or string, and
 * pipes it when it is a `Readable` (set `content-length` in `headers` when it is known).
 */
export interface EmulatorReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** How a route wants its request. */
export interface RouteOptions {
  /** Hand the handler the request stream (`bodyStream`) instead of reading the body into `rawBody`. */
  streamBody?: boolean;
  /** The published ARM operation the route serves (its api-versions come from it). */
  operation?: PublishedOperation;
}

/** A registered route, as `EmulatorApp.routes()` lists it. */
export interface RouteInfo {
  method: Method;
  /** The registered path, `:name` parameters. */
  path: string;
  operation?: PublishedOperation;
}

export type Handler = (req: EmulatorRequest) => EmulatorReply | Promise<EmulatorReply>;

interface RouteStore {
  handler: Handler;
  streamBody: boolean;
  /** The registered path, `{name}` style, for request statistics. */
  pattern: string;
}

/** The router every local implementation mounts its routes on. Paths match case-insensitively, as ARM does. */
export class EmulatorApp {
  private readonly router = FindMyWay({ caseSensitive: false, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true });
  private readonly registered: RouteInfo[] = [];

  /** Registers a handler; `path` uses `:name` parameters. */
  route(method: Method, path: string, handler: Handler, options: RouteOptions = {}): void {
    const pattern = path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    this.router.on(method, path, () => undefined, { handler, pattern, streamBody: options.streamBody === true } satisfies RouteStore);
    this.registered.push({ method, path, ...(options.operation ? { operation: options.operation } : {}) });
  }

  /** Every registered route, in registration order (what a test walks to check each operation's versions). */
  routes(): readonly RouteInfo[] {
    return this.registered;
  }

  /** Finds the handler and parameters for a request, or undefined. */
  find(
    method: string,
    path: string,
  ): { handler: Handler; params: Record<string, string>; pattern: string; streamBody: boolean } | undefined {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found) return undefined;
    const store = found.store as RouteStore;
    return { handler: store.handler, params: found.params as Record<string, string>, pattern: store.pattern, streamBody: store.streamBody };
  }

  /** Whether some method is routed at this path (for 405 versus 404). */
  hasPath(path: string): boolean {
    return (["GET", "PUT", "POST", "DELETE", "PATCH"] as const).some((m) => this.router.find(m, path));
  }
}
