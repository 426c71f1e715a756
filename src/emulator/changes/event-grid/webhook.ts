import { randomUUID } from "node:crypto";
import type { EventSubscriptionSpec } from "./event-subscription";

/** How long Event Grid waits for a webhook's answer before it counts the attempt as failed. */
export const RESPONSE_TIMEOUT_MS = 30_000;

/** The origin Event Grid names in CloudEvents' abuse-protection handshake. */
export const EVENT_GRID_ORIGIN = "eventgrid.azure.net";

/** A handshake's outcome: validated, or why not. */
export type HandshakeResult = { validated: true } | { validated: false; error: string };

/**
 * Event Grid's endpoint validation before the first delivery
 * (https://learn.microsoft.com/azure/event-grid/end-point-validation-event-grid-events-schema,
 * …/end-point-validation-cloud-events-schema). Event Grid schema: a POST of one
 * `Microsoft.EventGrid.SubscriptionValidationEvent` (data `SubscriptionValidationEventData` of
 * specs/eventgrid/Microsoft.EventGrid/stable/2018-01-01/SystemEvents.json) with header
 * `aeg-event-type: SubscriptionValidation`, answered 200 with `{ "validationResponse": <code> }`
 * (or validated later by a GET of `validationUrl`). CloudEvents 1.0: an OPTIONS with
 * `WebHook-Request-Origin: eventgrid.azure.net`, answered 200 with a `WebHook-Allowed-Origin` that
 * names that origin or `*`.
 */
export async function handshake(
  s: EventSubscriptionSpec,
  topic: string,
  validationUrl: (code: string) => string,
): Promise<HandshakeResult> {
  try {
    if (s.eventDeliverySchema === "CloudEventSchemaV1_0") return await cloudEventsHandshake(s.endpointUrl);
    return await eventGridHandshake(s, topic, validationUrl);
  } catch (e) {
    return { validated: false, error: `the endpoint did not answer the handshake: ${(e as Error).message}` };
  }
}

async function cloudEventsHandshake(url: string): Promise<HandshakeResult> {
  const res = await fetch(url, {
    method: "OPTIONS",
    headers: { "webhook-request-origin": EVENT_GRID_ORIGIN, "webhook-request-rate": "120" },
    signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
  });
  await res.arrayBuffer();
  const allowed = res.headers.get("webhook-allowed-origin");
  if (res.status !== 200) return { validated: false, error: `the OPTIONS handshake answered HTTP ${res.status}` };
  if (allowed !== "*" && allowed?.toLowerCase() !== EVENT_GRID_ORIGIN)
    return {
      validated: false,
      error: `the OPTIONS handshake's WebHook-Allowed-Origin is ${allowed ?? "missing"}, not ${EVENT_GRID_ORIGIN}`,
    };
  return { validated: true };
}

async function eventGridHandshake(
  s: EventSubscriptionSpec,
  topic: string,
  validationUrl: (code: string) => string,
): Promise<HandshakeResult> {
  const code = randomUUID();
  const event = {
    id: randomUUID(),
    topic,
    subject: "",
    data: { validationCode: code, validationUrl: validationUrl(code) },
    eventType: "Microsoft.EventGrid.SubscriptionValidationEvent",
    eventTime: new Date().toISOString(),
    metadataVersion: "1",
    dataVersion: "1",
  };
  const res = await fetch(s.endpointUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "aeg-event-type": "SubscriptionValidation",
      "aeg-subscription-name": s.name.toUpperCase(),
    },
    body: JSON.stringify([event]),
    signal: AbortSignal.timeout(RESPONSE_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== 200) return { validated: false, error: `the validation event was answered HTTP ${res.status}` };
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if ((answer as { validationResponse?: unknown } | undefined)?.validationResponse === code) return { validated: true };
  return {
    validated: false,
    error: "the validation event was answered without its validationCode as validationResponse (GET the validationUrl to validate)",
  };
}

/** What one delivery attempt came to. */
export type AttemptResult = { ok: true; status: number } | { ok: false; status?: number; retry: boolean; error: string };

/** Webhook answers Event Grid does not retry: the endpoint refuses for good (delivery-and-retry, "Retry schedule"). */
const NOT_RETRIED = new Set([400, 401, 403, 413]);

/**
 * One delivery attempt: Event Grid schema as a JSON array of one event (`application/json`),
 * CloudEvents 1.0 in structured mode, one event (`application/cloudevents+json`), with Event Grid's
 * `aeg-*` headers. 200–204 is delivered; 400, 401, 403 and 413 are not retried; anything else, or
 * no answer within 30 s, is retried.
 */
export async function deliverOnce(
  s: EventSubscriptionSpec,
  payload: Record<string, unknown>,
  attempt: number,
  timeoutMs = RESPONSE_TIMEOUT_MS,
): Promise<AttemptResult> {
  const cloud = s.eventDeliverySchema === "CloudEventSchemaV1_0";
  try {
    const res = await fetch(s.endpointUrl, {
      method: "POST",
      headers: {
        "content-type": cloud ? "application/cloudevents+json; charset=utf-8" : "application/json",
        "aeg-event-type": "Notification",
        "aeg-subscription-name": s.name.toUpperCase(),
        "aeg-delivery-count": String(attempt - 1),
        ...(cloud ? {} : { "aeg-data-version": String(payload.dataVersion), "aeg-metadata-version": "1" }),
      },
      body: JSON.stringify(cloud ? payload : [payload]),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer();
    if (res.status >= 200 && res.status <= 204) return { ok: true, status: res.status };
    return { ok: false, status: res.status, retry: !NOT_RETRIED.has(res.status), error: `HTTP ${res.status}` };
  } catch (e) {
    return { ok: false, retry: true, error: (e as Error).message };
  }
}
