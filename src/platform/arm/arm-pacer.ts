import type { Stage } from "../http/pipeline";

/**
 * Client-side pacing for Resource Manager's throttling (see "Understand how Azure Resource Manager
 * throttles requests"): ARM keeps token buckets per subscription, principal and operation type, plus
 * global ones per subscription, and says on every answer how many tokens remain
 * (`x-ms-ratelimit-remaining-subscription-reads`, `-global-reads`, `-tenant-reads`, and the same for
 * writes and deletes). A client that only reacts to 429 bursts through the bucket, then stalls for
 * whole seconds of `Retry-After` on every worker. This one mirrors each bucket it is told about:
 *
 * - every answer re-syncs the mirror: the server had `remaining` tokens after that request, and
 *   every request still unanswered may take one more (those the server served first are counted
 *   twice: concurrent requests are not served in the order they were sent, and the lower estimate
 *   is the safe one): `tokens = remaining - (requests in flight)`. The refill since the server
 *   answered is not credited: the time an answer waits in a busy client is not time the server refilled;
 * - between answers the mirror refills at the bucket's refill rate, learned from the answers
 *   themselves over spans of at least a second (remaining went from R1 to R2 while n requests were
 *   served: (R2 - R1 + n) / elapsed, the elapsed time taken from the first request's sending to the
 *   last one's answer, so that a slow client errs low), starting from the documented rates (reads
 *   25/s, writes and deletes 10/s; global 15 times that);
 * - a request is sent only when every bucket it draws on has a token beyond a small reserve; others
 *   wait in order, released as tokens come back, so the client runs at the refill rate with no 429;
 * - a 429 that gets through anyway (another client on the same budget) stops the lane until its
 *   `Retry-After` has passed.
 *
 * Until a lane's first answer, at most FIRST_CONTACT requests are sent: many callers starting at once
 * (a watcher's fifty stacks) would otherwise burst through the bucket before any answer has said how
 * full it is. After an answer that names no bucket nothing waits, so a service that sends no such
 * headers (the emulator with throttling off, other APIs) costs one header lookup per answer.
 */

export type RequestKind = "reads" | "writes" | "deletes";

/** Requests of a lane sent before its first answer (the smallest bucket ARM documents holds far more). */
const FIRST_CONTACT = 8;
/** Tokens left untouched in every bucket, so that a slightly optimistic estimate does not cost a 429. */
const RESERVE = 1;
/** The shortest span, and the fewest refilled tokens, a refill-rate sample is taken over (the headers count whole tokens). */
const MIN_SAMPLE_MS = 1000;
const MIN_SAMPLE_TOKENS = 25;

/** The documented refill rates, per ms: the prior until answers show the real rate. */
const DOCUMENTED_RATE_PER_MS: Record<RequestKind, number> = { reads: 25 / 1000, writes: 10 / 1000, deletes: 10 / 1000 };
const GLOBAL_FACTOR = 15;

/** One bucket as this client sees it. */
interface Mirror {
  readonly header: string;
  /** Estimated whole tokens at `at` (ms, monotonic). */
  tokens: number;
  at: number;
  ratePerMs: number;
  /** Whether `ratePerMs` was learned from answers (else the documented prior). */
  learned: boolean;
  /** The most tokens seen (remaining + 1). */
  capacity: number;
  /** The sequence number of the request whose answer last synced this mirror. */
  syncedSeq: number;
  /** Where the current refill-rate sample started. */
  anchor?: { seq: number; remaining: number; sentAt: number };
}

/** The requests of one kind in one scope (a subscription, or the tenant): one sequence, the buckets they draw on, the queue. */
class Lane {
  /** Requests sent so far (each has its sequence number). */
  sent = 0;
  /** Requests sent and not answered yet. */
  inFlight = 0;
  readonly mirrors: Mirror[] = [];
  readonly waiters: { resolve: (seq: number) => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];
  timer: NodeJS.Timeout | undefined;
  /** After a 429: nothing is sent before this time. */
  holdUntil = 0;
  /** Whether an answer has come back (before that, at most FIRST_CONTACT requests are in flight). */
  answered = false;

  constructor(
    readonly kind: RequestKind,
    /** The remaining-budget headers that describe this lane's buckets. */
    readonly headers: readonly string[],
  ) {}
}

/** A subscription (by its id in lower case), or the tenant: its lanes by kind, and how the last request spelled it. */
interface Scope {
  readonly id: string;
  spelled: string;
  readonly lanes: Partial<Record<RequestKind, Lane>>;
}

function isSegmentEnd(path: string, at: number): boolean {
  return at === path.length || path[at] === "/" || path[at] === "?";
}

/** Figures for benches and tests. */
export interface PacerStats {
  /** Requests that had to wait for a token. */
  waited: number;
  /** Answers with status 429 seen by the pacer. */
  throttled: number;
  /** Learned refill rates, per second, by scope and header. */
  rates: Record<string, number>;
}

