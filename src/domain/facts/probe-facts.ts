import type { ProbeFacts } from "../compliance/facts";
import type { ProbeSpec } from "../probes/probe-config";
import type { StoredProbeRun } from "../probes/probe-results-store";

/**
 * The stack's probes with their results from the last run, in the rules' terms. A probe is judged
 * by the result of the same probe: same name, issuer, doctype and format (a result of a probe the
 * stack has since changed says nothing about the new one, so it counts as no result). Results of
 * probes the stack no longer declares are left out. The location is where the stack declares the
 * probe now, not where it was when it ran.
 */
export function probeFacts(probes: readonly ProbeSpec[], run: StoredProbeRun | undefined): ProbeFacts[] {
  return probes.map((p) => {
    const subject = { name: p.name, issuer: p.issuer, doctype: p.doctype, format: p.format, source: p.source };
    const r = run?.results.find((x) => x.name === p.name && x.issuer === p.issuer && x.doctype === p.doctype && x.format === p.format);
    if (!r) return { ...subject, outcome: undefined };
    return {
      ...subject,
      outcome: r.outcome,
      ...(typeof r.latencyMs === "number" ? { latencyMs: r.latencyMs } : {}),
      ...(typeof r.size === "number" ? { size: r.size } : {}),
      ...(typeof r.sha256 === "string" ? { sha256: r.sha256 } : {}),
      ...(r.error ? { error: { code: String(r.error.code), message: String(r.error.message) } } : {}),
    };
  });
}
