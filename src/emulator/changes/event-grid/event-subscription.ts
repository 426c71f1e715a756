/**
 * A webhook event subscription on a subscription's system topic (topic type
 * `Microsoft.Resources.Subscriptions`), as the emulator is given it: in its seed (`eventGrid:
 * subscriptions:`) or at run time (`PUT /_emulator/event-subscriptions/{name}`). The emulator does
 * not serve Event Grid's resource manager API (Microsoft.EventGrid/systemTopics/eventSubscriptions);
 * the fields carry that API's names (`destination.properties.endpointUrl`, `eventDeliverySchema`,
 * `filter.includedEventTypes`, `filter.subjectBeginsWith`/`subjectEndsWith`, `retryPolicy`), flattened.
 */
export interface EventSubscriptionSpec {
  name: string;
  /** The webhook the events are POSTed to. */
  endpointUrl: string;
  /** Default EventGridSchema. */
  eventDeliverySchema?: EventDeliverySchema;
  /** The Azure subscription whose system topic this subscribes to; default every one the emulator serves. */
  subscriptionId?: string;
  /**
   * Another system topic's source instead: a key vault's resource id
   * (`/subscriptions/…/providers/Microsoft.KeyVault/vaults/{name}`), for its Key Vault events.
   */
  topic?: string;
  /** Event types delivered; default all (`Microsoft.Resources.ResourceWriteSuccess`, `…DeleteSuccess`, `…ActionSuccess`). */
  includedEventTypes?: string[];
  /** Subject (the resource id) filters, case-insensitive, as Event Grid's default. */
  subjectBeginsWith?: string;
  subjectEndsWith?: string;
  /** Attempts per event, 1–30 (Event Grid's default 30). */
  maxDeliveryAttempts?: number;
  /** How long an event is retried, 1–1440 minutes (default 1440: 24 h), on the retry schedule's time scale. */
  eventTimeToLiveInMinutes?: number;
}

export type EventDeliverySchema = "EventGridSchema" | "CloudEventSchemaV1_0";

/** The JSON Schema of one subscription (seed and admin route). */
export const eventSubscriptionSchema = {
  type: "object",
  additionalProperties: false,
  required: ["name", "endpointUrl"],
  properties: {
    name: { type: "string", pattern: "^[A-Za-z0-9-]{3,64}$" },
    endpointUrl: { type: "string", pattern: "^https?://" },
    eventDeliverySchema: { type: "string", enum: ["EventGridSchema", "CloudEventSchemaV1_0"] },
    subscriptionId: { type: "string" },
    topic: { type: "string", pattern: "^/subscriptions/" },
    includedEventTypes: { type: "array", items: { type: "string" } },
    subjectBeginsWith: { type: "string" },
    subjectEndsWith: { type: "string" },
    maxDeliveryAttempts: { type: "integer", minimum: 1, maximum: 30 },
    eventTimeToLiveInMinutes: { type: "integer", minimum: 1, maximum: 1440 },
  },
} as const;

/** The seed's `eventGrid:` section. */
export interface EventGridSeed {
  subscriptions?: EventSubscriptionSpec[];
}

export const eventGridSeedSchema = {
  type: "object",
  additionalProperties: false,
  properties: { subscriptions: { type: "array", items: eventSubscriptionSchema } },
} as const;

/** Whether an event (its topic, type and subject) passes the subscription's filter. */
export function subscriptionMatches(
  s: EventSubscriptionSpec,
  e: { eventType: string; subject: string; subscriptionId: string; topic: string },
): boolean {
  // A subscription's topic is the Azure subscription's (`/subscriptions/{id}`) unless it names another (a vault's).
  const topic = s.topic ?? `/subscriptions/${e.subscriptionId}`;
  if (topic.toLowerCase() !== e.topic.toLowerCase()) return false;
  if (s.subscriptionId && s.subscriptionId.toLowerCase() !== e.subscriptionId.toLowerCase()) return false;
  if (s.includedEventTypes && !s.includedEventTypes.some((t) => t.toLowerCase() === e.eventType.toLowerCase())) return false;
  const subject = e.subject.toLowerCase();
  if (s.subjectBeginsWith && !subject.startsWith(s.subjectBeginsWith.toLowerCase())) return false;
  if (s.subjectEndsWith && !subject.endsWith(s.subjectEndsWith.toLowerCase())) return false;
  return true;
}
