import type { FaultInjector } from "../../fault-injector";
import type { WriteContext } from "../write-context";
import { subscriptionMatches, type EventSubscriptionSpec } from "./event-subscription";
import { inSchema, resourceEvent, type GridEvent } from "./resource-events";
import { retryDelayMs } from "./retry-schedule";
import { deliverOnce, handshake, RESPONSE_TIMEOUT_MS } from "./webhook";

/** One attempt, as the admin view shows it. */
export interface AttemptRecord {
  eventId: string;
  eventType: string;
  subject: string;
  attempt: number;
  at: string;
  /** The webhook's status, when it answered. */
  status?: number;
  error?: string;
}

/** A subscription and what became of its deliveries (the admin view). */
export interface SubscriptionView extends EventSubscriptionSpec {
  validated: boolean;
  validationError?: string;
  delivered: number;
  /** Events given up: not retried (400, 401, 403, 413), out of attempts or time to live, or the subscription not validated. */
  failed: number;
  /** Events lost to a `drop` record fault. */
  dropped: number;
  pending: number;
  /** The latest attempts, newest last (at most 100). */
  attempts: AttemptRecord[];
}

interface Subscription {
  view: SubscriptionView;
  validationCode?: string;
  ready: Promise<void>;
  /** A delivery held back by a reorder fault until the next one of this subscription starts. */
  held?: { send: () => void; timer: NodeJS.Timeout };
}

/**
 * Event Grid for the emulator's writes: each successful ARM write becomes a resource event on its
 * subscription's system topic, delivered to every matching webhook subscription after that
 * subscription's validation handshake, asynchronously (the write's answer never waits for it),
 * retried on Event Grid's schedule (scaled by `timeScale()`), through the fault injector's record
 * rules on channel `eventGrid` (drop, delay, duplicate, reorder).
 */
export class EventGrid {
  private readonly subs = new Map<string, Subscription>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Bumped by a reset: deliveries of an older generation stop where they are. */
  private generation = 0;

  constructor(
    private readonly faults: FaultInjector,
    private readonly timeScale: () => number,
    private readonly baseUrl: () => string,
  ) {}

  /** Adds (or replaces) a subscription and runs its handshake; resolves with its view once the handshake is over. */
  async subscribe(spec: EventSubscriptionSpec): Promise<SubscriptionView> {
    // Event Grid's defaults, shown in the view: one event per request in its own schema, 30 attempts in 24 h.
    const view: SubscriptionView = {
      eventDeliverySchema: "EventGridSchema",
      maxDeliveryAttempts: 30,
      eventTimeToLiveInMinutes: 1440,
      ...spec,
      validated: false,
      delivered: 0,
      failed: 0,
      dropped: 0,
      pending: 0,
      attempts: [],
    };
    const sub: Subscription = { view, ready: Promise.resolve() };
    this.subs.set(spec.name.toLowerCase(), sub);
    const topic = spec.subscriptionId ? `/subscriptions/${spec.subscriptionId}` : "/subscriptions";
    sub.ready = handshake(spec, topic, (code) => {
      sub.validationCode = code;
      return `${this.baseUrl()}/_emulator/event-subscriptions/${encodeURIComponent(spec.name)}/validate/${code}`;
    }).then((r) => {
      view.validated = r.validated;
      view.validationError = r.validated ? undefined : r.error;
    });
    await sub.ready;
    return view;
  }

  unsubscribe(name: string): boolean {
    return this.subs.delete(name.toLowerCase());
  }

  /** The validationUrl's GET: validates a subscription whose endpoint did not echo the code. */
  validate(name: string, code: string): SubscriptionView | undefined {
    const sub = this.subs.get(name.toLowerCase());
    if (!sub || !sub.validationCode || sub.validationCode !== code) return undefined;
    sub.view.validated = true;
    sub.view.validationError = undefined;
    return sub.view;
  }

  views(): SubscriptionView[] {
    return [...this.subs.values()].map((s) => s.view);
  }

  /** Publishes the event of a successful write to every matching subscription. */
  publish(w: WriteContext, at: number): void {
    if (this.subs.size > 0) this.publishEvent(resourceEvent(w, at));
  }

  /** Publishes an event (a resource event, a Key Vault event) to every matching subscription. */
  publishEvent(event: GridEvent): void {
    if (this.closed) return;
    for (const sub of this.subs.values()) if (subscriptionMatches(sub.view, event)) this.enqueue(sub, event);
  }

  /** Stops every pending delivery and retry (the emulator closes or resets). */
  close(): void {
    this.closed = true;
    this.clearTimers();
  }

  /** Forgets pending deliveries and the counters, keeping the subscriptions. */
  reset(): void {
    this.clearTimers();
    this.generation += 1;
    for (const s of this.subs.values()) {
      Object.assign(s.view, { delivered: 0, failed: 0, dropped: 0, pending: 0, attempts: [] });
      s.held = undefined;
    }
  }

  private enqueue(sub: Subscription, event: GridEvent): void {
    const decision = this.faults.decideRecord("eventGrid", event.subject);
    if (decision.kind === "drop") {
      sub.view.dropped += 1;
      return;
    }
    const payload = inSchema(event, sub.view.eventDeliverySchema ?? "EventGridSchema");
    const send = () => void this.deliver(sub, event, payload);
    if (decision.kind === "reorder") {
      this.releaseHeld(sub);
      sub.held = { send, timer: this.after(decision.ms, () => this.releaseHeld(sub)) };
      return;
    }
    const start = () => {
      send();
      if (decision.kind === "duplicate") send();
      this.releaseHeld(sub);
    };
    if (decision.kind === "delay") this.after(decision.ms, start);
    else start();
  }

  private releaseHeld(sub: Subscription): void {
    const h = sub.held;
    if (!h) return;
    clearTimeout(h.timer);
    this.timers.delete(h.timer);
    sub.held = undefined;
    h.send();
  }

  /** Delivers one event: after the handshake, attempts on the retry schedule until delivered or given up. */
  private async deliver(sub: Subscription, event: GridEvent, payload: Record<string, unknown>): Promise<void> {
    const v = sub.view;
    const gen = this.generation;
    const stale = () => this.closed || gen !== this.generation;
    v.pending += 1;
    await sub.ready;
    const ttlMs = (v.eventTimeToLiveInMinutes ?? 1440) * 60_000 * this.timeScale();
    const max = v.maxDeliveryAttempts ?? 30;
    let waited = 0;
    for (let attempt = 1; !stale(); attempt++) {
      if (!v.validated) break;
      const r = await deliverOnce(v, payload, attempt, Math.max(1000, RESPONSE_TIMEOUT_MS * Math.min(1, this.timeScale())));
      if (stale()) return;
      this.note(v, {
        eventId: event.id,
        eventType: event.eventType,
        subject: event.subject,
        attempt,
        at: new Date().toISOString(),
        status: r.status,
        error: r.ok ? undefined : r.error,
      });
      if (r.ok) {
        v.pending -= 1;
        v.delivered += 1;
        return;
      }
      const wait = retryDelayMs(attempt, this.timeScale());
      if (!r.retry || attempt >= max || waited + wait > ttlMs) break;
      waited += wait;
      await new Promise<void>((resolve) => this.after(wait, resolve));
    }
    if (stale()) return;
    v.pending -= 1;
    v.failed += 1;
  }

  private note(v: SubscriptionView, a: AttemptRecord): void {
    v.attempts.push(a);
    if (v.attempts.length > 100) v.attempts.shift();
  }

  private after(ms: number, run: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      run();
    }, ms);
    t.unref();
    this.timers.add(t);
    return t;
  }

  private clearTimers(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
