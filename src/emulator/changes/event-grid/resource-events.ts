import { randomUUID } from "node:crypto";
import { recordedClaims } from "../caller";
import type { WriteContext } from "../write-context";
import type { EventDeliverySchema } from "./event-subscription";

/** An event of a system topic, before it is put in a subscription's delivery schema. */
export interface GridEvent {
  id: string;
  eventType: string;
  /** The resource written (a resource event), the key's name (a Key Vault event). */
  subject: string;
  /** The system topic's source: `/subscriptions/{id}`, or a vault's resource id. */
  topic: string;
  eventTime: string;
  /** The Azure subscription the topic belongs to. */
  subscriptionId: string;
  /** "2" for resource events, "1" for Key Vault's, as the published examples carry them. */
  dataVersion: string;
  data: Record<string, unknown>;
}

/**
 * A `Microsoft.Resources.Resource{Write,Delete,Action}Success` event of a subscription's system
 * topic, its data as `ResourceWriteSuccessData` (specs/eventgrid/Microsoft.Resources/stable/2018-01-01/Resources.json)
 * and the published examples show it.
 */
export type ResourceEvent = GridEvent;

const EVENT_TYPES = {
  write: "Microsoft.Resources.ResourceWriteSuccess",
  delete: "Microsoft.Resources.ResourceDeleteSuccess",
  action: "Microsoft.Resources.ResourceActionSuccess",
} as const;

/** The event Event Grid publishes for a write that succeeded. */
export function resourceEvent(w: WriteContext, at: number): ResourceEvent {
  const { write } = w;
  return {
    id: randomUUID(),
    eventType: EVENT_TYPES[write.kind],
    subject: write.resourceId,
    topic: `/subscriptions/${write.subscriptionId}`,
    eventTime: new Date(at).toISOString(),
    subscriptionId: write.subscriptionId,
    dataVersion: "2",
    data: {
      authorization: { scope: write.resourceId, action: write.operationName },
      claims: recordedClaims(w.claims),
      correlationId: w.correlationId,
      httpRequest: {
        clientRequestId: w.clientRequestId,
        clientIpAddress: w.clientIpAddress,
        method: write.method,
        url: w.requestUrl,
      },
      resourceProvider: write.resourceProvider,
      resourceUri: write.resourceId,
      operationName: write.operationName,
      status: "Succeeded",
      subscriptionId: write.subscriptionId,
      tenantId: w.claims.tid,
      ...(write.resourceGroupName ? { resourceGroup: write.resourceGroupName } : {}),
    },
  };
}

/**
 * The event in the subscription's delivery schema: Event Grid's (`metadataVersion` "1" as the
 * examples carry) or CloudEvents 1.0 (`source` the topic, `type` the
 * event type, `time` the event time).
 */
export function inSchema(e: GridEvent, schema: EventDeliverySchema): Record<string, unknown> {
  if (schema === "CloudEventSchemaV1_0") {
    return { source: e.topic, subject: e.subject, type: e.eventType, time: e.eventTime, id: e.id, data: e.data, specversion: "1.0" };
  }
  return {
    subject: e.subject,
    eventType: e.eventType,
    eventTime: e.eventTime,
    id: e.id,
    data: e.data,
    dataVersion: e.dataVersion,
    metadataVersion: "1",
    topic: e.topic,
  };
}
