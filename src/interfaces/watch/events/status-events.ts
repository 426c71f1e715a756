import { createHash } from "node:crypto";
import { CloudEvent } from "cloudevents";
import type { ApplyRecord, FindingSummary, RuleFindings, StackStatus } from "../status/stack-status";
import { findingKey, isMandatoryFailure } from "../status/status-continuity";
import { EVENT_TYPES, type EventDataByType, type FindingEventData, type StackwardenEvent, type StackwardenEventType } from "./event-types";

/** The default CloudEvents `source` of the watcher's events. */
export const DEFAULT_EVENT_SOURCE = "/stackwarden/watch";

export interface EventContext {
  /** The CloudEvents `source`. Default DEFAULT_EVENT_SOURCE. */
  source?: string;
  /** The board's incarnation (StatusBoard.incarnation): part of every id, so ids of another board's episodes differ. */
  incarnation: string;
}

/**
 * The events between two successive statuses of a stack (`prev` undefined: it was just put on the
 * board; `next` undefined: taken off; neither announces anything). In this order:
 * - `lock.recovered` when a new stale-lock recovery is recorded;
 * - `apply.*` / `remediation.*` when a new apply is recorded, by its trigger and exit code;
 * - `drift.detected` when a drift episode opens, `drift.resolved` when the stack is in sync again;
 * - `finding.raised` / `finding.cleared` for each mandatory failure that opens or ends (cleared only
 *   once findings were checked again);
 * - `probe.failed` when a probe that was not failing fails.
 * Ids are derived from the board's incarnation, the stack and the episode (or the apply's or
 * recovery's own identity), so deriving the same change again gives the same ids.
 */
export function eventsBetween(prev: StackStatus | undefined, next: StackStatus | undefined, ctx: EventContext): StackwardenEvent[] {
  if (!prev || !next) return [];
  const out: StackwardenEvent[] = [];
  const emit = <T extends StackwardenEventType>(type: T, identity: (string | number | null)[], data: EventDataByType[T]) =>
    out.push(
      makeEvent(
        type,
        next.name,
        data,
        eventId(ctx.incarnation, next.name, type, identity),
        ctx.source ?? DEFAULT_EVENT_SOURCE,
        next.updatedAt,
      ),
    );

  const rec = next.lock.lastRecovered;
  if (rec && !sameJson(rec, prev.lock.lastRecovered)) {
    emit(EVENT_TYPES.lockRecovered, [rec.holder.pid, rec.holder.host, rec.holder.since, rec.at], {
      stack: next.name,
      previousHolder: rec.holder,
      recoveredAt: rec.at,
    });
  }

  const apply = next.deployment.lastApply;
  if (apply && !sameJson(apply, prev.deployment.lastApply)) {
    emit(applyType(apply), [apply.trigger, apply.startedAt, apply.finishedAt, apply.auditSeq], { stack: next.name, ...apply });
  }

  const wasDrifted = prev.drift.state === "drifted";
  const isDrifted = next.drift.state === "drifted";
  const sameEpisode = wasDrifted && isDrifted && prev.drift.episode === next.drift.episode;
  if (wasDrifted && !sameEpisode && next.drift.state !== "unknown") {
    emit(EVENT_TYPES.driftResolved, [prev.drift.episode], {
      stack: next.name,
      episode: prev.drift.episode,
      since: prev.drift.since,
      resolvedAt: next.drift.checkedAt ?? next.updatedAt,
      resources: prev.drift.resources,
    });
  }
  if (isDrifted && !sameEpisode) {
    emit(EVENT_TYPES.driftDetected, [next.drift.episode], {
      stack: next.name,
      episode: next.drift.episode,
      since: next.drift.since ?? next.updatedAt,
      resources: next.drift.resources,
    });
  }

  const before = openFindings(prev);
  const after = openFindings(next);
  // Each in episode order, so that the events of one change always come in the same order.
  if (next.findings.checkedAt !== null) {
    for (const [key, f] of before) {
      if (after.get(key)?.episode !== f.episode) emit(EVENT_TYPES.findingCleared, [f.episode, key], f);
    }
  }
  for (const [key, f] of after) {
    if (before.get(key)?.episode !== f.episode) emit(EVENT_TYPES.findingRaised, [f.episode, key], f);
  }

  const failing = new Map(prev.probes.results.filter((p) => p.outcome === "failed").map((p) => [p.name, p.episode]));
  for (const p of next.probes.results) {
    if (p.outcome !== "failed" || p.episode === null || failing.get(p.name) === p.episode) continue;
    emit(EVENT_TYPES.probeFailed, [p.episode, p.name], {
      stack: next.name,
      episode: p.episode,
      ranAt: next.probes.ranAt,
      probe: {
        name: p.name,
        issuer: p.issuer,
        doctype: p.doctype,
        format: p.format,
        latencyMs: p.latencyMs,
        status: p.status,
        error: p.error,
      },
    });
  }
  return out;
}

/**
 * A stable event id: a UUID (version 8, RFC 9562's custom layout) made of the sha-256 of what
 * identifies the change. Receivers deduplicate on it (it is also the Standard Webhooks `webhook-id`).
 */
export function eventId(incarnation: string, stack: string, type: string, identity: readonly (string | number | null)[]): string {
  const h = createHash("sha256")
    .update(JSON.stringify([incarnation, stack, type, ...identity]))
    .digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString("hex");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

/** A CloudEvent, checked by the cloudevents SDK against the 1.0 specification, as the plain object sent as JSON. */
export function makeEvent<T extends StackwardenEventType>(
  type: T,
  stack: string,
  data: EventDataByType[T],
  id: string,
  source: string,
  time: string,
): StackwardenEvent<T> {
  const ce = new CloudEvent<EventDataByType[T]>({
    specversion: "1.0",
    id,
    source,
    type,
    subject: stack,
    time,
    datacontenttype: "application/json",
    data,
  });
  return ce.toJSON() as unknown as StackwardenEvent<T>;
}

function applyType(a: ApplyRecord): StackwardenEventType {
  const ok = a.exitCode === 0;
  if (a.trigger === "remediation") return ok ? EVENT_TYPES.remediationApplied : EVENT_TYPES.remediationFailed;
  return ok ? EVENT_TYPES.applySucceeded : EVENT_TYPES.applyFailed;
}

/** The mandatory failures of a status, by finding key, as event data. */
function openFindings(s: StackStatus): Map<string, FindingEventData & { episode: number }> {
  const open: [string, FindingEventData & { episode: number }][] = [];
  for (const r of s.findings.rules)
    for (const f of r.findings)
      if (isMandatoryFailure(r, f) && f.episode !== null) open.push([findingKey(r, f), findingData(s.name, r, f, f.episode)]);
  return new Map(open.sort((a, b) => a[1].episode - b[1].episode));
}

function findingData(stack: string, r: RuleFindings, f: FindingSummary, episode: number): FindingEventData & { episode: number } {
  return {
    stack,
    episode,
    ruleId: r.ruleId,
    level: "mandatory",
    resourceId: f.resourceId,
    label: f.label,
    message: f.message,
    facet: f.facet,
    source: f.source,
  };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
