import { createHash } from "node:crypto";
import { StackwardenError } from "../../../platform/errors/stackwarden-error";
import { setMaxListeners } from "node:events";
import { Webhook } from "standardwebhooks";
import { Agent, request } from "undici";
import { VERSION } from "../../../platform/version";
import { parseRetryAfter, retryDelayMs, type BackoffOptions } from "./delivery-backoff";
import { EventOutbox, type PendingDelivery } from "./event-outbox";
import type { StackwardenEvent } from "./event-types";
import { parseNotifySecret } from "./notify-secret";
import { DirectoryInUse } from "../../../platform/state/files/directory-claim";
import type { DocumentStore } from "../../../domain/state/state-ports";
import type { OrderedWrites } from "../../../usecases/ordered-writes";

/** The content type of a structured-mode CloudEvent over HTTP. */
export const CLOUDEVENTS_JSON = "application/cloudevents+json; charset=utf-8";

export interface WebhookNotifierOptions {
  /** Where the outbox (`outbox/`) and the dead-letter log (`dead-letter.jsonl`) live. */
  events: DocumentStore;
  /** The ordered writes shared with the status board (an event is stored before the status that caused it). */
  writes?: OrderedWrites;
  /**
   * Claims the outbox for this process (local files: `owner.pid` in its directory), returning what
   * gives it up; throws DirectoryInUse when another live watcher has it. Absent: no claim.
   */
  claim?: () => () => void;
  /**
   * The fence before each delivery (a watcher replica's lease): a delivery it refuses is not sent and
   * stays in the outbox, for the replica that leads next. Absent: every delivery is sent.
   */
  fence?: () => Promise<void>;
  /** The webhooks (http or https URLs); each gets every event. */
  urls: readonly string[];
  /** The signing secret in Standard Webhooks' `whsec_…` form (from STACKWARDEN_NOTIFY_SECRET). */
  secret: string;
  /** Deliveries waiting, all webhooks together, at most; when full, the oldest waiting one goes to the dead-letter file. Default 10 000. */
  maxQueued?: number;
  /** Attempts per delivery before it goes to the dead-letter file. Default 12 (about 40 minutes with the default backoff). */
  maxAttempts?: number;
  /** Delays between attempts (exponential with jitter). Defaults: 1 s first, 5 minutes at most. */
  backoff?: BackoffOptions;
  /** How long one attempt may take before it counts as failed (a slow receiver), in ms. Default 10 000 (10 s). */
  timeoutMs?: number;
  /** Where retries and dead letters are reported (one line each; a webhook is named by its origin only). Default: dropped. */
  log?: (line: string) => void;
  /** For tests of the jitter. Default Math.random. */
  random?: () => number;
}

export interface NotifierStats {
  /** Deliveries waiting (in flight included). */
  pending: number;
  delivered: number;
  /** Failed attempts that were retried. */
  retried: number;
  deadLettered: number;
}

interface Target {
  url: string;
  /** How logs name it: origin only (a path or query may hold a secret). */
  label: string;
  queue: PendingDelivery[];
  wake?: () => void;
  inFlight?: PendingDelivery;
}

/** The key that names a webhook in the outbox: a hash of its URL (the URL may hold a secret). */
export function webhookKey(url: string): string {
  return createHash("sha256").update(url).digest("hex").slice(0, 16);
}

/**
 * Delivers events to webhooks, signed as Standard Webhooks (`webhook-id`: the event id,
 * `webhook-timestamp`, `webhook-signature`: HMAC-SHA256), at least once:
 * - enqueue() writes each delivery to the on-disk outbox (atomically) and returns: it never waits
 *   for a receiver, so a receiver that is down, slow or failing never slows the caller;
 * - each webhook has one worker that sends its deliveries in order, retrying a failure (no answer,
 *   a timeout, any non-2xx) with exponential backoff and jitter, honouring Retry-After;
 * - a delivery that exhausts its attempts, or is pushed out of a full queue, goes to the
 *   dead-letter file, never silently away;
 * - the outbox survives `kill -9`: open() resumes what it holds. A delivery in flight at the kill is
 *   sent again, so a receiver can see an event twice: it deduplicates on `webhook-id`.
 * One process per outbox directory: open() claims it (`owner.pid`) and refuses one a live process holds.
 */
export class WebhookNotifier {
  private readonly outbox: EventOutbox;
  private readonly webhook: Webhook;
  private readonly targets = new Map<string, Target>();
  private readonly agent: Agent;
  private readonly stopped = new AbortController();
  private readonly workers: Promise<void>[] = [];
  private readonly drainWaiters = new Set<() => void>();
  private readonly counts = { delivered: 0, retried: 0, deadLettered: 0 };
  private seq = 0;
  private closed = false;
  private release: () => void = () => {};

