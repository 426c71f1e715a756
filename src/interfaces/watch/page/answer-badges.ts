import type { FleetAnswers } from "../status/stack-answers";
import type { ConditionType, StackStatus } from "../status/stack-status";
import { html, type Html } from "./html";

// The badges that answer a person's first two questions (is it in sync? is it compliant?) and the
// watcher's condition after them, on the overview's rows, a stack's page and the fleet summary.
// Each badge says its state in words; its colour only repeats the words.
//
// Green means one thing on these pages: the stack is in sync AND compliant. A good answer beside a
// bad one (in sync but non-compliant) is shown neutral, so a row with anything to do has no green
// in it; and the watcher's Ready is never green, for Ready says the watcher did its work, not that
// the stack is fine (Argo CD likewise never paints an out-of-sync application green).

/** A badge's colour, by what it means: good (all fine), ok (fine, but the stack is not), warn (unknown or in progress), bad (needs a person). */
export type Tone = "good" | "ok" | "warn" | "bad" | "info";

/** Whether a stack is fine on both answers: only then is anything on its row green. */
export function allFine(s: Pick<StackStatus, "sync" | "compliance">): boolean {
  return s.sync.state === "in-sync" && s.compliance.state === "compliant";
}

/** The sync answer's words: `In sync`, `Drifted (N)` or `Unknown`. */
export function syncText(s: Pick<StackStatus, "sync">): string {
  const y = s.sync;
  return y.state === "drifted" ? `Drifted (${y.drifted})` : y.state === "in-sync" ? "In sync" : "Unknown";
}

/** The compliance answer's words: `Compliant`, `N mandatory violation(s)` or `Unknown`. */
export function complianceText(s: Pick<StackStatus, "compliance">): string {
  const c = s.compliance;
  if (c.state === "unknown") return "Unknown";
  if (c.state === "compliant") return "Compliant";
  return `${c.mandatory} mandatory violation${c.mandatory === 1 ? "" : "s"}`;
}

/** The sync badge: bad when drifted, warn when unknown, green only when the stack is fine on both answers. */
export function syncBadge(s: Pick<StackStatus, "sync" | "compliance">): Html {
  const state = s.sync.state;
  const tone: Tone = state === "drifted" ? "bad" : state === "unknown" ? "warn" : allFine(s) ? "good" : "ok";
  return badge(`answer sync-${state}`, tone, syncText(s));
}

/** The compliance badge: bad when a mandatory rule fails, warn when unknown, green only when the stack is fine on both answers. */
export function complianceBadge(s: Pick<StackStatus, "sync" | "compliance">): Html {
  const state = s.compliance.state;
  const tone: Tone = state === "non-compliant" ? "bad" : state === "unknown" ? "warn" : allFine(s) ? "good" : "ok";
  return badge(`answer compliance-${state}`, tone, complianceText(s));
}

/**
 * The watcher's condition: Stalled needs a person, Reconciling is under way, Ready is never green,
 * and blue (info) only beside a stack that is fine: beside a drifted or non-compliant one it is
 * neutral, for a coloured Ready there reads as good.
 */
export function conditionBadge(type: ConditionType, s?: Pick<StackStatus, "sync" | "compliance">): Html {
  const tone: Tone = type === "Stalled" ? "bad" : type === "Reconciling" ? "warn" : s && !allFine(s) ? "ok" : "info";
  return badge(`condition condition-${type.toLowerCase()}`, tone, type);
}

function badge(kind: string, tone: Tone, text: string): Html {
  return html`<span class="badge ${kind} tone-${tone}">${text}</span>`;
}

/**
 * The fleet's answers as a page title (`stackwarden: 1 drifted, 1 non-compliant of 2 stacks`): what
 * a browser tab, a bookmark or a screen reader says first.
 */
export function fleetTitle(f: FleetAnswers): string {
  if (f.stacks === 0) return "stackwarden: no stack watched";
  const unknown = f.unknown ? `, ${f.unknown} unknown` : "";
  return `stackwarden: ${f.drifted} drifted, ${f.nonCompliant} non-compliant${unknown} of ${f.stacks} stack${f.stacks === 1 ? "" : "s"}`;
}

/**
 * The fleet summary: drifted and non-compliant counts first (as badges: bad when not 0, green only
 * when every stack is fine), then unknown and fine ones, then the watcher's conditions.
 */
export function fleetSummary(f: FleetAnswers, conditions: Record<ConditionType, number>): Html {
  const everyFine = f.stacks > 0 && f.fine === f.stacks;
  const count = (n: number, text: string, kind: string) =>
    badge(`fleet fleet-${kind}`, n ? "bad" : everyFine ? "good" : "ok", `${n} ${text}`);
  const violations = f.mandatory ? html` (${f.mandatory} mandatory violation${f.mandatory === 1 ? "" : "s"})` : "";
  const unknown = f.unknown ? html`, ${badge("fleet fleet-unknown", "warn", `${f.unknown} unknown`)}` : "";
  return html`${f.stacks} stack${f.stacks === 1 ? "" : "s"}: ${count(f.drifted, "drifted", "drifted")},
    ${count(f.nonCompliant, "non-compliant", "non-compliant")}${violations}${unknown}; ${f.fine} in sync and compliant.
    <span class="watcher-counts"
      >Watcher: ${conditions.Ready} ready, ${conditions.Reconciling} reconciling, ${conditions.Stalled} stalled.</span
    >`;
}
