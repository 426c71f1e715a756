import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the receiver got. */
export interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers; each can change during a test. */
export interface ReceiverBehaviour {
  /** Event Grid schema handshake: echo the code (default), answer this status, or 200 without the code. */
  validation: "echo" | "no-code" | number;
  /** CloudEvents handshake: the WebHook-Allowed-Origin to answer with, or a status. */
  allowedOrigin: string | number;
  /** Statuses of the next notifications, in order; 200 once used up. */
  statuses: number[];
}

/**
 * A webhook on an ephemeral port, as a subscriber runs one: it answers Event Grid's handshakes
 * (or refuses them) and records every request it gets.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  behaviour: ReceiverBehaviour = { validation: "echo", allowedOrigin: "eventgrid.azure.net", statuses: [] };
  private server?: Server;
  private waiters: { n: number; resolve: () => void }[] = [];
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const r: Received = {
          method: req.method ?? "",
          headers: req.headers,
          body: Buffer.concat(chunks).toString("utf8"),
          at: Date.now(),
        };
        this.received.push(r);
        const { status, headers, body } = this.answer(r);
        res.writeHead(status, headers).end(body);
        this.wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/events`;
    return this;
  }

  /** The event deliveries (not the handshakes). */
  get notifications(): Received[] {
    return this.received.filter((r) => r.method === "POST" && r.headers["aeg-event-type"] === "Notification");
  }

  /** Resolves once `n` notifications have arrived (fails the test after `timeoutMs`). */
  async waitForNotifications(n: number, timeoutMs = 10_000): Promise<Received[]> {
    if (this.notifications.length < n) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${this.notifications.length} of ${n} notifications in ${timeoutMs} ms`)),
          timeoutMs,
        );
        this.waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.notifications;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (!this.server) return resolve();
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private wake(): void {
    const have = this.notifications.length;
    this.waiters = this.waiters.filter((w) => (have >= w.n ? (w.resolve(), false) : true));
  }

  private answer(r: Received): { status: number; headers: Record<string, string>; body: string } {
    const b = this.behaviour;
    if (r.method === "OPTIONS") {
      if (typeof b.allowedOrigin === "number") return { status: b.allowedOrigin, headers: {}, body: "" };
      return { status: 200, headers: { "webhook-allowed-origin": b.allowedOrigin }, body: "" };
    }
    if (r.headers["aeg-event-type"] === "SubscriptionValidation") {
      if (typeof b.validation === "number") return { status: b.validation, headers: {}, body: "" };
      const code = (JSON.parse(r.body) as { data: { validationCode: string } }[])[0].data.validationCode;
      const body = b.validation === "echo" ? { validationResponse: code } : {};
      return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    }
    return { status: b.statuses.shift() ?? 200, headers: {}, body: "" };
  }
}
