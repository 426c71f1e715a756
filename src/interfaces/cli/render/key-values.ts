/** Renders label/value rows as aligned `Label   value` lines, skipping empty values. */
export function renderKeyValues(rows: [string, string | undefined][]): string {
  const kept = rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== "");
  const width = Math.max(...kept.map(([k]) => k.length));
  return kept.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join("\n");
}
