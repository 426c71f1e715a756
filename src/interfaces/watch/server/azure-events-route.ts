import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readEventGridDelivery } from "../../../domain/changes/event-grid-changes";
import type { ChangeRecord } from "../../../domain/changes/change-record";
import { StackwardenError } from "../../../platform/errors/stackwarden-error";
import { hostHeaderIsLoopback, isLoopbackHost } from "./status-access";

/** Where Event Grid delivers: `POST /events/azure` (and CloudEvents' `OPTIONS` handshake). */
export const AZURE_EVENTS_PATH = "/events/azure";
/** The query parameter a delivery's shared secret travels in (the event subscription's endpoint URL carries it). */
export const EVENTS_SECRET_PARAMETER = "key";
/** The shortest shared secret accepted. */
export const MIN_EVENTS_SECRET_LENGTH = 16;
/** A delivery larger than this is refused with 413: Event Grid's batches are at most 1 MB. */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
/**
 * How much of an oversized body is read and thrown away after the 413, so that the sender reads the
 * answer on a connection that stays whole (a reset would make Event Grid retry for 24 hours); past
 * it the connection is closed: only a hostile sender gets that far.
 */
const MAX_DRAINED_BYTES = 64 * MAX_DELIVERY_BYTES;

export interface AzureEventsOptions {
  /** The listen host: off loopback a secret is required. */
  host: string;
  /** The shared secret deliveries carry in `?key=` (from the variable --events-secret-env names). */
  secret?: string;
  /**
   * Takes the changes of a delivery; returns how many were new, or undefined when this replica does
   * not lead (the delivery is then refused with 503, so Event Grid retries it, at the leader through
   * the load balancer, instead of it being acknowledged and lost).
   */
  accept: (records: readonly ChangeRecord[]) => number | undefined;
  log: (line: string) => void;
}

/**
 * Event Grid's webhook: deliveries of a subscription's system topic (`Microsoft.Resources.Resource*Success`)
 * and Key Vault's key events, in the Event Grid or the CloudEvents schema (event-grid-changes.ts).
 * Answers both handshakes: Event Grid's `SubscriptionValidationEvent` with `{"validationResponse": code}`,
 * and the CloudEvents webhook spec's abuse protection (`OPTIONS` with `WebHook-Request-Origin`,
 * answered with `WebHook-Allowed-Origin`). Authentication is a shared secret in the endpoint URL's
 * `key` parameter, compared in constant time; required off loopback (the start fails without it).
 * Without a secret (loopback only) the route takes no request a web page could send: any page open
 * in a browser on this machine can POST to 127.0.0.1, so a request whose Host header is not a
 * loopback name (DNS rebinding), that carries an `Origin` header (browsers add it to every
 * cross-origin POST) or that is not JSON (the content types a page may send without a preflight)
 * is refused. Entra bearer tokens are not checked here (see the README).
 */
export class AzureEventsRoute {
  private readonly digest?: Buffer;

  constructor(private readonly o: AzureEventsOptions) {
    if (o.secret !== undefined) {
      if (o.secret.length < MIN_EVENTS_SECRET_LENGTH || /\s/.test(o.secret))
        throw new StackwardenError(
          "SW_EVENTS_UNAUTHENTICATED",
          `the events secret must be at least ${MIN_EVENTS_SECRET_LENGTH} characters without spaces (e.g. \`openssl rand -hex 32\`)`,
        );
      this.digest = sha256(o.secret);
    } else if (!isLoopbackHost(o.host)) {
      throw new StackwardenError(
        "SW_EVENTS_UNAUTHENTICATED",
        `--events on ${o.host}, which is not a loopback address, needs a shared secret: --events-secret-env NAME (a variable of at least ${MIN_EVENTS_SECRET_LENGTH} characters), or listen on 127.0.0.1`,
      );
    }
  }

