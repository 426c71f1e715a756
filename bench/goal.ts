/**
 * One line per figure that has a goal, in a fixed shape that bench/run.ts collects into the
 * closing summary: `goal: <figure>: <value> <against> (goal <op> <limit>): met|MISSED`.
 */
export interface Goal {
  /** What is measured, e.g. `stackwarden --version vs node -e 0`. */
  figure: string;
  /** The measured value, e.g. a ratio. */
  value: number;
  /** The goal: the value must be at most (default) or at least this. */
  limit: number;
  /** `max` (default): value <= limit; `min`: value >= limit. */
  kind?: "max" | "min";
  /** Unit of value and limit. Default `x` (a ratio). */
  unit?: string;
  /** Digits after the point. Default 2. */
  digits?: number;
  /** Extra conditions that must hold too (e.g. zero 429s), with what was seen. */
  also?: { ok: boolean; what: string }[];
}

/** Prints the goal line and returns whether it was met. */
export function reportGoal(g: Goal): boolean {
  const unit = g.unit ?? "x";
  const d = g.digits ?? 2;
  const within = (g.kind ?? "max") === "max" ? g.value <= g.limit : g.value >= g.limit;
  const met = within && (g.also ?? []).every((a) => a.ok);
  const op = (g.kind ?? "max") === "max" ? "<=" : ">=";
  const extra = (g.also ?? []).map((a) => `, ${a.what}`).join("");
  process.stdout.write(
    `goal: ${g.figure}: ${g.value.toFixed(d)}${unit}${extra} (goal ${op} ${g.limit}${unit}): ${met ? "met" : "MISSED"}\n`,
  );
  return met;
}

/** The median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
