import { setTimeout as sleep } from "node:timers/promises";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { AccessTokens } from "./kit/access-tokens";
import { armRoute } from "./kit/arm-conventions";
import { ArmThrottle, resolveThrottling, type ThrottlingInput } from "./kit/arm-throttling";
import { EmulatorApp, type EmulatorReply, type EmulatorRequest } from "./kit/emulator-app";
import { FaultInjector, NO_FAULTS, type FaultConfig } from "./fault-injector";
import type { EmulatorErrorKind, EmulatorSettings, LocalService, ServiceContext } from "./kit/local-service";
import Ajv, { type ValidateFunction } from "ajv";
import { completeFaults, faultConfigSchema, settingsSchema, type SeedDocument } from "./seed";
import { StateStore, type PersistedState } from "./state-store";
import { redactUrl } from "../platform/http/redaction";
import { LOCAL_SERVICES } from "./services";

export interface EmulatorOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  seed?: SeedDocument;
  /** Directory to persist state in; state found there wins over the seed. */
  stateDir?: string;
  /** Overrides of the seed's `emulator` section (`throttling` as the seed key says it, or resolved settings). */
  settings?: Partial<Omit<EmulatorSettings, "throttling">> & { throttling?: ThrottlingInput | EmulatorSettings["throttling"] };
  /** Overrides of the seed's `faults` section. */
  faults?: Partial<FaultConfig>;
  services?: readonly LocalService[];
  /** Where unexpected handler errors are reported. Default stderr. */
  onError?: (line: string) => void;
}

export interface RunningEmulator {
  /** `http://host:port` */
  url: string;
  port: number;
  settings: EmulatorSettings;
  faults: FaultInjector;
  store: StateStore;
  stats: RequestStats;
  tokens: AccessTokens;
  /** Resource Manager's throttling (on when `settings.throttling` is set). */
  throttle: ArmThrottle;
  /** The emulator's clock: real time plus the offset set through the admin API. */
  now(): number;
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

export interface RequestStats {
  total: number;
  /** Requests by `METHOD /route/pattern`. */
  byRoute: Record<string, number>;
}

const JSON_TYPE = "application/json; charset=utf-8";
/** Where the clock offset lives in the state, for the journal. */
const CLOCK_PATH = ["emulator", "clockOffsetMs"] as const;

/** Starts the emulator: every local service on one port, with ARM's conventions, faults and persistence. */
export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const services = opts.services ?? LOCAL_SERVICES;
  const seed = opts.seed ?? {};
  if (opts.stateDir) StateStore.sweep(opts.stateDir);
  const persisted = opts.stateDir ? StateStore.load(opts.stateDir) : undefined;
  const state: PersistedState = persisted ?? { version: 1, emulator: { tokenKey: "", clockOffsetMs: 0 }, services: {} };
  const tokens = AccessTokens.fromKey(state.emulator.tokenKey || undefined);
  state.emulator.tokenKey = tokens.keyHex;
  for (const s of services) {
    if (!(s.name in state.services)) state.services[s.name] = s.initialState(seed[s.name]);
  }
  const store = new StateStore(state, opts.stateDir);
  // A fresh snapshot at start: the seed's services, or the loaded state with its journal folded in.
  store.changed();

  const settings: EmulatorSettings = {
    pageSize: opts.settings?.pageSize ?? seed.emulator?.pageSize ?? 100,
    tokenTtlSeconds: opts.settings?.tokenTtlSeconds ?? seed.emulator?.tokenTtlSeconds ?? 3600,
    throttling: resolveThrottling((opts.settings?.throttling ?? seed.emulator?.throttling) as ThrottlingInput | undefined),
  };
  const throttle = new ArmThrottle(() => settings.throttling);
  const faults = new FaultInjector(completeFaults({ ...seed.faults, ...stripUndefined(opts.faults ?? {}) }, NO_FAULTS));
  const stats: RequestStats = { total: 0, byRoute: {} };
  const now = () => Date.now() + state.emulator.clockOffsetMs;
  const app = new EmulatorApp();
  const report = opts.onError ?? ((line: string) => process.stderr.write(`${line}\n`));

  for (const s of services) {
    const ctx: ServiceContext<unknown> = {
      state: () => state.services[s.name],
      changed: (...path) => store.changed(["services", s.name, ...path]),
      tokens,
      settings,
      app,
      arm: (method, path, apiVersions, handler) => app.route(method, path, armRoute(handler, { apiVersions, tokens, throttle })),
    };
    s.mount(ctx);
  }

  const admin = adminRoutes({ faults, stats, settings, state, store, throttle });

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      // The URL is redacted: a query may carry a key (the geocoding service's api_key).
      report(
        `emulator: ${req.method} ${redactUrl(`http://emulator${req.url ?? "/"}`).slice("http://emulator".length)}: ${(e as Error).stack ?? String(e)}`,
      );
      if (!res.headersSent)
        send(
          res,
          { status: 500, body: { error: { code: "InternalServerError", message: "The emulator failed to handle the request." } } },
          ["x-ms-request-id", randomUUID()],
        );
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 15_000;

