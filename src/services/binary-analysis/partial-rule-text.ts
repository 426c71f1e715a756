import type { PartialYaraRule } from "./types";

/**
 * Renders a partial rule (the spec's `yara` schema) as YARA text: `meta` and `strings`, and no
 * `condition`, as the service means it (the author writes the condition). Strings named `wide_*`
 * get the `wide` modifier.
 */
export function renderPartialRule(rule: PartialYaraRule): string {
  const lines = [`rule ${safeIdentifier(rule.name)}`, "{", "  meta:"];
  for (const [k, v] of Object.entries(rule.meta ?? {})) lines.push(`    ${safeIdentifier(k)} = "${yaraText(String(v))}"`);
  lines.push("  strings:");
  for (const [name, text] of rule.strings ?? []) {
    lines.push(`    $${safeIdentifier(name)} = "${yaraText(text)}"${name.startsWith("wide_") ? " wide" : ""}`);
  }
  lines.push("}");
  return lines.join("\n");
}

/** Escapes text for a YARA double-quoted string. */
export function yaraText(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === '"') out += '\\"';
    else if (ch === "\t") out += "\\t";
    else if (ch === "\n") out += "\\n";
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else for (const b of Buffer.from(ch, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
  }
  return out;
}

function safeIdentifier(s: string): string {
  const id = s.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(id) ? id : `_${id}`;
}
