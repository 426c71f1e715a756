import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { AdminApi } from "./admin-api";
import { injectedStatusReply, invalidBodyReply, noRouteReply } from "./emulator-errors";
import type { FaultDecision, FaultInjector } from "./fault-injector";
import { hasBody, INVALID, NO_BODY, parseJson, readBody } from "./http-body";
import type { EmulatorApp, EmulatorRequest } from "./kit/emulator-app";
import type { LocalService } from "./kit/local-service";
import { send } from "./reply-writer";
import { countAnswer, countRequest, type RequestStats } from "./request-stats";

/** What answering a request takes: the router, the services (for their error forms), faults, stats, the admin API and the clock. */
export interface DispatchParts {
  app: EmulatorApp;
  services: readonly LocalService[];
  faults: FaultInjector;
  stats: RequestStats;
  admin: AdminApi;
  now: () => number;
  /** `http://host:port` of this emulator, known once it listens. */
  baseUrl: () => string;
}

/**
 * Answers one HTTP request: the admin API under `/_emulator/`; otherwise the request is counted,
 * the fault injector's decision is acted out (latency, a dropped connection, a status), and the
 * routed handler answers, or the emulator itself when no route serves the path or the JSON body
 * does not parse.
 */
export async function dispatch(parts: DispatchParts, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const rawUrl = req.url ?? "/";
  const q = rawUrl.indexOf("?");
  const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
  const method = req.method ?? "GET";
  const base = baseHeaders(req);
  if (path.startsWith("/_emulator/")) return send(res, await parts.admin(method, path, parseJson(await readBody(req))), base);

  const found = parts.app.find(method, path);
  const routeKey = countRequest(parts.stats, method, found?.pattern);
  const decision = parts.faults.decide(method, path);
  const latency = parts.faults.settings.latencyMs + (decision.kind === "delay" ? decision.ms : 0);
  if (latency > 0) await sleep(latency);
  if (decision.kind === "drop") {
    req.socket.destroy();
    return;
  }
  if (decision.kind === "status") {
    const injected = injectedStatusReply(parts.services, path, decision);
    countAnswer(parts.stats, routeKey, injected.status);
    return send(res, injected, base);
  }

  // A streaming route reads the body itself; every other route gets it whole (a GET without a body is not read).
  const rawBody = found?.streamBody || !hasBody(req) ? NO_BODY : await readBody(req);
  if (!found) return send(res, noRouteReply(parts.services, method, path, parts.app.hasPath(path)), base);
  const body = rawBody.length > 0 && String(req.headers["content-type"] ?? "").includes("json") ? parseJson(rawBody) : undefined;
  if (body === INVALID) return send(res, invalidBodyReply(parts.services, path), base);
  let gone: AbortSignal | undefined;
  const request: EmulatorRequest = {
    method,
    path,
    params: found.params,
    query: new URLSearchParams(q < 0 ? "" : rawUrl.slice(q + 1)),
    headers: req.headers,
    rawBody,
    bodyStream: found.streamBody ? req : undefined,
    get signal() {
      return (gone ??= clientGone(res));
    },
    body,
    baseUrl: parts.baseUrl(),
    now: parts.now(),
    ...scanFault(decision),
    remoteAddress: req.socket.remoteAddress,
  };
  const reply = found.handler(request);
  const answer = reply instanceof Promise ? await reply : reply;
  countAnswer(parts.stats, routeKey, answer.status);
  send(res, answer, base, decision.kind === "truncate");
}

/** Headers of every answer, as a flat list for writeHead: no per-header setHeader calls. */
function baseHeaders(req: IncomingMessage): string[] {
  const base = ["x-ms-request-id", randomUUID()];
  const clientRequestId = req.headers["x-ms-client-request-id"];
  if (typeof clientRequestId === "string") base.push("x-ms-client-request-id", clientRequestId);
  return base;
}

/** The scan fault a service must act out itself, as the request's `fault`. */
function scanFault(decision: FaultDecision): Pick<EmulatorRequest, "fault"> {
  return decision.kind === "scan" ? { fault: { scan: decision.scan } } : {};
}

/**
 * Aborted when the client goes away before the reply has been sent: handlers with long work listen
 * to it. The request makes it on first use (most handlers answer at once and never look at it).
 */
function clientGone(res: ServerResponse): AbortSignal {
  const c = new AbortController();
  if (res.closed && !res.writableFinished) c.abort();
  else
    res.once("close", () => {
      if (!res.writableFinished) c.abort();
    });
  return c.signal;
}