  let baseUrl = "";
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? "/";
    const q = rawUrl.indexOf("?");
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const method = req.method ?? "GET";
    // Headers of every answer, as a flat list for writeHead: no per-header setHeader calls.
    const base = ["x-ms-request-id", randomUUID()];
    const clientRequestId = req.headers["x-ms-client-request-id"];
    if (typeof clientRequestId === "string") base.push("x-ms-client-request-id", clientRequestId);

    if (path.startsWith("/_emulator/")) {
      const body = await readBody(req);
      return send(res, admin(method, path, parseJson(body)), base);
    }

    stats.total += 1;
    const found = app.find(method, path);
    const routeKey = `${method} ${found ? found.pattern : "(unrouted)"}`;
    stats.byRoute[routeKey] = (stats.byRoute[routeKey] ?? 0) + 1;

    const decision = faults.decide(method, path);
    const latency = faults.settings.latencyMs + (decision.kind === "delay" ? decision.ms : 0);
    if (latency > 0) await sleep(latency);
    if (decision.kind === "drop") {
      req.socket.destroy();
      return;
    }
    if (decision.kind === "status") {
      const headers: Record<string, string> = {};
      if (decision.retryAfterMs !== undefined) {
        headers["retry-after"] = String(Math.ceil(decision.retryAfterMs / 1000));
        headers["retry-after-ms"] = String(decision.retryAfterMs);
      }
      return send(
        res,
        serviceErrorReply(services, path, decision.status, "fault", headers) ?? faultReply(path, decision.status, headers),
        base,
      );
    }

    // A streaming route reads the body itself; every other route gets it whole (a GET without a body is not read).
    const rawBody = found?.streamBody || !hasBody(req) ? NO_BODY : await readBody(req);
    if (!found) {
      const status = app.hasPath(path) ? 405 : 404;
      const own = serviceErrorReply(services, path, status, "no-route");
      if (own) return send(res, own, base);
      return send(
        res,
        {
          status,
          body: {
            error: { code: status === 405 ? "MethodNotAllowed" : "NotFound", message: `The emulator has no route for ${method} ${path}.` },
          },
        },
        base,
      );
    }
    const contentType = String(req.headers["content-type"] ?? "");
    let body: unknown;
    if (rawBody.length > 0 && contentType.includes("json")) {
      body = parseJson(rawBody);
      if (body === INVALID) {
        const own = serviceErrorReply(services, path, 400, "invalid-body");
        if (own) return send(res, own, base);
        return send(
          res,
          {
            status: 400,
            body: {
              error: {
                code: "InvalidRequestContent",
                message: "The request content was invalid and could not be deserialized: the body is not valid JSON.",
              },
            },
          },
          base,
        );
      }
    }
    // The client may go away before the reply is sent: handlers with long work listen to `signal`,
    // made on first use (most handlers answer at once and never look at it).
    let gone: AbortController | undefined;
    const request: EmulatorRequest = {
      method,
      path,
      params: found.params,
      query: new URLSearchParams(q < 0 ? "" : rawUrl.slice(q + 1)),
      headers: req.headers,
      rawBody,
      bodyStream: found.streamBody ? req : undefined,
      get signal() {
        if (!gone) {
          const c = (gone = new AbortController());
          if (res.closed && !res.writableFinished) c.abort();
          else
            res.once("close", () => {
              if (!res.writableFinished) c.abort();
            });
        }
        return gone.signal;
      },
      body,
      baseUrl,
      now: now(),
      ...(decision.kind === "scan" ? { fault: { scan: decision.scan } } : {}),
      remoteAddress: req.socket.remoteAddress,
    };
    const reply = found.handler(request);
    send(res, reply instanceof Promise ? await reply : reply, base, decision.kind === "truncate");
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  baseUrl = `http://${host}:${addr.port}`;