  private constructor(private readonly o: WebhookNotifierOptions) {
    this.webhook = new Webhook(parseNotifySecret(o.secret));
    for (const url of o.urls) {
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw new Error(`a webhook URL is not a URL (${redactUrl(url)}): give an http or https URL`);
      }
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error(`a webhook URL must be http or https, got ${u.protocol}`);
      this.targets.set(webhookKey(url), { url, label: `${u.origin}/…`, queue: [] });
    }
    this.outbox = new EventOutbox(o.events, this.log, o.writes);
    const timeout = o.timeoutMs ?? 10_000;
    this.agent = new Agent({ connect: { timeout }, headersTimeout: timeout, bodyTimeout: timeout, keepAliveTimeout: 4_000 });
    setMaxListeners(0, this.stopped.signal);
  }

  /**
   * Opens the outbox and starts delivering: what an earlier process left there is resumed
   * (deliveries to a webhook no longer configured go to the dead-letter log). Throws on a bad
   * secret or URL, saying which.
   */
  static async open(opts: WebhookNotifierOptions): Promise<WebhookNotifier> {
    const n = new WebhookNotifier(opts);
    try {
      if (opts.claim) n.release = opts.claim();
    } catch (e) {
      void n.agent.destroy();
      if (e instanceof DirectoryInUse)
        throw new StackwardenError(
          "SW_STATE_IN_USE",
          `the event outbox ${e.dir} belongs to another running watcher (pid ${e.pid}): watch several stacks with one watcher (--stack A --stack B, or --all), or start this one in another directory`,
          { cause: e },
        );
      throw e;
    }
    try {
      await n.resume();
    } catch (e) {
      n.release();
      void n.agent.destroy();
      throw e;
    }
    return n;
  }

  /**
   * Queues the event for every webhook (its write to the outbox is queued before this returns, ahead
   * of any later write; `flushed()` says when it is stored). An event already waiting for a webhook
   * is not queued twice.
   */
  enqueue(event: Pick<StackwardenEvent, "id" | "type">): void {
    if (this.closed) throw new Error("the webhook notifier is closed");
    const body = JSON.stringify(event);
    for (const [key, t] of this.targets) {
      if (t.queue.some((d) => d.id === event.id)) continue;
      const d: PendingDelivery = {
        version: 1,
        seq: ++this.seq,
        id: event.id,
        type: event.type,
        target: key,
        body,
        enqueuedAt: new Date().toISOString(),
        attempts: 0,
        nextAttemptAt: 0,
        lastError: null,
      };
      this.outbox.save(d);
      t.queue.push(d);
      t.wake?.();
    }
    this.enforceBound();
  }

  /** Counts since open (pending: now). */
  stats(): NotifierStats {
    let pending = 0;
    for (const t of this.targets.values()) pending += t.queue.length;
    return { pending, ...this.counts };
  }

  /** Resolves true once nothing is waiting, or false after `timeoutMs` (deliveries then stay in the outbox). */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.stats().pending === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.drainWaiters.delete(check);
        resolve(ok);
      };
      const check = () => {
        if (this.stats().pending === 0) done(true);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      this.drainWaiters.add(check);
    });
  }

  /** Stops delivering: attempts in flight are abandoned and stay in the outbox, for the next open(). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopped.abort(new Error("the webhook notifier closed"));
    for (const t of this.targets.values()) t.wake?.();
    await Promise.allSettled(this.workers);
    await this.agent.destroy();
    await this.outbox.flushed();
    this.release();
  }

  private readonly log = (line: string) => this.o.log?.(line);

  /** Resolves once every outbox write asked for so far is stored. */
  flushed(): Promise<void> {
    return this.outbox.flushed();
  }

  private async resume(): Promise<void> {
    for (const d of await this.outbox.load()) {
      this.seq = Math.max(this.seq, d.seq);
      const t = this.targets.get(d.target);
      if (t) t.queue.push(d);
      else {
        this.outbox.deadLetter(d, "its webhook is no longer configured");
        this.counts.deadLettered++;
        this.log(`notify: ${d.type} ${d.id} was queued for a webhook no longer configured: moved to ${this.outbox.deadLetterPath}`);
      }
    }
    const resumed = this.stats().pending;
    if (resumed) this.log(`notify: resuming ${resumed} delivery(ies) from ${this.outbox.outboxDir}`);
    this.enforceBound();
    for (const t of this.targets.values()) this.workers.push(this.work(t));
  }

  /** Keeps at most maxQueued deliveries: the oldest ones not in flight go to the dead-letter file. */
  private enforceBound(): void {
    const max = this.o.maxQueued ?? 10_000;
    let over = this.stats().pending - max;
    while (over > 0) {
      let oldest: { t: Target; d: PendingDelivery } | undefined;
      for (const t of this.targets.values())
        for (const d of t.queue) if (d !== t.inFlight && (!oldest || d.seq < oldest.d.seq)) oldest = { t, d };
      if (!oldest) return;
      oldest.t.queue.splice(oldest.t.queue.indexOf(oldest.d), 1);
      this.outbox.deadLetter(oldest.d, `the queue was full (${max} deliveries waiting)`);
      this.counts.deadLettered++;
      this.log(`notify: queue full (${max}): ${oldest.d.type} ${oldest.d.id} for ${oldest.t.label} moved to ${this.outbox.deadLetterPath}`);
      oldest.t.wake?.();
      over--;
    }
    this.checkDrained();
  }

  /** One webhook's worker: its deliveries in order, each until it is delivered or dead-lettered. */
  private async work(t: Target): Promise<void> {
    while (!this.closed) {
      const d = t.queue[0];
      const wait = d ? d.nextAttemptAt - Date.now() : Infinity;
      if (wait > 0) {
        await this.sleep(t, wait);
        continue;
      }
      t.inFlight = d;
      try {
        await this.attempt(t, d);
      } finally {
        t.inFlight = undefined;
      }
      this.checkDrained();
    }
  }

  private async attempt(t: Target, d: PendingDelivery): Promise<void> {
    try {
      await this.o.fence?.();
    } catch (e) {
      // No longer the leader: nothing more is sent; the outbox keeps it for the next one.
      this.log(`notify: not sending ${d.type} ${d.id}: ${(e as Error).message}`);
      this.stopped.abort(e);
      void this.close();
      return;
    }
    const at = new Date();
    let failure: string;
    let retryAfterMs: number | undefined;
    try {
      const res = await request(t.url, {
        method: "POST",
        dispatcher: this.agent,
        headers: {
          "content-type": CLOUDEVENTS_JSON,
          "user-agent": `stackwarden/${VERSION}`,
          "webhook-id": d.id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": this.webhook.sign(d.id, at, d.body),
        },
        body: d.body,
        signal: AbortSignal.any([this.stopped.signal, AbortSignal.timeout(this.o.timeoutMs ?? 10_000)]),
      });
      await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
      if (res.statusCode >= 200 && res.statusCode < 300) {
        this.done(t, d);
        this.counts.delivered++;
        if (d.attempts > 0) this.log(`notify: delivered ${d.type} ${d.id} to ${t.label} at attempt ${d.attempts + 1}`);
        return;
      }
      failure = `HTTP ${res.statusCode}`;
      retryAfterMs = parseRetryAfter(res.headers["retry-after"]);
    } catch (e) {
      if (this.closed) return; // abandoned: it stays in the outbox for the next process
      failure = describeNetworkError(e);
    }
    d.attempts++;
    d.lastError = failure;
    const max = this.o.maxAttempts ?? 12;
    if (d.attempts >= max) {
      this.done(t, d);
      this.outbox.deadLetter(d, `no 2xx answer after ${d.attempts} attempts`);
      this.counts.deadLettered++;
      this.log(
        `notify: gave up on ${d.type} ${d.id} for ${t.label} after ${d.attempts} attempts (last: ${failure}): moved to ${this.outbox.deadLetterPath}`,
      );
      return;
    }
    const delay = retryDelayMs(d.attempts, this.o.backoff, retryAfterMs, this.o.random);
    d.nextAttemptAt = Date.now() + delay;
    this.outbox.save(d);
    this.counts.retried++;
    this.log(
      `notify: ${d.type} ${d.id} to ${t.label} failed (${failure}); attempt ${d.attempts + 1} of ${max} in ${Math.round(delay / 100) / 10}s`,
    );
  }

  /** Takes a delivery off its queue and out of the outbox. */
  private done(t: Target, d: PendingDelivery): void {
    const i = t.queue.indexOf(d);
    if (i >= 0) t.queue.splice(i, 1);
    this.outbox.remove(d);
  }

  private sleep(t: Target, ms: number): Promise<void> {
    return new Promise((resolve) => {
      // Unref'd: a retry that is due later never keeps the process alive (the outbox keeps it).
      const timer = Number.isFinite(ms) ? setTimeout(() => finish(), Math.min(ms, 2 ** 31 - 1)).unref() : undefined;
      const finish = () => {
        clearTimeout(timer);
        if (t.wake === finish) t.wake = undefined;
        resolve();
      };
      t.wake = finish;
    });
  }

  private checkDrained(): void {
    for (const w of [...this.drainWaiters]) w();
  }
}

/** A URL as logs and errors may show it: origin only. */
function redactUrl(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return "an unparsable value";
  }
}

function describeNetworkError(e: unknown): string {
  const err = e as Error & { code?: string; cause?: { code?: string } };
  if (err?.name === "TimeoutError") return "no answer in time";
  const code = err?.code ?? err?.cause?.code;
  return code ? `${code}` : (err?.message ?? String(e)).split("\n")[0];
}
