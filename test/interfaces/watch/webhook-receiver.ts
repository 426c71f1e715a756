import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as delay } from "node:timers/promises";
import { Webhook } from "standardwebhooks";

// A webhook receiver as a user would write one: it verifies every request's Standard Webhooks
// signature with the `standardwebhooks` package and deduplicates on webhook-id. It can be stopped
// and started again on the same port, made slow, or made to answer 500.

export interface Received {
  id: string;
  type: string;
  subject: string;
  data: Record<string, unknown>;
  /** The CloudEvent's own id (must equal webhook-id). */
  eventId: string;
  contentType: string | undefined;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Every request that arrived (verified or not), in order. */
  requests: { id: string | undefined; verified: boolean; error?: string; headers: Record<string, string>; body: string }[];
  /** Events accepted, once per webhook-id. */
  events: Received[];
  /** What the receiver does with the next requests. */
  behaviour: { status: number; delayMs: number };
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Starts a receiver verifying signatures with `secret` (on `port`, or any free one). */
export async function startReceiver(secret: string, port = 0): Promise<WebhookReceiver> {
  const wh = new Webhook(secret);
  const seen = new Set<string>();
  let server: Server | undefined;
  const r: WebhookReceiver = {
    url: "",
    port,
    requests: [],
    events: [],
    behaviour: { status: 204, delayMs: 0 },
    async stop() {
      const s = server;
      server = undefined;
      if (!s) return;
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    async start() {
      const s = createServer((req, res) => {
        let body = "";
        req.setEncoding("utf8").on("data", (d: string) => (body += d));
        req.on("end", async () => {
          const headers = req.headers as Record<string, string>;
          const id = headers["webhook-id"];
          let verified = false;
          let error: string | undefined;
          try {
            wh.verify(body, headers);
            verified = true;
          } catch (e) {
            error = (e as Error).message;
          }
          r.requests.push({ id, verified, ...(error ? { error } : {}), headers, body });
          const { status, delayMs } = r.behaviour;
          if (delayMs) await delay(delayMs);
          if (!verified) {
            res.writeHead(400).end();
            return;
          }
          if (status >= 200 && status < 300 && !seen.has(id!)) {
            seen.add(id!);
            const e = JSON.parse(body) as { id: string; type: string; subject: string; data: Record<string, unknown> };
            r.events.push({ id: id!, type: e.type, subject: e.subject, data: e.data, eventId: e.id, contentType: headers["content-type"] });
          }
          if (!res.destroyed) res.writeHead(status).end();
        });
      });
      await new Promise<void>((resolve, reject) => {
        s.once("error", reject);
        s.listen(r.port, "127.0.0.1", () => resolve());
      });
      server = s;
      r.port = (s.address() as AddressInfo).port;
      r.url = `http://127.0.0.1:${r.port}/hooks/stackwarden?channel=ops`;
    },
  };
  await r.start();
  return r;
}
