/** One Markdown table: a header row, its rule, and a row per entry; cells are escaped so a `|` or a line break never splits a row. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map(cell).join(" | ")} |`;
  return [line(header), `|${header.map(() => "---").join("|")}|`, ...rows.map(line)].join("\n");
}

function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .trim();
}

/** `text` in a code span (empty stays empty). */
export const code = (text: string): string => (text ? `\`${text}\`` : "");
