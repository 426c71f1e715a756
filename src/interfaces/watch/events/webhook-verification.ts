import { timingSafeEqual } from "node:crypto";
import { CloudEvent } from "cloudevents";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/** What verifying a delivery found. */
export type WebhookVerdict =
  | { valid: true; id: string; timestamp: Date; event?: { type: string; subject?: string; id: string }; note?: string }
  | { valid: false; reason: string };

/**
 * Reads the headers of a delivery as saved: a JSON object (`{"webhook-id": …}`) or HTTP header
 * lines (`webhook-id: …`, as `curl -D` writes them; a request or status line is skipped). Names
 * are lower-cased. Throws when the text is neither.
 */
export function parseHeaderText(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    let obj: unknown;
    try {
      obj = JSON.parse(trimmed);
    } catch (e) {
      throw new Error(`the headers are not valid JSON: ${(e as Error).message}`, { cause: e });
    }
    if (!obj || typeof obj !== "object" || Array.isArray(obj))
      throw new Error("the headers JSON must be an object of header names to values");
    return Object.fromEntries(Object.entries(obj as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), String(v)]));
  }
  const out: Record<string, string> = {};
  for (const line of trimmed.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+):\s*(.*?)\s*$/.exec(line);
    if (m) out[m[1].toLowerCase()] = m[2];
  }
  if (Object.keys(out).length === 0) throw new Error("no header found: give a JSON object or lines such as `webhook-id: msg_…`");
  return out;
}

/**
 * Verifies a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`; HMAC-SHA256 with `secret`, whsec_ form) with the standardwebhooks package,
 * which also refuses a timestamp more than 5 minutes away; `ignoreTimestamp` checks the signature
 * alone (a payload saved earlier). When valid, says which CloudEvent the payload is.
 */
export function verifyWebhook(
  secret: string,
  payload: string,
  headers: Record<string, string>,
  opts: { ignoreTimestamp?: boolean } = {},
): WebhookVerdict {
  const wh = new Webhook(secret);
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sig = headers["webhook-signature"];
  const missing = [!id && "webhook-id", !ts && "webhook-timestamp", !sig && "webhook-signature"].filter(Boolean);
  if (missing.length) return { valid: false, reason: `missing header(s): ${missing.join(", ")}` };
  if (!/^\d+$/.test(ts)) return { valid: false, reason: "webhook-timestamp is not a number of seconds" };
  const timestamp = new Date(Number(ts) * 1000);
  try {
    if (opts.ignoreTimestamp) {
      const expected = Buffer.from(wh.sign(id, timestamp, payload).split(",")[1]);
      const match = sig.split(" ").some((s) => {
        const [version, value] = s.split(",");
        const got = Buffer.from(value ?? "");
        return version === "v1" && got.length === expected.length && timingSafeEqual(got, expected);
      });
      if (!match) return { valid: false, reason: "no signature matches" };
    } else {
      wh.verify(payload, { "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": sig }, { jsonParse: false });
    }
  } catch (e) {
    if (e instanceof WebhookVerificationError) return { valid: false, reason: describeVerificationError(e.message) };
    throw e;
  }
  try {
    const ce = new CloudEvent(JSON.parse(payload) as Record<string, unknown>);
    return { valid: true, id, timestamp, event: { type: ce.type, subject: ce.subject, id: ce.id } };
  } catch {
    return { valid: true, id, timestamp, note: "the payload is not a CloudEvent" };
  }
}

function describeVerificationError(message: string): string {
  if (/too old/i.test(message)) return "the timestamp is more than 5 minutes old (a replay, or a saved payload: use --ignore-timestamp)";
  if (/too new/i.test(message)) return "the timestamp is more than 5 minutes in the future";
  if (/no matching signature/i.test(message)) return "no signature matches";
  return message;
}