  /** Serves one request to AZURE_EVENTS_PATH. */
  serve(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void {
    if (!this.admitted(query)) {
      refuse(req, res, 401, `a delivery must carry the shared secret (?${EVENTS_SECRET_PARAMETER}=)`);
      return;
    }
    const refusal = this.digest ? undefined : browserRefusal(req);
    if (refusal) {
      refuse(req, res, refusal.status, refusal.reason);
      return;
    }
    if (req.method === "OPTIONS") {
      // CloudEvents 1.0 webhook spec, section 4.1: the origin asks, the receiver allows.
      const origin = req.headers["webhook-request-origin"];
      const headers: Record<string, string> = { allow: "POST, OPTIONS" };
      if (typeof origin === "string" && origin) headers["webhook-allowed-origin"] = origin;
      res.writeHead(200, headers).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST, OPTIONS", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    readBody(req).then(
      (text) =>
        text === undefined
          ? res.writeHead(413, { "content-type": "text/plain" }).end(`a delivery is at most ${MAX_DELIVERY_BYTES} bytes\n`)
          : this.deliver(text, res),
      (e: unknown) => {
        if (!res.headersSent)
          res.writeHead(400, { "content-type": "text/plain" }).end(`the delivery could not be read: ${(e as Error).message}\n`);
      },
    );
  }

  private deliver(text: string, res: ServerResponse): void {
    let delivery;
    try {
      delivery = readEventGridDelivery(JSON.parse(text));
    } catch (e) {
      res.writeHead(400, { "content-type": "text/plain" }).end(`not an Event Grid delivery: ${(e as Error).message}\n`);
      return;
    }
    if (delivery.validationCode !== undefined) {
      this.o.log(`events: answered Event Grid's subscription validation`);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ validationResponse: delivery.validationCode }));
      return;
    }
    const accepted = this.o.accept(delivery.records);
    if (accepted === undefined) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "10" }).end("this replica stands by: deliver to the leader\n");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ accepted, ignored: delivery.ignored }));
  }

  private admitted(query: URLSearchParams): boolean {
    if (!this.digest) return true;
    const offered = query.get(EVENTS_SECRET_PARAMETER);
    return offered !== null && timingSafeEqual(sha256(offered), this.digest);
  }
}

/** Hashed first, so the comparison takes the same time whatever the lengths. */
function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Why a request without the secret is refused, if it is: what a web page could have sent. */
function browserRefusal(req: IncomingMessage): { status: 403 | 415; reason: string } | undefined {
  if (!hostHeaderIsLoopback(req))
    return {
      status: 403,
      reason: "without a shared secret, deliveries are taken for a loopback host name only (127.0.0.1, localhost, [::1])",
    };
  if (req.headers.origin !== undefined)
    return { status: 403, reason: "a request from a web page (it carries Origin) is refused without the shared secret" };
  if (req.method === "POST" && !isJsonMediaType(req.headers["content-type"]))
    return {
      status: 415,
      reason: "a delivery is JSON (application/json, application/cloudevents+json or application/cloudevents-batch+json)",
    };
  return undefined;
}

/** application/json or a structured suffix of it (application/cloudevents+json), parameters aside. */
function isJsonMediaType(header: string | undefined): boolean {
  const type = header?.split(";")[0].trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
}

/** Answers a refusal at once and throws the body away (what is left of it after the answer). */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { "content-type": "text/plain" }).end(`${reason}\n`);
  drain(req, 0);
}

/**
 * The body as text, or undefined when it is larger than a delivery may be (declared so, or found so
 * while reading): the caller answers 413 at once, and the rest of the body is read and thrown away.
 */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (declared > MAX_DELIVERY_BYTES) {
      resolve(undefined);
      drain(req, 0);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_DELIVERY_BYTES) {
        chunks.push(c);
        return;
      }
      req.off("data", collect);
      chunks.length = 0;
      resolve(undefined);
      drain(req, size);
    };
    req.on("data", collect);
    req.on("end", () => {
      if (size <= MAX_DELIVERY_BYTES) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
  });
}

/** Reads and drops the rest of a body, so the connection stays whole for the answer; past MAX_DRAINED_BYTES it is closed. */
function drain(req: IncomingMessage, alreadyRead: number): void {
  let size = alreadyRead;
  req.on("data", (c: Buffer) => {
    size += c.length;
    if (size > MAX_DRAINED_BYTES) req.destroy();
  });
  req.on("error", () => {});
  req.resume();
}
