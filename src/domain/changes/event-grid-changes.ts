import type { ChangeRecord } from "./change-record";
import { callerOfClaims } from "./caller-of-claims";

/** Event Grid's subscription validation event (Microsoft.EventGrid/SystemEvents.json, `SubscriptionValidationEventData`). */
export const SUBSCRIPTION_VALIDATION_EVENT = "Microsoft.EventGrid.SubscriptionValidationEvent";

/** What one delivery to `POST /events/azure` holds. */
export interface EventGridDelivery {
  /** The validation handshake's code, when the delivery is Event Grid's validation event. */
  validationCode?: string;
  /** The changes it reports (resource writes, deletes and actions that succeeded; Key Vault key events). */
  records: ChangeRecord[];
  /** Events it carries that report no change the watcher acts on (other types, odd events). */
  ignored: number;
}

/**
 * Reads a delivery in either of Event Grid's schemas: the Event Grid schema (a JSON array of
 * events with `eventType`, `eventTime`, `topic`, `data`) or CloudEvents 1.0 (one structured event,
 * `application/cloudevents+json`, or a batch array, `application/cloudevents-batch+json`, with
 * `type`, `time`, `source`, `data`). Examples: eventgrid/Microsoft.Resources/stable/2018-01-01/examples
 * (both schemas) and eventgrid/Microsoft.KeyVault/…/examples in ../shared/specs. Throws only when
 * the body is no event at all; an event it cannot use is counted in `ignored`.
 */
export function readEventGridDelivery(body: unknown): EventGridDelivery {
  const events = Array.isArray(body) ? body : body && typeof body === "object" ? [body] : undefined;
  if (!events) throw new Error("the body is neither an event nor an array of events");
  const out: EventGridDelivery = { records: [], ignored: 0 };
  for (const raw of events) {
    const e = normalized(raw);
    if (!e) {
      out.ignored++;
      continue;
    }
    if (e.type === SUBSCRIPTION_VALIDATION_EVENT) {
      const code = (e.data as { validationCode?: unknown } | undefined)?.validationCode;
      if (typeof code === "string" && code) out.validationCode = code;
      else out.ignored++;
      continue;
    }
    const record = changeOfEvent(e);
    if (record) out.records.push(record);
    else out.ignored++;
  }
  return out;
}

/** The fields both schemas share, under one set of names. */
interface AnyEvent {
  id: string;
  type: string;
  time?: string;
  /** The topic (Event Grid schema) or source (CloudEvents): for Key Vault events, the vault's ARM id. */
  topic?: string;
  subject?: string;
  data: unknown;
}

function normalized(raw: unknown): AnyEvent | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  const cloud = typeof r.specversion === "string";
  const id = str(r.id);
  const type = str(cloud ? r.type : r.eventType);
  if (!id || !type) return undefined;
  return {
    id,
    type,
    time: str(cloud ? r.time : r.eventTime),
    topic: str(cloud ? r.source : r.topic),
    subject: str(r.subject),
    data: r.data,
  };
}

/** Key Vault's key events: a key changed (a new version, or its expiry) in the vault the topic names. */
const KEY_EVENTS = /^Microsoft\.KeyVault\.(KeyNewVersionCreated|KeyNearExpiry|KeyExpired)$/;
/** Resource Manager's events of a subscription's system topic that record a change made. */
const RESOURCE_EVENTS = /^Microsoft\.Resources\.Resource(Write|Delete|Action)Success$/;

function changeOfEvent(e: AnyEvent): ChangeRecord | undefined {
  const data = (e.data && typeof e.data === "object" ? e.data : {}) as Record<string, unknown>;
  const at = e.time && !Number.isNaN(Date.parse(e.time)) ? new Date(e.time).toISOString() : new Date(0).toISOString();
  if (RESOURCE_EVENTS.test(e.type)) {
    const resourceId = str(data.resourceUri) ?? e.subject;
    if (!resourceId || (str(data.status) && str(data.status)!.toLowerCase() !== "succeeded")) return undefined;
    return {
      id: `event-grid:${e.id}`,
      resourceId,
      attribution: {
        caller: callerOfClaims(data.claims),
        at,
        operation: str(data.operationName) ?? e.type,
        source: "event-grid",
        correlationId: str(data.correlationId) ?? null,
      },
    };
  }
  const key = str(data.ObjectName) ?? e.subject;
  if (KEY_EVENTS.test(e.type) && e.topic && key && /\/providers\/Microsoft\.KeyVault\/vaults\/[^/]+$/i.test(e.topic)) {
    return {
      id: `event-grid:${e.id}`,
      resourceId: `${e.topic}/keys/${key}`,
      attribution: { caller: null, at, operation: e.type, source: "event-grid", correlationId: null },
    };
  }
  return undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}
