/** One kind of fault, applied to matching requests at a rate (or to the first `count` of them). */
export interface FaultRule {
  /** Path prefix the rule applies to, case-insensitive; default every path. */
  match?: string;
  /** HTTP methods the rule applies to; default all. */
  methods?: string[];
  /** Answer with this status (429, 503, 410 ...) ... */
  status?: number;
  /** ... or drop the connection without an answer ... */
  drop?: boolean;
  /** ... or answer, but cut the body off halfway: the connection closes before the declared length ... */
  truncate?: boolean;
  /** ... or delay the answer by this much (a latency spike), then answer normally ... */
  delayMs?: number;
  /**
   * ... or, on a TDE PUT that starts an encryption or decryption scan, make that scan stall (at
   * `failAtPercent`, for `stallMs`, then go on; for ever without `stallMs`) or fail (at
   * `failAtPercent`, the status going back to what it was).
   */
  scan?: "stall" | "fail";
  /** For `scan`: where it stalls or fails, in percent (default 50). */
  failAtPercent?: number;
  /** For `scan: stall`: how long the scan stands still, in ms on the emulator clock (default: for ever). */
  stallMs?: number;
  /** Share of matching requests that get the fault, in [0, 1]. */
  rate?: number;
  /** Instead of a rate: the first N matching requests get the fault. */
  count?: number;
  /** Delay the client should wait, sent as `Retry-After` (rounded up to seconds) and `retry-after-ms`. */
  retryAfterMs?: number;
  /**
   * A fault of the change records the emulator writes, not of a request: a rule with `record` never
   * touches a request. `match` is then a prefix of the written resource's id. `drop`: the record is
   * lost; `delay`: it comes `delayMs` late (an Activity Log entry is listed only from then on, an
   * Event Grid delivery is sent then); `duplicate`: it comes twice, with the same id; `reorder`: it
   * is held back and comes after the next record of its channel (or after `delayMs`, default 1 s,
   * when no other comes).
   */
  record?: RecordFaultKind;
  /** For `record`: which records, the Activity Log's entries or Event Grid's deliveries; default both. */
  channel?: RecordChannel;
}

/** What can happen to a change record on its way. */
export type RecordFaultKind = "drop" | "delay" | "duplicate" | "reorder";

/** Where the emulator's change records go: its Activity Log, or Event Grid's webhook deliveries. */
export type RecordChannel = "activityLog" | "eventGrid";

/** The fault a change record gets. */
export type RecordFaultDecision = { kind: "none" } | { kind: "drop" } | { kind: "duplicate" } | { kind: "delay" | "reorder"; ms: number };

/** How long a reordered record waits for another to overtake it. */
export const DEFAULT_REORDER_WAIT_MS = 1000;

export interface FaultConfig {
  /** Seed for the decisions: the same seed and request sequence give the same faults. */
  seed: number;
  /** Latency added to every request, in ms. */
  latencyMs: number;
  rules: FaultRule[];
  /**
   * At most this many faults in a row on one path: a client that retries more often than this
   * always gets through, so rehearsals converge. 0 means no limit.
   */
  maxConsecutive: number;
}

export const NO_FAULTS: FaultConfig = { seed: 1, latencyMs: 0, rules: [], maxConsecutive: 3 };

/** A scan fault, handed to the service that starts the scan. */
export interface ScanFault {
  outcome: "stall" | "fail";
  failAtPercent?: number;
  stallMs?: number;
}

export type FaultDecision =
  | { kind: "none" }
  | { kind: "status"; status: number; retryAfterMs?: number }
  | { kind: "drop" }
  | { kind: "truncate" }
  | { kind: "delay"; ms: number }
  | { kind: "scan"; scan: ScanFault };

/**
 * Deterministic fault injection. Each decision hashes (seed, rule, method, path, n-th request on
 * that path), so concurrent clients on different paths do not perturb each other's faults.
 * Failures (a status, a dropped connection, a cut-off body) count towards `maxConsecutive`; a
 * latency spike or a scan fault is no failure of the request, so it neither counts nor is limited.
 */
export class FaultInjector {
  private config: FaultConfig;
  private readonly perPath = new Map<string, number>();
  private readonly consecutive = new Map<string, number>();
  private readonly ruleHits: number[] = [];
  private injected = 0;