  return {
    url: baseUrl,
    port: addr.port,
    settings,
    faults,
    store,
    stats,
    tokens,
    throttle,
    now,
    advanceClock(ms) {
      state.emulator.clockOffsetMs += ms;
      store.changed(CLOCK_PATH);
    },
    close: () =>
      new Promise<void>((resolve) => {
        store.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The emulator's own answer in the error form of the service that owns the path, when that service gives one. */
function serviceErrorReply(
  services: readonly LocalService[],
  path: string,
  status: number,
  kind: EmulatorErrorKind,
  headers: Record<string, string> = {},
): EmulatorReply | undefined {
  for (const s of services) {
    const reply = s.errorReply?.(path, status, kind);
    if (reply) return { ...reply, headers: { ...headers, ...reply.headers } };
  }
  return undefined;
}

/** An injected fault in the shape the addressed service uses for errors. */
function faultReply(path: string, status: number, headers: Record<string, string>): EmulatorReply {
  const lower = path.toLowerCase();
  if (lower.startsWith("/metadata/identity")) {
    return {
      status,
      headers,
      body: { error: status === 429 ? "too_many_requests" : "service_unavailable", error_description: `Injected fault: HTTP ${status}` },
    };
  }
  if (lower.startsWith("/metadata/")) return { status, headers, body: { error: `Injected fault: HTTP ${status}` } };
  const code = status === 429 ? "TooManyRequests" : status === 410 ? "Gone" : status >= 500 ? "ServiceUnavailable" : "InjectedFault";
  return { status, headers, body: { error: { code, message: `Injected fault: HTTP ${status}. Retry the request.` } } };
}

function adminRoutes(d: {
  faults: FaultInjector;
  stats: RequestStats;
  settings: EmulatorSettings;
  state: PersistedState;
  store: StateStore;
  throttle: ArmThrottle;
}) {
  return (method: string, path: string, body: unknown): EmulatorReply => {
    const b = (body && body !== INVALID && typeof body === "object" ? body : {}) as Record<string, unknown>;
    switch (`${method} ${path}`) {
      case "GET /_emulator/stats":
        return {
          status: 200,
          body: { ...d.stats, faultsInjected: d.faults.injectedCount, throttled: d.throttle.throttled, cpuMicros: cpuMicros() },
        };
      case "POST /_emulator/stats/reset":
        d.stats.total = 0;
        for (const k of Object.keys(d.stats.byRoute)) delete d.stats.byRoute[k];
        d.faults.resetInjectedCount();
        d.throttle.throttled = 0;
        return { status: 204 };
      case "GET /_emulator/faults":
        return { status: 200, body: d.faults.settings };
      case "PUT /_emulator/faults": {
        const problem = adminBodyProblem(validateFaults, body);
        if (problem) return { status: 400, body: { error: { code: "InvalidFaults", message: problem } } };
        d.faults.configure(completeFaults(b as Partial<FaultConfig>, NO_FAULTS));
        return { status: 200, body: d.faults.settings };
      }
      case "GET /_emulator/settings":
        return { status: 200, body: d.settings };
      case "PUT /_emulator/settings": {
        const problem = adminBodyProblem(validateSettings, body);
        if (problem) return { status: 400, body: { error: { code: "InvalidSettings", message: problem } } };
        if (typeof b.pageSize === "number") d.settings.pageSize = b.pageSize;
        if (typeof b.tokenTtlSeconds === "number") d.settings.tokenTtlSeconds = b.tokenTtlSeconds;
        if (b.throttling !== undefined) d.settings.throttling = resolveThrottling(b.throttling as ThrottlingInput);
        return { status: 200, body: d.settings };
      }
      case "POST /_emulator/clock":
        if (typeof b.advanceMs === "number") d.state.emulator.clockOffsetMs += b.advanceMs;
        d.store.changed(CLOCK_PATH);
        return { status: 200, body: { offsetMs: d.state.emulator.clockOffsetMs } };
      default:
        return { status: 404, body: { error: { code: "NotFound", message: `no admin route ${method} ${path}` } } };
    }
  };
}

const INVALID = Symbol("invalid-json");

const adminAjv = new Ajv({ allErrors: false, strict: false });
const validateFaults = adminAjv.compile(faultConfigSchema);
const validateSettings = adminAjv.compile(settingsSchema);

/** Why an admin request body is unacceptable, in one line, or undefined when it is fine. */
function adminBodyProblem(validate: ValidateFunction, body: unknown): string | undefined {
  if (body === INVALID) return "the body is not valid JSON";
  if (validate(body ?? {})) return undefined;
  const e = validate.errors![0];
  return `${e.instancePath || "body"}${e.keyword === "additionalProperties" ? `: unknown key "${String(e.params.additionalProperty)}"` : ` ${e.message ?? e.keyword}`}`;
}

function parseJson(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch {
    return INVALID;
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

/**
 * Writes a reply with one writeHead (a flat header list: `base` first, then the reply's own).
 * `truncate` (an injected fault) sends the headers with the full length, then half the body, then
 * closes the connection: an answer cut off on its way, as a dying proxy or a reset leaves it. The
 * request itself was handled (a PUT took effect), as it would have been.
 */
function send(res: ServerResponse, reply: EmulatorReply, base: string[], truncate = false): void {
  const headers = base;
  let hasType = false;
  if (reply.headers) {
    for (const k in reply.headers) {
      headers.push(k, reply.headers[k]);
      if (k === "content-type") hasType = true;
    }
  }
  if (reply.body instanceof Readable) {
    // Streamed replies (a large file): piped with backpressure; a failure mid-way cuts the connection,
    // which the client sees as a truncated response rather than a wrong one.
    const body = reply.body;
    if (res.destroyed) {
      body.destroy();
      return;
    }
    res.writeHead(reply.status, headers);
    body.once("error", () => res.destroy());
    res.once("close", () => body.destroy());
    body.pipe(res);
    return;
  }
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

const NO_BODY = Buffer.alloc(0);

/** CPU time this process has used, in microseconds (user + system): benches divide it by requests served. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Whether a request carries a body (a GET without Content-Length or Transfer-Encoding has none, and is not read). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
