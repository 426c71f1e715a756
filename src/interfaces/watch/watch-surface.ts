import type { StateStores } from "../../domain/state/state-ports";
import type { OrderedWrites } from "../../usecases/ordered-writes";
import type { WatchEventsPort, WatchSurface } from "../../usecases/watch-ports";
import { notifyStatusChanges } from "./events/notify-status-changes";
import { WebhookNotifier } from "./events/webhook-notifier";
import { StackStatusReporter } from "./stack-status-reporter";
import { StatusBoard } from "./status/status-board";
import { StatusStore } from "./status/status-store";
import { WatchMetrics } from "./watch-metrics";

/** What the watch process's surface is made of. */
export interface WatchSurfaceOptions {
  state: StateStores;
  /** The process's writes, in order and fenced by its replica's lease: statuses and events share them. */
  writes: OrderedWrites;
  /** --notify: the webhooks and the secret that signs them; absent: no events are sent. */
  notify?: { urls: readonly string[]; secret: string };
  log: (line: string) => void;
}

/** The surface, with the board and the metrics the server shows. */
export interface OpenedWatchSurface extends WatchSurface {
  board: StatusBoard;
  metrics: WatchMetrics;
}

/**
 * What a watch process reports to, as this interface shows it: Prometheus metrics, the status board
 * (kept in the state's status store, which standbys follow) behind the page and the API, each
 * stack's reporter, and the signed webhooks of --notify on the shared outbox.
 */
export async function openWatchSurface(o: WatchSurfaceOptions): Promise<OpenedWatchSurface> {
  const metrics = new WatchMetrics();
  const store = new StatusStore(o.state.status, o.log, o.writes);
  const board = await StatusBoard.open({ store, warn: o.log });
  return {
    board,
    metrics,
    meter: metrics,
    statuses: {
      adoptStored: async () => board.adopt((await store.load()).statuses),
      register: (stack, info) => board.register(stack, info),
      role: (role, leader) => {
        metrics.leader.set(role === "leader" ? 1 : 0);
        board.replica = { role, ...(leader ? { leader: { pid: leader.pid, host: leader.host } } : {}) };
      },
      reporter: (stack) => new StackStatusReporter(board, stack, o.state),
    },
    ...(o.notify ? { events: webhookEvents(o, o.notify, board) } : {}),
    close: async () => metrics.close(),
  };
}

/** Each term's webhooks: the notifier on the shared outbox, fed by every status change of the board. */
function webhookEvents(o: WatchSurfaceOptions, notify: { urls: readonly string[]; secret: string }, board: StatusBoard): WatchEventsPort {
  return {
    open: async () => {
      const notifier = await WebhookNotifier.open({
        events: o.state.events,
        writes: o.writes,
        claim: "claimOutbox" in o.state ? o.state.claimOutbox : undefined,
        fence: () => o.writes.fenced(),
        urls: [...notify.urls],
        secret: notify.secret,
        log: o.log,
      });
      const unsubscribe = notifyStatusChanges(board, notifier);
      return {
        close: async () => {
          unsubscribe();
          // The events of the last ticks get a few seconds to go out; the rest stays in the outbox.
          await notifier.drain(5_000);
          await notifier.close();
        },
      };
    },
  };
}