  constructor(config: FaultConfig = NO_FAULTS) {
    this.config = config;
  }

  get settings(): FaultConfig {
    return this.config;
  }

  get injectedCount(): number {
    return this.injected;
  }

  /** How often each rule has hit so far, by its index in `rules` (a `count` rule stops at its count). */
  get ruleHitCounts(): readonly number[] {
    return this.config.rules.map((_, i) => this.ruleHits[i] ?? 0);
  }

  /** Zeroes the count of injected faults (the stats reset), keeping the decision counters. */
  resetInjectedCount(): void {
    this.injected = 0;
  }

  /** Replaces the configuration and forgets all counters. */
  configure(config: FaultConfig): void {
    this.config = config;
    this.perPath.clear();
    this.consecutive.clear();
    this.ruleHits.length = 0;
  }

  decide(method: string, path: string): FaultDecision {
    const rules = this.config.rules;
    if (rules.length === 0) return { kind: "none" };
    const key = `${method} ${path.toLowerCase()}`;
    const n = this.perPath.get(key) ?? 0;
    this.perPath.set(key, n + 1);
    const streak = this.consecutive.get(key) ?? 0;
    const limit = this.config.maxConsecutive;

    for (let i = 0; i < rules.length; i++) {
      const r = rules[i];
      if (r.record) continue;
      if (r.match && !key.slice(method.length + 1).startsWith(r.match.toLowerCase())) continue;
      if (r.methods && !r.methods.some((m) => m.toUpperCase() === method)) continue;
      const failing = !r.delayMs && !r.scan;
      let hit: boolean;
      if (r.count !== undefined) {
        hit = (this.ruleHits[i] ?? 0) < r.count;
      } else {
        if (failing && limit > 0 && streak >= limit) continue;
        hit = unitHash(this.config.seed, i, key, n) < (r.rate ?? 0);
      }
      if (!hit) continue;
      this.ruleHits[i] = (this.ruleHits[i] ?? 0) + 1;
      this.consecutive.set(key, failing ? streak + 1 : 0);
      this.injected += 1;
      if (r.scan) return { kind: "scan", scan: { outcome: r.scan, failAtPercent: r.failAtPercent, stallMs: r.stallMs } };
      if (r.delayMs) return { kind: "delay", ms: r.delayMs };
      if (r.truncate) return { kind: "truncate" };
      return r.drop ? { kind: "drop" } : { kind: "status", status: r.status ?? 503, retryAfterMs: r.retryAfterMs };
    }
    this.consecutive.set(key, 0);
    return { kind: "none" };
  }

  /**
   * The fault of one change record on `channel` about the resource `resourceId`: the same
   * deterministic hash as for requests, over the record rules only (`maxConsecutive` does not
   * apply: records are not retried by a client).
   */
  decideRecord(channel: RecordChannel, resourceId: string): RecordFaultDecision {
    const rules = this.config.rules;
    if (rules.length === 0) return { kind: "none" };
    const id = resourceId.toLowerCase();
    const key = `record:${channel} ${id}`;
    const n = this.perPath.get(key) ?? 0;
    this.perPath.set(key, n + 1);
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i];
      if (!r.record || (r.channel && r.channel !== channel)) continue;
      if (r.match && !id.startsWith(r.match.toLowerCase())) continue;
      const hit = r.count !== undefined ? (this.ruleHits[i] ?? 0) < r.count : unitHash(this.config.seed, i, key, n) < (r.rate ?? 0);
      if (!hit) continue;
      this.ruleHits[i] = (this.ruleHits[i] ?? 0) + 1;
      this.injected += 1;
      if (r.record === "delay") return { kind: "delay", ms: r.delayMs ?? DEFAULT_REORDER_WAIT_MS };
      if (r.record === "reorder") return { kind: "reorder", ms: r.delayMs ?? DEFAULT_REORDER_WAIT_MS };
      return { kind: r.record };
    }
    return { kind: "none" };
  }
}

/** FNV-1a over the inputs, mapped to [0, 1). */
function unitHash(seed: number, rule: number, key: string, n: number): number {
  let h = 0x811c9dc5 ^ seed;
  const s = `${rule}|${key}|${n}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Final avalanche so that nearby inputs spread over the range.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 0x100000000;
}
