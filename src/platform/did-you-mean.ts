/**
 * The known name closest to an unknown one, when it is close enough to be what was meant (a typo,
 * a missing or extra letter, a singular for a plural: `stackwarden:elasticPool` for
 * `stackwarden:elasticPools`); undefined otherwise. Compared without regard to case.
 */
export function closestName(unknown: string, known: readonly string[]): string | undefined {
  const u = unknown.toLowerCase();
  // Up to a third of the name may differ, at most 3 edits: `dbs` is not `databases`.
  const limit = Math.min(3, Math.max(1, Math.floor(u.length / 3)));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const d = editDistance(u, name.toLowerCase());
    if (d <= limit && (!best || d < best.distance)) best = { name, distance: d };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length];
}
