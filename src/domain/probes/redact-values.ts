/** What a personal value is replaced with in text that is shown or kept. */
export const REDACTED = "[redacted]";

/**
 * Removes every occurrence of the given values (compared without regard to case) from a text an
 * issuer or a parser wrote, so an error that echoes a probe's parameters (a name, a certificate
 * number) cannot carry them into output, reports or state. Values shorter than 3 characters are
 * left alone: they identify no one, and replacing them would garble the message.
 */
export function redactValues(text: string, values: readonly string[]): string {
  let out = text;
  const wanted = [...new Set(values.map((v) => v.trim()).filter((v) => v.length >= 3))].sort((a, b) => b.length - a.length);
  for (const v of wanted) out = out.replace(new RegExp(escapeRegExp(v), "gi"), REDACTED);
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
