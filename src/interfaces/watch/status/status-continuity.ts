import { complianceOf, syncOf } from "./stack-answers";
import type { FindingSummary, ProbeStatus, RuleFindings, StackStatus } from "./stack-status";

/**
 * What carries over from a stack's previous status to its next one, whatever the caller wrote in
 * those fields:
 * - `generation` +1, `updatedAt` now;
 * - `sync` and `compliance`, derived from the drift, findings and last tick (stack-answers.ts);
 * - the condition's `lastTransitionTime`, kept while its type and reason stay the same;
 * - episodes: a drift, a mandatory finding or a probe failure that was already open keeps its
 *   number (and the drift its `since`); one that opens now takes the next number of `episodes`.
 *
 * Numbers are given in a fixed order (the drift, then findings by rule, resource and facet, then
 * probes by name), so the same change from the same previous status numbers the same episodes:
 * that is what keeps event ids stable when a watcher killed before it saved a status re-derives them.
 */
export function continueStatus(prev: StackStatus, draft: StackStatus, now: Date): StackStatus {
  const at = now.toISOString();
  let episodes = prev.episodes;
  const open = () => ++episodes;

  const sameCondition = prev.condition.type === draft.condition.type && prev.condition.reason === draft.condition.reason;
  const condition = { ...draft.condition, lastTransitionTime: sameCondition ? prev.condition.lastTransitionTime : at };

  const wasDrifted = prev.drift.state === "drifted";
  const drift =
    draft.drift.state === "drifted"
      ? {
          ...draft.drift,
          since: wasDrifted ? prev.drift.since : (draft.drift.checkedAt ?? at),
          episode: wasDrifted ? prev.drift.episode : open(),
        }
      : { ...draft.drift, since: null, episode: prev.drift.episode };

  const openFindings = new Map<string, number>();
  for (const r of prev.findings.rules)
    for (const f of r.findings) if (isMandatoryFailure(r, f) && f.episode !== null) openFindings.set(findingKey(r, f), f.episode);
  const numbered = new Map<FindingSummary, number>();
  const mandatory = draft.findings.rules
    .flatMap((r) => r.findings.filter((f) => isMandatoryFailure(r, f)).map((f) => ({ key: findingKey(r, f), f })))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const { key, f } of mandatory) numbered.set(f, openFindings.get(key) ?? open());
  const findings = {
    ...draft.findings,
    rules: draft.findings.rules.map((r) => ({ ...r, findings: r.findings.map((f) => ({ ...f, episode: numbered.get(f) ?? null })) })),
  };

  const failingProbes = new Map(
    prev.probes.results.filter((p) => p.outcome === "failed" && p.episode !== null).map((p) => [p.name, p.episode!]),
  );
  const probeEpisodes = new Map<ProbeStatus, number>();
  for (const p of [...draft.probes.results]
    .filter((p) => p.outcome === "failed")
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    probeEpisodes.set(p, failingProbes.get(p.name) ?? open());
  const probes = { ...draft.probes, results: draft.probes.results.map((p) => ({ ...p, episode: probeEpisodes.get(p) ?? null })) };

  return {
    ...draft,
    name: prev.name,
    generation: prev.generation + 1,
    episodes,
    updatedAt: at,
    sync: syncOf({ drift, lastTick: draft.lastTick }),
    compliance: complianceOf({ findings, lastTick: draft.lastTick }),
    condition,
    drift,
    findings,
    probes,
  };
}

/** A finding that counts against the stack: mandatory and failing (not exempt). */
export function isMandatoryFailure(rule: Pick<RuleFindings, "level">, f: Pick<FindingSummary, "verdict">): boolean {
  return rule.level === "mandatory" && f.verdict === "fail";
}

/** What makes a finding the same one from tick to tick: its rule, resource and facet. */
export function findingKey(rule: Pick<RuleFindings, "ruleId">, f: Pick<FindingSummary, "resourceId" | "facet">): string {
  return `${rule.ruleId}\u0000${f.resourceId}\u0000${f.facet ?? ""}`;
}
