import { formatDuration } from "../../../platform/duration";
import type {
  AuditEntrySummary,
  ConditionType,
  DriftedResource,
  StackFileLine,
  StackStatus,
  StackStatusList,
  TickStatus,
} from "../status/stack-status";
import type { StatusBoard } from "../status/status-board";
import { html, type Html, type HtmlValue } from "./html";

// The status page, rendered on the server: the overview (one row per stack) and a page per stack.
// Every value goes through `html`, which escapes it. No inline script or style (the CSP forbids
// both): behaviour comes from /assets/status-page.js, looks from /assets/status-page.css. The
// script swaps `<main id="content">` for the same element of a fresh copy of the page when the
// board changes, so what the server renders is the only rendering.

/** Drifted resources, findings and probes a row of the overview names before "and N more". */
const ROW_ITEMS = 3;

/** The overview: one row per stack with its condition, deployment, drift, ticks, findings, lock, probes and audit trail. */
export function renderOverviewPage(list: StackStatusList, replica?: StatusBoard["replica"]): string {
  const n = list.stacks.length;
  const body = html`<h1>Stacks</h1>
    ${replica?.role === "standby" ? html`<p class="replica" role="status">${standbyLine(replica)}</p>` : ""}
    <p class="summary">${summaryLine(list.stacks)}</p>
    ${
      n === 0
        ? html`<p>No stack is watched yet.</p>`
        : html`<div class="table-wrap" role="region" aria-labelledby="stacks-caption" tabindex="0">
            <table class="stacks">
              <caption id="stacks-caption">
                Watched stacks, revision ${list.revision}
              </caption>
              <thead>
                <tr>
                  <th scope="col" class="col-stack">Stack</th>
                  <th scope="col" class="col-condition">Condition</th>
                  <th scope="col" class="col-deployment">Deployment</th>
                  <th scope="col" class="col-drift">Drift</th>
                  <th scope="col" class="col-ticks">Ticks</th>
                  <th scope="col" class="col-findings">Findings</th>
                  <th scope="col" class="col-lock">Lock</th>
                  <th scope="col" class="col-probes">Probes</th>
                  <th scope="col" class="col-audit">Audit trail</th>
                </tr>
              </thead>
              <tbody>
                ${list.stacks.map(overviewRow)}
              </tbody>
            </table>
          </div>`
    }`;
  return layout(`stackwarden: ${n} stack${n === 1 ? "" : "s"}`, body, { revision: list.revision });
}

/** What a standby replica's page says first: it follows the leader's statuses, and who leads. */
function standbyLine(replica: NonNullable<StatusBoard["replica"]>): string {
  const leader = replica.leader ? `pid ${replica.leader.pid} on host ${replica.leader.host}` : "no replica yet";
  return `Standby replica: ${leader} leads; this page shows the statuses it stores, and this replica takes over if its lease lapses.`;
}

/** The page of one stack: every part of its status in full, one section each. */
export function renderStackPage(s: StackStatus, revision: number): string {
  const body = html`<nav aria-label="Breadcrumb"><a href="/">All stacks</a></nav>
    <h1>Stack <span class="name">${s.name}</span></h1>
    <p class="sub">${s.file}${s.schedule ? html`, ${s.schedule}` : ""}, status generation ${s.generation}, updated ${time(s.updatedAt)}</p>
    ${STACK_SECTIONS.map(([id, title, content]) => section(id, title, content(s)))}`;
  return layout(`stackwarden: ${s.name}`, body, { stack: s.name, revision });
}

/** The sections of a stack's page, in order: id, heading, content. */
const STACK_SECTIONS: readonly [string, string, (s: StackStatus) => HtmlValue][] = [
  ["condition", "Condition", conditionDetails],
  ["deployment", "Deployment", deploymentDetails],
  ["drift", "Drift", driftDetails],
  ["ticks", "Ticks", tickDetails],
  ["findings", "Findings", findingsDetails],
  ["lock", "Lock", lockDetails],
  ["probes", "Probes", probeDetails],
  ["audit", "Audit trail", auditDetails],
];

function section(id: string, title: string, content: HtmlValue): Html {
  return html`<section aria-labelledby="h-${id}">
    <h2 id="h-${id}">${title}</h2>
    ${content}
  </section>`;
}

/**
 * A table of the stack's page: its caption (for screen readers only when `hidden`), a header row,
 * and one row per item, whose first cell is the row's header (`<th scope="row">`, written by `row`).
 */
