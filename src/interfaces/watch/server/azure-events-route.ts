import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readEventGridDelivery } from "../../../domain/changes/event-grid-changes";
import type { ChangeRecord } from "../../../domain/changes/change-record";
import { StackwardenError } from "../../../platform/errors/stackwarden-error";
import { isLoopbackHost } from "./status-access";

/** Where Event Grid delivers: `POST /events/azure` (and CloudEvents' `OPTIONS` handshake). */
export const AZURE_EVENTS_PATH = "/events/azure";
/** The query parameter a delivery's shared secret travels in (the event subscription's endpoint URL carries it). */
export const EVENTS_SECRET_PARAMETER = "key";
/** The shortest shared secret accepted. */
export const MIN_EVENTS_SECRET_LENGTH = 16;
/** A delivery larger than this is refused: Event Grid's batches are at most 1 MB. */
const MAX_DELIVERY_BYTES = 1024 * 1024;

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
 * Entra bearer tokens are not checked here (see the README).
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
      res.writeHead(401, { "content-type": "text/plain" }).end(`a delivery must carry the shared secret (?${EVENTS_SECRET_PARAMETER}=)\n`);
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
      (text) => this.deliver(text, res),
      (e: unknown) => res.writeHead(413, { "content-type": "text/plain" }).end(`${(e as Error).message}\n`),
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_DELIVERY_BYTES) {
        reject(new Error(`a delivery is at most ${MAX_DELIVERY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