/** Mirrors ARM's throttling buckets and paces requests to them; one per principal and endpoint (see `armPacerFor`). */
export class ArmPacer {
  private readonly scopes = new Map<string, Scope>();
  private lastScope: Scope | undefined;
  private waited = 0;
  private throttled = 0;

  constructor(private readonly clock: () => number = () => performance.now()) {}

  /** The lane of a request: its scope from the path (`/subscriptions/{id}/…`, else the tenant) and its kind from the method. */
  lane(path: string, method: string): Lane {
    const kind: RequestKind = method === "GET" || method === "HEAD" ? "reads" : method === "DELETE" ? "deletes" : "writes";
    const i = path.indexOf("/subscriptions/");
    let scope: Scope;
    if (i < 0) {
      scope = this.scope("tenant");
    } else {
      const start = i + 15;
      const last = this.lastScope;
      // Nearly every request names the subscription the previous one named: compare in place, allocate nothing.
      if (last && path.startsWith(last.spelled, start) && isSegmentEnd(path, start + last.spelled.length)) {
        scope = last;
      } else {
        let end = start;
        while (end < path.length && path[end] !== "/" && path[end] !== "?") end++;
        const spelled = path.slice(start, end);
        scope = this.scope(spelled.toLowerCase());
        scope.spelled = spelled;
        this.lastScope = scope;
      }
    }
    return (scope.lanes[kind] ??= new Lane(
      kind,
      scope.id === "tenant"
        ? [`x-ms-ratelimit-remaining-tenant-${kind}`]
        : [`x-ms-ratelimit-remaining-subscription-${kind}`, `x-ms-ratelimit-remaining-subscription-global-${kind}`],
    ));
  }

  private scope(id: string): Scope {
    let s = this.scopes.get(id);
    if (!s) {
      s = { id, spelled: id, lanes: {} };
      this.scopes.set(id, s);
    }
    return s;
  }

  /** Takes a token from every bucket of the lane and returns the request's sequence number, waiting in order until there is one. */
  acquire(lane: Lane, signal?: AbortSignal): number | Promise<number> {
    if (lane.waiters.length === 0 && this.ready(lane)) return this.take(lane);
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.waited += 1;
    return new Promise<number>((resolve, reject) => {
      const waiter: Lane["waiters"][number] = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const at = lane.waiters.indexOf(waiter);
          if (at >= 0) lane.waiters.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      lane.waiters.push(waiter);
      this.schedule(lane);
    });
  }

  /**
   * Reads an answer's remaining-budget headers (and a 429's Retry-After) for the request with
   * sequence number `seq`, sent at `sentAt` (this pacer's clock; default: now).
   */
  observe(lane: Lane, seq: number, status: number, headers: Record<string, string | string[] | undefined>, sentAt?: number): void {
    const now = this.clock();
    this.settle(lane);
    lane.answered = true;
    for (const name of lane.headers) {
      const raw = headers[name];
      if (raw === undefined) continue;
      const remaining = Number(Array.isArray(raw) ? raw[0] : raw);
      if (!Number.isFinite(remaining)) continue;
      let m = lane.mirrors.find((x) => x.header === name);
      if (!m) {
        const rate = DOCUMENTED_RATE_PER_MS[lane.kind] * (name.includes("-global-") ? GLOBAL_FACTOR : 1);
        m = { header: name, tokens: remaining, at: now, ratePerMs: rate, learned: false, capacity: remaining + 1, syncedSeq: 0 };
        lane.mirrors.push(m);
      }
      this.sync(m, lane.inFlight, seq, remaining, now, sentAt ?? now);
    }
    if (status === 429) {
      this.throttled += 1;
      const ra = headers["retry-after"];
      const seconds = Number(Array.isArray(ra) ? ra[0] : ra);
      lane.holdUntil = Math.max(lane.holdUntil, now + (Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000));
      for (const m of lane.mirrors) m.tokens = Math.min(m.tokens, 0);
    }
    if (lane.waiters.length) this.drain(lane);
  }

  /** Figures for benches and tests. */
  stats(): PacerStats {
    const rates: Record<string, number> = {};
    for (const [id, scope] of this.scopes) {
      for (const [kind, lane] of Object.entries(scope.lanes)) {
        for (const m of lane.mirrors) if (m.learned) rates[`${id}|${kind} ${m.header}`] = m.ratePerMs * 1000;
      }
    }
    return { waited: this.waited, throttled: this.throttled, rates };
  }

  /** Counts a request as answered (or failed without an answer: then a request waiting for the first contact may go). */
  settle(lane: Lane): void {
    if (lane.inFlight > 0) lane.inFlight -= 1;
  }

  /** A request failed without an answer: what waited for it may go. */
  failed(lane: Lane): void {
    this.settle(lane);
    if (lane.waiters.length) this.drain(lane);
  }

