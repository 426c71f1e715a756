import type { TdePlanItem } from "../../../domain/reconcile/tde-plan";

/**
 * What an apply changed, for a closing line: `TDE enabled on 3 database(s) (2 listed, 1 discovered)`,
 * each action with its own count, listed and discovered (the scope's, written with `scope.remediate`)
 * apart, so the line never counts the stack file's entries as if every one had been changed.
 */
export function describeApplied(changes: readonly TdePlanItem[]): string {
  const parts: string[] = [];
  for (const [action, verb] of [
    ["enable", "enabled"],
    ["disable", "disabled"],
  ] as const) {
    const done = changes.filter((c) => c.action === action);
    if (done.length === 0) continue;
    const discovered = done.filter((c) => c.desired.discovered).length;
    const split = discovered ? ` (${done.length - discovered} listed, ${discovered} discovered)` : "";
    parts.push(`${verb} on ${done.length} database(s)${split}`);
  }
  return parts.length ? `TDE ${parts.join(", ")}` : "nothing to apply";
}
