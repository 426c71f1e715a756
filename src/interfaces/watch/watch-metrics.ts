import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Finding } from "../../domain/compliance/finding";
import { subscribeRequestEvents } from "../../platform/http/request-events";

/**
 * The Prometheus metrics of `stackwarden watch` (one registry per watcher process, not prom-client's
 * global one; every stack it watches is a `stack` label). Names are part of the product:
 * dashboards and alerts use them.
 */
export class WatchMetrics {
  readonly registry = new Registry();
  readonly ticks = new Counter({
    name: "stackwarden_watch_ticks_total",
    help: "Ticks run, by result (ok, error)",
    labelNames: ["stack", "result"] as const,
    registers: [this.registry],
  });
  readonly tickDuration = new Histogram({
    name: "stackwarden_watch_tick_duration_seconds",
    help: "Duration of a tick (git, drift, check, apply or remediation)",
    labelNames: ["stack"] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
    registers: [this.registry],
  });
  readonly lastSuccess = new Gauge({
    name: "stackwarden_watch_last_success_timestamp_seconds",
    help: "When the last tick that did not fail finished (Unix seconds)",
    labelNames: ["stack"] as const,
    registers: [this.registry],
  });
  readonly leader = new Gauge({
    name: "stackwarden_watch_leader",
    help: "1 on the replica that leads (ticks, applies, sends events), 0 on a standby",
    registers: [this.registry],
  });
  readonly drift = new Gauge({
    name: "stackwarden_drifted_resources",
    help: "Databases whose live TDE status differs from the stack, after the last tick's repairs",
    labelNames: ["stack"] as const,
    registers: [this.registry],
  });
  readonly findings = new Gauge({
    name: "stackwarden_findings",
    help: "Failing compliance findings of the last tick, by rule and enforcement level",
    labelNames: ["stack", "rule", "level"] as const,
    registers: [this.registry],
  });
  readonly applies = new Counter({
    name: "stackwarden_applies_total",
    help: "Applies made by the watcher, by trigger (commit, remediation) and exit code",
    labelNames: ["stack", "trigger", "exit_code"] as const,
    registers: [this.registry],
  });
  readonly remediations = new Counter({
    name: "stackwarden_remediations_total",
    help: "Drift repairs, by outcome (converged, failed, interrupted, refused)",
    labelNames: ["stack", "outcome"] as const,
    registers: [this.registry],
  });
  readonly changeRecords = new Counter({
    name: "stackwarden_change_records_total",
    help: "Change records received, by source (activity-log, event-grid) and result (new; duplicate: dropped by its id; correction: the Activity Log naming another caller than a pushed event of the same write; out-of-scope: a subscription or provider no watched stack depends on, dropped)",
    labelNames: ["source", "result"] as const,
    registers: [this.registry],
  });
  readonly rereads = new Counter({
    name: "stackwarden_rereads_total",
    help: "Targeted re-reads after change records (the sweeps are stackwarden_watch_ticks_total)",
    labelNames: ["stack"] as const,
    registers: [this.registry],
  });
  readonly lockWait = new Histogram({
    name: "stackwarden_lock_wait_seconds",
    help: "Time an apply waited for its stack lock",
    labelNames: ["stack"] as const,
    buckets: [0, 0.1, 0.5, 1, 5, 15, 60, 300],
    registers: [this.registry],
  });
  readonly lockBusy = new Counter({
    name: "stackwarden_lock_busy_total",
    help: "Applies that found the stack lock held by another process (and waited, or gave up)",
    labelNames: ["stack"] as const,
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: "stackwarden_api_requests_total",
    help: "HTTP attempts sent to each service (retries included), by response status (0: no response)",
    labelNames: ["service", "status"] as const,
    registers: [this.registry],
  });
  readonly apiRetries = new Counter({
    name: "stackwarden_api_retries_total",
    help: "Attempts that were retried, by service",
    labelNames: ["service"] as const,
    registers: [this.registry],
  });
  readonly apiThrottled = new Counter({
    name: "stackwarden_api_throttled_total",
    help: "429 Too Many Requests answers, by service",
    labelNames: ["service"] as const,
    registers: [this.registry],
  });
  readonly commitInfo = new Gauge({
    name: "stackwarden_watch_commit_info",
    help: "The git commit the watcher last reconciled (value 1)",
    labelNames: ["stack", "commit"] as const,
    registers: [this.registry],
  });
  private readonly seenFindingLabels = new Set<string>();
  private readonly unsubscribe: () => void;

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.unsubscribe = subscribeRequestEvents((e) => {
      this.apiRequests.inc({ service: e.service, status: String(e.status) });
      if (e.retrying) this.apiRetries.inc({ service: e.service });
      if (e.status === 429) this.apiThrottled.inc({ service: e.service });
    });
  }

  /** Starts a stack's series, so a dashboard shows 0 rather than nothing. */
  addStack(stack: string): void {
    this.ticks.inc({ stack, result: "ok" }, 0);
    this.ticks.inc({ stack, result: "error" }, 0);
  }

  /** Sets a stack's findings gauge; rule/level pairs seen before and absent now read 0. */
  setFindings(stack: string, findings: readonly Finding[]): void {
    const counts = new Map<string, number>();
    for (const f of findings) {
      if (f.verdict !== "fail") continue;
      const k = `${stack}\u0000${f.ruleId}\u0000${f.level}`;
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    for (const k of this.seenFindingLabels) if (k.startsWith(`${stack}\u0000`) && !counts.has(k)) counts.set(k, 0);
    for (const [k, n] of counts) {
      const [, rule, level] = k.split("\u0000");
      this.findings.set({ stack, rule, level }, n);
      this.seenFindingLabels.add(k);
    }
  }

  /** Records the commit a stack reconciled (one series per stack: its previous commit's is removed). */
  setCommit(stack: string, commit: string): void {
    const previous = this.commits.get(stack);
    if (previous !== undefined && previous !== commit) this.commitInfo.remove({ stack, commit: previous });
    this.commits.set(stack, commit);
    this.commitInfo.set({ stack, commit }, 1);
  }

  private readonly commits = new Map<string, string>();

  /** Stops listening to request events. */
  close(): void {
    this.unsubscribe();
  }
}