  private sync(m: Mirror, inFlight: number, seq: number, remaining: number, now: number, sentAt: number): void {
    m.capacity = Math.max(m.capacity, remaining + 1);
    // Answers overtaken by a later one tell nothing new about the level.
    if (seq < m.syncedSeq) return;
    this.learnRate(m, seq, remaining, now, sentAt);
    m.syncedSeq = seq;
    // The server had `remaining` after this request; a request still in flight may take one more.
    m.tokens = Math.min(this.cap(m), remaining - inFlight);
    m.at = now;
  }

  private learnRate(m: Mirror, seq: number, remaining: number, now: number, sentAt: number): void {
    // A full bucket discards its refill: no sample can span it.
    if (remaining >= m.capacity - 1) {
      m.anchor = undefined;
      return;
    }
    const a = m.anchor;
    if (!a) {
      m.anchor = { seq, remaining, sentAt };
      return;
    }
    // The server served the two requests somewhere between their sending and their answers: the
    // widest span it can have been (first sent to last answered) gives the lowest rate it can be.
    const elapsed = now - a.sentAt;
    const refilled = remaining - a.remaining + (seq - a.seq);
    if (elapsed < MIN_SAMPLE_MS || refilled < MIN_SAMPLE_TOKENS) return;
    const rate = refilled / elapsed;
    m.ratePerMs = m.learned ? (m.ratePerMs + rate) / 2 : rate;
    m.learned = true;
    m.anchor = { seq, remaining, sentAt };
  }

  private level(m: Mirror, now: number): number {
    if (now > m.at) {
      m.tokens = Math.min(this.cap(m), m.tokens + (now - m.at) * m.ratePerMs);
      m.at = now;
    }
    return m.tokens;
  }

  /** The most tokens the mirror may hold: the most seen (a lower bound of the bucket's size, so an idle spell cannot promise a burst the bucket does not have), and never less than one request needs. */
  private cap(m: Mirror): number {
    return Math.max(m.capacity, 1 + RESERVE);
  }

  private ready(lane: Lane): boolean {
    if (lane.mirrors.length === 0) return lane.answered || lane.inFlight < FIRST_CONTACT;
    const now = this.clock();
    if (now < lane.holdUntil) return false;
    for (const m of lane.mirrors) if (this.level(m, now) < 1 + RESERVE) return false;
    return true;
  }

  private take(lane: Lane): number {
    for (const m of lane.mirrors) m.tokens -= 1;
    lane.inFlight += 1;
    return ++lane.sent;
  }

  private drain(lane: Lane): void {
    while (lane.waiters.length && this.ready(lane)) {
      const w = lane.waiters.shift()!;
      if (w.onAbort) w.signal!.removeEventListener("abort", w.onAbort);
      w.resolve(this.take(lane));
    }
    if (lane.waiters.length) this.schedule(lane);
  }

  /** One timer per lane, set for when the scarcest bucket has a token again. */
  private schedule(lane: Lane): void {
    // Waiting for the first answer: it drains the lane when it comes.
    if (lane.timer || (lane.mirrors.length === 0 && !lane.answered)) return;
    const now = this.clock();
    let wait = Math.max(0, lane.holdUntil - now);
    for (const m of lane.mirrors) wait = Math.max(wait, (1 + RESERVE - this.level(m, now)) / m.ratePerMs);
    lane.timer = setTimeout(
      () => {
        lane.timer = undefined;
        this.drain(lane);
      },
      Math.max(1, Math.ceil(wait)),
    );
  }
}

export const ARM_PACING_STAGE = "armPacing";

/** The transport stage: waits for a token of the request's buckets, sends, and reads the answer's remaining-budget headers. */
export function armPacingStage(pacer: ArmPacer): Stage {
  return {
    name: ARM_PACING_STAGE,
    send(req, next) {
      const lane = pacer.lane(req.path, req.spec.method);
      const ticket = pacer.acquire(lane, req.spec.signal);
      // No async function here: a token at hand (nearly always) costs no extra promise.
      const go = (seq: number) => {
        const sentAt = performance.now();
        return next(req).then(
          (raw) => {
            pacer.observe(lane, seq, raw.res.statusCode, raw.res.headers, sentAt);
            return raw;
          },
          (e: unknown) => {
            pacer.failed(lane);
            throw e;
          },
        );
      };
      return typeof ticket === "number" ? go(ticket) : ticket.then(go);
    },
  };
}

const shared = new WeakMap<object, Map<string, ArmPacer>>();

/**
 * The pacer of a principal (its credential) at an endpoint: every client built on the same
 * credential (SQL, Batch AI) shares it, as they share the subscription's buckets.
 */
export function armPacerFor(credential: object, origin: string): ArmPacer {
  let byOrigin = shared.get(credential);
  if (!byOrigin) {
    byOrigin = new Map();
    shared.set(credential, byOrigin);
  }
  let pacer = byOrigin.get(origin);
  if (!pacer) {
    pacer = new ArmPacer();
    byOrigin.set(origin, pacer);
  }
  return pacer;
}
