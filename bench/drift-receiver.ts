import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChangeAttribution } from "../src/domain/changes/change-record";
import { verifyWebhook } from "../src/interfaces/watch/events/webhook-verification";

/** One `drift.detected` a watcher sent: when it arrived here, and each drifted resource with who made it. */
export interface Detection {
  /** Date.now() when the delivery arrived (the bench's clock, as the change times are). */
  arrivedAt: number;
  /** The event's own `time` (the watcher's clock, the same machine). */
  time: string;
  resources: { label: string; changedBy: ChangeAttribution | null }[];
}

export interface DriftReceiver {
  /** Base URL; a watcher's deliveries go to `${url}/<watcher>`. */
  url: string;
  /** drift.detected deliveries by watcher (the path's last segment), in arrival order; duplicates (same webhook-id) dropped. */
  detections: Map<string, Detection[]>;
  /** Deliveries whose signature did not verify (must stay 0). */
  invalid: number;
  close(): Promise<void>;
}

const DRIFT_DETECTED = "com.stackwarden.drift.detected";

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8").on("data", (d: string) => (text += d));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

/**
 * A webhook receiver for the watchers' signed CloudEvents (Standard Webhooks, checked with the
 * watcher's own verifier): it keeps each `drift.detected` with the moment it arrived. The arrival is
 * what the bench times: the moment someone subscribed to the watcher's events learns of the drift.
 */
export async function startDriftReceiver(secret: string): Promise<DriftReceiver> {
  const detections = new Map<string, Detection[]>();
  const seen = new Set<string>();
  const r: DriftReceiver = { url: "", detections, invalid: 0, close: async () => {} };
  const server = createServer((req, res) => {
    void body(req).then((payload) => {
      const arrivedAt = Date.now();
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      if (!verifyWebhook(secret, payload, headers).valid) {
        r.invalid += 1;
        res.writeHead(401).end();
        return;
      }
      res.writeHead(204).end();
      const id = headers["webhook-id"];
      if (seen.has(id)) return;
      seen.add(id);
      const event = JSON.parse(payload) as { type: string; time: string; data: { resources: Detection["resources"] } };
      if (event.type !== DRIFT_DETECTED) return;
      const watcher = (req.url ?? "/").split("/").pop() ?? "";
      const list = detections.get(watcher) ?? [];
      list.push({ arrivedAt, time: event.time, resources: event.data.resources });
      detections.set(watcher, list);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  r.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return r;
}
