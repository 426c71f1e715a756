import { sameResourceId } from "../../platform/arm/resource-id";
import type { Finding } from "./finding";
import type { Exemption } from "./declared-exemption";

/** What became of one declared exemption in a run: whether it applies, and to how many findings. */
export interface ExemptionStatus {
  exemption: Exemption;
  /** Active until the end of its `expires` day (UTC); forever without one. */
  active: boolean;
  /** Findings it turned from `fail` into `exempt`. */
  applied: number;
}

/** Whether an exemption still applies at `now`. */
export function isExemptionActive(e: Exemption, now: number): boolean {
  if (!e.expires) return true;
  const end = Date.parse(`${e.expires}T23:59:59.999Z`);
  return !Number.isNaN(end) && now <= end;
}

/**
 * Turns failures covered by an active exemption into `exempt`, and reports every exemption's
 * status, so reports can show them all, expired ones included.
 */
export function applyExemptions(
  findings: Finding[],
  exemptions: readonly Exemption[],
  now: number,
): { findings: Finding[]; statuses: ExemptionStatus[] } {
  const statuses = exemptions.map((exemption) => ({ exemption, active: isExemptionActive(exemption, now), applied: 0 }));
  const out = findings.map((f) => {
    if (f.verdict !== "fail") return f;
    const s = statuses.find((x) => x.active && covers(x.exemption, f));
    if (!s) return f;
    s.applied += 1;
    return {
      ...f,
      verdict: "exempt" as const,
      exemption: s.exemption,
      message: `${f.message} (exempt: ${s.exemption.reason}${s.exemption.expires ? `, until ${s.exemption.expires}` : ""})`,
    };
  });
  return { findings: out, statuses };
}

function covers(e: Exemption, f: Finding): boolean {
  if (e.rules && !e.rules.includes(f.ruleId)) return false;
  // ARM ids compare as ARM does (case, namespace spelling); other ids (`artifact:<path>`) exactly.
  return f.resourceId.startsWith("/") ? sameResourceId(e.resourceId, f.resourceId) : e.resourceId === f.resourceId;
}