function detailTable<T>(t: {
  caption: HtmlValue;
  hidden?: boolean;
  columns: readonly string[];
  items: readonly T[];
  row: (item: T) => Html;
}): Html {
  return html`<table>
      <caption${t.hidden ? html` class="visually-hidden"` : ""}>
        ${t.caption}
      </caption>
      <thead>
        <tr>
          ${t.columns.map((c) => html`<th scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${t.items.map(
          (item) =>
            html`<tr>
              ${t.row(item)}
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/** The table when there is something to list, else nothing. */
function detailTableOf<T>(t: Parameters<typeof detailTable<T>>[0]): HtmlValue {
  return t.items.length ? detailTable(t) : "";
}

function conditionDetails(s: StackStatus): Html {
  return html`<p>${conditionBadge(s.condition.type)} ${reasonOf(s)} since ${time(s.condition.lastTransitionTime)}</p>
    <p>${s.condition.message}</p>`;
}

function driftDetails(s: StackStatus): Html {
  return html`<p>
      ${driftBadge(s)}
      ${s.drift.checkedAt ? html`checked ${time(s.drift.checkedAt)}` : "not checked yet"}${
        s.drift.since ? html`, drifted since ${time(s.drift.since)}` : ""
      }
    </p>
    ${detailTableOf({
      caption: "Drifted resources",
      columns: ["Resource", "Property", "Desired", "Live", "Stack file"],
      items: s.drift.resources,
      row: (r) =>
        html`<th scope="row">${r.label}</th>
          <td>${r.property}</td>
          <td>${r.desired}</td>
          <td>${r.live ?? none()}</td>
          <td>${fileLine(r.source)}</td>`,
    })}`;
}

function tickDetails(s: StackStatus): Html {
  const t = s.lastTick;
  return html`<dl>
    <dt>Last tick</dt>
    <dd>${t ? tickLine(t) : none("no tick has finished yet")}</dd>
    ${
      t?.error
        ? html`<dt>Error</dt>
            <dd>${t.error}</dd>`
        : ""
    }
    <dt>Commit</dt>
    <dd>${t ? commitLine(t) : none()}</dd>
    <dt>Next tick</dt>
    <dd>${s.nextTickAt ? time(s.nextTickAt) : none()}</dd>
  </dl>`;
}

function findingsDetails(s: StackStatus): Html {
  return html`<p>${findingCounts(s)}${s.findings.checkedAt ? html`, checked ${time(s.findings.checkedAt)}` : ""}</p>
    ${s.findings.rules.map(
      (r) =>
        html`<h3>
            <span class="rule">${r.ruleId}</span> <span class="level-${r.level}">${r.level}</span>: ${r.failing}
            failing${r.exempt ? html`, ${r.exempt} exempt` : ""}
          </h3>
          ${detailTable({
            caption: html`Findings of ${r.ruleId}`,
            hidden: true,
            columns: ["Resource", "Verdict", "Message", "Stack file"],
            items: r.findings,
            row: (f) =>
              html`<th scope="row">${f.label}${f.facet ? html` <span class="sub">(${f.facet})</span>` : ""}</th>
                <td>${f.verdict}</td>
                <td>${f.message}</td>
                <td>${fileLine(f.source)}</td>`,
          })}
          ${r.truncated ? html`<p class="sub">and ${r.truncated} more not listed</p>` : ""}`,
    )}`;
}

function lockDetails(s: StackStatus): Html {
  const last = s.lock.lastRecovered;
  return html`<p>${lockLine(s)}</p>
    ${
      last
        ? html`<p>
            Last recovered ${time(last.at)} from pid ${last.holder.pid} on ${last.holder.host} (${last.holder.command}), which no longer ran
          </p>`
        : ""
    }`;
}

function probeDetails(s: StackStatus): Html {
  return html`<p>${probeCounts(s)}${s.probes.ranAt ? html`, ran ${time(s.probes.ranAt)}` : ""}</p>
    ${detailTableOf({
      caption: "Probe results",
      hidden: true,
      columns: ["Probe", "Issuer", "Outcome", "Latency", "Status", "Error"],
      items: s.probes.results,
      row: (p) =>
        html`<th scope="row">${p.name}</th>
          <td>${p.issuer}/${p.doctype} (${p.format})</td>
          <td class="outcome-${p.outcome}">${p.outcome}</td>
          <td>${formatDuration(p.latencyMs)}</td>
          <td>${p.status ?? none()}</td>
          <td>${p.error ? html`${p.error.code}: ${p.error.message}` : none()}</td>`,
    })}`;
}

function auditDetails(s: StackStatus): Html {
  return html`<p>
      ${s.audit.head ? html`Head: seq ${s.audit.head.seq}, sha256 <code class="hash">${s.audit.head.hash}</code>` : none("no entry yet")}
    </p>
    ${detailTableOf({
      caption: "Last entries, newest first",
      columns: ["Seq", "At", "What", "Who", "Exit code", "Commit"],
      items: s.audit.last,
      row: (e) =>
        html`<th scope="row">${e.seq}</th>
          <td>${time(e.at)}</td>
          <td>${e.command}: ${auditWhat(e)}</td>
          <td>${whoLine(e)}</td>
          <td>${e.exitCode}</td>
          <td>${e.commit ? html`<code>${e.commit.slice(0, 12)}</code>` : none()}</td>`,
    })}`;
}

/** A page that says one thing (not found, not authorized). */
export function renderMessagePage(title: string, message: string): string {
  return layout(
    `stackwarden: ${title}`,
    html`<h1>${title}</h1>
      <p>${message}</p>
      <p><a href="/">All stacks</a></p>`,
    {},
  );
}

/** The path of a stack's page. */
export function stackPagePath(name: string): string {
  return `/stacks/${encodeURIComponent(name)}`;
}

function layout(title: string, body: Html, page: { stack?: string; revision?: number }): string {
  return html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="stylesheet" href="/assets/status-page.css" />
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml" />
    <script src="/assets/status-page.js" defer></script>
  </head>
  <body${page.stack !== undefined ? html` data-stack="${page.stack}"` : ""}${page.revision !== undefined ? html` data-revision="${page.revision}"` : ""}>
    <a class="skip-link" href="#content">Skip to the status</a>
    <header>
      <p class="brand"><a href="/">stackwarden watch</a></p>
      <p id="live" role="status" aria-live="polite"></p>
    </header>
    <main id="content" tabindex="-1">${body}</main>
    <footer>
      <p>As JSON: <a href="/api/v1/stacks">/api/v1/stacks</a> (schema: <a href="/api/v1/schema">/api/v1/schema</a>). Health: <a href="/healthz">/healthz</a>, <a href="/readyz">/readyz</a>.</p>
    </footer>
  </body>
</html>
`.markup;
}

function overviewRow(s: StackStatus): Html {
  return html`<tr data-stack="${s.name}" data-condition="${s.condition.type}" data-drift="${s.drift.state}">
    <th scope="row"><a href="${stackPagePath(s.name)}">${s.name}</a><span class="sub">${s.file}</span></th>
    <td class="cell-condition">${conditionBadge(s.condition.type)} ${reasonOf(s)}<span class="sub">${s.condition.message}</span></td>
    <td class="cell-deployment">${deploymentSummary(s)}</td>
    <td class="cell-drift">
      ${driftBadge(s)}${s.drift.since ? html`<span class="sub">since ${time(s.drift.since)}</span>` : ""}${someOf(s.drift.resources, driftItem)}
    </td>
    <td class="cell-ticks">
      ${s.lastTick ? html`last ${tickLine(s.lastTick)}<span class="sub">${commitLine(s.lastTick)}</span>` : none("no tick yet")}
      <span class="sub">next ${s.nextTickAt ? time(s.nextTickAt) : none()}</span>
    </td>
    <td class="cell-findings">
      ${findingCounts(s)}${someOf(
        s.findings.rules.filter((r) => r.failing > 0),
        (r) => html`<span class="rule">${r.ruleId}</span> (${r.level}): ${r.failing}`,
      )}
    </td>
    <td class="cell-lock">${lockLine(s)}</td>
    <td class="cell-probes">
      ${probeCounts(s)}${someOf(
        s.probes.results.filter((p) => p.outcome === "failed"),
        (p) => html`${p.name}: ${p.error ? p.error.code : "failed"}`,
      )}
    </td>
    <td class="cell-audit">${auditSummary(s)}</td>
  </tr>`;
}

function summaryLine(stacks: readonly StackStatus[]): string {
  const count = (t: ConditionType) => stacks.filter((s) => s.condition.type === t).length;
  const drifted = stacks.filter((s) => s.drift.state === "drifted").length;
  return `${stacks.length} stack(s): ${count("Ready")} ready, ${count("Reconciling")} reconciling, ${count("Stalled")} stalled; ${drifted} drifted`;
}

/** The condition's reason, and the error code it comes from when there is one (`StackFileInvalid SW_CONFIG_INVALID`). */
function reasonOf(s: StackStatus): Html {
  const code = s.condition.code;
  return html`<span class="reason">${s.condition.reason}</span>${code ? html` <code class="error-code">${code}</code>` : ""}`;
}

function conditionBadge(type: ConditionType): Html {
  return html`<span class="badge condition-${type.toLowerCase()}">${type}</span>`;
}

function driftBadge(s: StackStatus): Html {
  const d = s.drift;
  const text = d.state === "drifted" ? `Drifted (${d.resources.length})` : d.state === "in-sync" ? "In sync" : "Unknown";
  return html`<span class="badge drift-${d.state}">${text}</span>`;
}

function driftItem(r: DriftedResource): Html {
  return html`${r.label}: ${r.property} ${r.live ?? "unknown"}, desired
  ${r.desired}${r.source ? html` <span class="sub-inline">(${fileLine(r.source)})</span>` : ""}`;
}

function deploymentSummary(s: StackStatus): Html {
  const d = s.deployment;
  return html`<span class="state-${d.state}">${d.state}</span
    >${d.commit ? html`<span class="sub">commit <code>${d.commit.slice(0, 12)}</code></span>` : ""}${
      d.lastApply
        ? html`<span class="sub"
            >last ${d.lastApply.trigger === "remediation" ? "repair" : "apply"} ${time(d.lastApply.finishedAt)}: ${d.lastApply.converged}
            converged, ${d.lastApply.failed} failed</span
          >`
        : ""
    }`;
}

function deploymentDetails(s: StackStatus): Html {
  const d = s.deployment;
  const a = d.lastApply;
  return html`<dl>
    <dt>State</dt>
    <dd>${d.state}</dd>
    <dt>Commit reconciled</dt>
    <dd>${d.commit ? html`<code>${d.commit}</code>` : none()}</dd>
    <dt>Last apply</dt>
    <dd>
      ${
        a
          ? html`${a.trigger === "remediation" ? "repair of drift" : "apply of a commit"}, ${time(a.startedAt)} to ${time(a.finishedAt)}:
            ${a.converged} converged, ${a.failed} failed, exit code
            ${a.exitCode}${a.auditSeq !== null ? html`, audit entry ${a.auditSeq}` : ""}`
          : none()
      }
    </dd>
  </dl>`;
}

function tickLine(t: TickStatus): Html {
  return html`#${t.number} <span class="outcome-${t.outcome}">${t.outcome}</span> in ${formatDuration(t.durationMs)},
    ${time(t.finishedAt)}${t.consecutiveFailures > 1 ? html` (${t.consecutiveFailures} failures in a row)` : ""}`;
}

function commitLine(t: TickStatus): Html {
  if (!t.commit) return none("no commit");
  return html`<code>${t.commit.slice(0, 12)}</code>${t.commitSubject ? html` <span class="subject">${t.commitSubject}</span>` : ""}`;
}

function findingCounts(s: StackStatus): Html {
  const f = s.findings;
  if (!f.checkedAt) return none("not checked yet");
  return html`<span class="${f.mandatory ? "level-mandatory" : "level-none"}">${f.mandatory} mandatory</span>, ${f.advisory}
    advisory${f.exempt ? html`, ${f.exempt} exempt` : ""}`;
}

function lockLine(s: StackStatus): Html {
  const h = s.lock.holder;
  if (!h) return html`free`;
  return html`held by pid ${h.pid} on ${h.host} (${h.command}) since ${time(h.since)}`;
}

function probeCounts(s: StackStatus): Html {
  if (!s.probes.ranAt) return none("not run");
  return html`${s.probes.passed} passed, <span class="${s.probes.failed ? "outcome-failed" : ""}">${s.probes.failed} failed</span>`;
}

function auditSummary(s: StackStatus): Html {
  const head = s.audit.head;
  if (!head) return none("no entry yet");
  const e = s.audit.last[0];
  return html`head seq ${head.seq} <code class="hash" title="${head.hash}">${head.hash.slice(0, 12)}</code>${
      e ? html`<span class="sub">${e.command} by ${e.who.host}: ${auditWhat(e)}, exit ${e.exitCode}</span>` : ""
    }`;
}

function auditWhat(e: AuditEntrySummary): string {
  const outcomes = Object.entries(e.what.outcomes).map(([o, n]) => `${n} ${o}`);
  return `${e.what.changes} change(s)${outcomes.length ? ` (${outcomes.join(", ")})` : ""}${e.what.resources.length ? `: ${e.what.resources.join(", ")}` : ""}`;
}

function whoLine(e: AuditEntrySummary): string {
  return `${e.who.host}${e.who.appId ? ` (app ${e.who.appId})` : ""}`;
}

function someOf<T>(items: readonly T[], item: (t: T) => Html): HtmlValue {
  if (!items.length) return "";
  const shown = items.slice(0, ROW_ITEMS);
  const more = items.length - shown.length;
  return html`<ul class="items">
    ${shown.map((t) => html`<li>${item(t)}</li>`)}${more ? html`<li>and ${more} more</li>` : ""}
  </ul>`;
}

function fileLine(source: StackFileLine | null): Html {
  return source ? html`<span class="file-line">${source.file}:${source.line}</span>` : none();
}

function time(iso: string): Html {
  const shown = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(iso) ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : iso;
  return html`<time datetime="${iso}">${shown}</time>`;
}

function none(text = "none"): Html {
  return html`<span class="none">${text}</span>`;
}
