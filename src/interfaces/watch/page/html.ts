/**
 * HTML that is safe by construction: `html\`…\`` escapes every value it interpolates unless the value
 * is itself Html (made by `html` or, for a few fixed strings, `trustedHtml`). A stack name, a finding
 * message or a commit subject holding `<script>` therefore renders as text, in element content and
 * in quoted attribute values alike.
 */
export class Html {
  /** Use `html` or `trustedHtml`; this is the escaped markup. */
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

/** What `html` accepts between `${…}`: text (escaped), numbers, Html, lists of those, or nothing (null, undefined, false render as ""). */
export type HtmlValue = Html | string | number | null | undefined | false | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "`": "&#96;" };

/** Escapes text for element content and for attribute values in double or single quotes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

/** A template whose interpolated values are escaped (see Html). */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Marks a fixed string of our own as markup. Never pass it anything that came from outside. */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}

function render(v: HtmlValue): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.markup;
  if (Array.isArray(v)) return v.map(render).join("");
  return escapeHtml(String(v));
}

/**
 * Text with a break opportunity (`<wbr>`) after each `/`, `.` and `:`: a stack file's path, a resource's
 * `rg/server/db` label or an ARM id then wraps at its separators on a narrow screen rather than
 * widening the page. The text itself is unchanged (`<wbr>` adds no character) and escaped.
 */
export function breakable(text: string): Html {
  return html`${text.split(/(?<=[/.:])/).map((part, i) => (i ? html`<wbr />${part}` : part))}`;
}
