import type { StatusBoard } from "../status/status-board";
import type { StackwardenEvent } from "./event-types";
import { eventsBetween } from "./status-events";

/** Where derived events go: WebhookNotifier, or anything with its enqueue. */
export interface EventSink {
  enqueue(event: StackwardenEvent): void;
}

/**
 * Announces every state change of the board's stacks: on each update, the events between the
 * stack's previous and new status (eventsBetween) are enqueued on `sink`. Runs inside the board's
 * update, before the status is saved, so an event is on disk before the status that caused it.
 * Returns the function that stops it.
 */
export function notifyStatusChanges(board: StatusBoard, sink: EventSink, opts: { source?: string } = {}): () => void {
  return board.subscribe((c) => {
    for (const e of eventsBetween(c.previous, c.current, { source: opts.source, incarnation: board.incarnation })) sink.enqueue(e);
  });
}
