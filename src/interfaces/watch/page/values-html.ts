import type { StackFileLine } from "../status/stack-status";
import { breakable, html, type Html } from "./html";

// How the pages render the values that recur in them: times, absent values, commits and stack-file
// lines, the same way wherever they appear.

/** A time as `2026-01-01 10:00:00 UTC` in a `<time>` element carrying the ISO string. */
export function time(iso: string): Html {
  const shown = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
  return html`<time datetime="${iso}">${shown}</time>`;
}

/** An absent value, in words (`none`, `no tick yet` …), set apart from values. */
export function none(text = "none"): Html {
  return html`<span class="none">${text}</span>`;
}

/** A commit's first 12 characters, as code (kept on one line). */
export function shortCommit(commit: string): Html {
  return html`<code class="commit">${commit.slice(0, 12)}</code>`;
}

/** Where the stack file says something (`stacks/Pulumi.prod.yaml:5`), breakable at its separators. */
export function fileLine(source: StackFileLine | null): Html {
  return source ? html`<span class="file-line">${breakable(source.file)}:${source.line}</span>` : none();
}
