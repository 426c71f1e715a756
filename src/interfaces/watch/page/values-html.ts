import type { StackFileLine } from "../status/stack-status";
import { breakable, html, type Html } from "./html";

// How the pages render the values that recur in them: times, absent values, commits and stack-file
// lines, the same way wherever they appear.

/** A time as `2026-01-01 10:00:00 UTC`: the one absolute format of the pages (tooltips, a time that is not ISO as it is). */
export function absoluteTime(iso: string): string {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
}

/** How long before (or after) `now` a time is, as a person says it: `just now`, `4 min ago`, `3 h ago`, `2 days ago`, `in 5 min`. */
export function relativeTime(iso: string, now = Date.now()): string | undefined {
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return undefined;
  const s = Math.round((now - at) / 1000);
  const a = Math.abs(s);
  const span =
    a < 60
      ? `${a} s`
      : a < 3600
        ? `${Math.round(a / 60)} min`
        : a < 172_800
          ? `${Math.round(a / 3600)} h`
          : `${Math.round(a / 86_400)} days`;
  if (a < 10) return "just now";
  return s >= 0 ? `${span} ago` : `in ${span}`;
}

/** A time in a `<time>` element carrying the ISO string: relative (`4 min ago`), the absolute time in its tooltip. */
export function time(iso: string, now = Date.now()): Html {
  const relative = relativeTime(iso, now);
  const absolute = absoluteTime(iso);
  return relative ? html`<time datetime="${iso}" title="${absolute}">${relative}</time>` : html`<time datetime="${iso}">${absolute}</time>`;
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
