import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** What a receiver kept: each event once per webhook-id, with its type and subject. */
export interface SinkEvent {
  id: string;
  type: string;
  subject: string;
}

/**
 * A webhook receiver as a user writes one: it verifies each Standard Webhooks signature and keeps
 * an event once per webhook-id (deliveries are at least once). Unverified deliveries are counted.
 */
export async function startWebhookSink(
  secret: string,
): Promise<{ url: string; events: SinkEvent[]; rejected: number; close(): Promise<void> }> {
  const wh = new Webhook(secret);
  const seen = new Set<string>();
  const sink = { url: "", events: [] as SinkEvent[], rejected: 0, close: async () => {} };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        wh.verify(body, req.headers as Record<string, string>);
      } catch {
        sink.rejected += 1;
        res.writeHead(400).end();
        return;
      }
      const id = String(req.headers["webhook-id"]);
      if (!seen.has(id)) {
        seen.add(id);
        const e = JSON.parse(body) as { type: string; subject: string };
        sink.events.push({ id, type: e.type, subject: e.subject });
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}
