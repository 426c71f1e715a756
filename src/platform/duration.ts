/** Units a duration may use, in milliseconds. */
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration such as `250ms`, `30s`, `5m`, `1h30m` or `2d` into milliseconds. A bare
 * number is refused: the unit is what makes `--interval 30` unambiguous. Throws an Error whose
 * message says what was expected.
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) {
    throw new Error(`expected a duration such as 500ms, 30s, 5m or 1h30m, got "${text}"`);
  }
  let total = 0;
  for (const [, n, , unit] of s.matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d)/g)) total += Number(n) * UNITS[unit];
  return Math.round(total);
}

/** Formats milliseconds for people: `450ms`, `12s`, `5m`, `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${sec && !h ? `${sec}s` : ""}` || "0s";
}
