import { formatDuration } from "../../../platform/duration";
import { fleetOf } from "../status/stack-answers";
import type {
  AuditEntrySummary,
  ConditionType,
  DriftedResource,
  RereadStatus,
  StackStatus,
  StackStatusList,
  TickStatus,
} from "../status/stack-status";
import type { StatusBoard } from "../status/status-board";
import { complianceBadge, conditionBadge, fleetSummary, fleetTitle, syncBadge, syncText, complianceText } from "./answer-badges";
import { coverageLine } from "./coverage-html";
import { deploymentDetails, deploymentSummary } from "./deployment-html";
import { breakable, html, type Html, type HtmlValue } from "./html";
import { detailTable, detailTableOf } from "./detail-table";
import { DATABASES_ANCHOR, databasesSection, type DatabasesView } from "./databases-html";
import { fileLine, none, shortCommit, time } from "./values-html";

// The status page, rendered on the server: the overview (one row per stack) and a page per stack.
// Every value goes through `html`, which escapes it. No inline script or style (the CSP forbids
// both): behaviour comes from /assets/status-page.js, looks from /assets/status-page.css. The
// script swaps `<main id="content">` for the same element of a fresh copy of the page when the
// board changes, so what the server renders is the only rendering.

/** Drifted resources, findings and probes a row of the overview names before "and N more". */
const ROW_ITEMS = 3;

/** Drifted resources, and findings per rule, a stack's page lists before pointing to the databases' filter. */
export const DETAIL_ROWS = 10;

/**
 * The overview: the fleet's answers first (drifted and non-compliant counts, in the title too), then
 * one row per stack that leads with its two answers (Sync, Compliance) before the watcher's
 * condition, then its deployment and last tick. It fits a laptop and a phone (below 760 px the rows
 * become cards); what does not fit (the lock, probe and audit details, every finding) is on the
 * stack's own page, one click down.
 */
export function renderOverviewPage(list: StackStatusList, replica?: StatusBoard["replica"]): string {
  const n = list.stacks.length;
  const fleet = fleetOf(list.stacks);
  const body = html`<h1>Stacks</h1>
    ${replica?.role === "standby" ? html`<p class="replica" role="status">${standbyLine(replica)}</p>` : ""}
    <p class="summary">${fleetSummary(fleet, conditionCounts(list.stacks))}</p>
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
                  <th scope="col" class="col-sync">Sync</th>
                  <th scope="col" class="col-compliance">Compliance</th>
                  <th scope="col" class="col-condition">Condition</th>
                  <th scope="col" class="col-deployment">Deployment</th>
                  <th scope="col" class="col-ticks">Last tick</th>
                </tr>
              </thead>
              <tbody>
                ${list.stacks.map(overviewRow)}
              </tbody>
            </table>
          </div>`
    }`;
  return layout(fleetTitle(fleet), body, { revision: list.revision });
}

/** What a standby replica's page says first: it follows the leader's statuses, and who leads. */
function standbyLine(replica: NonNullable<StatusBoard["replica"]>): string {
  const leader = replica.leader ? `pid ${replica.leader.pid} on host ${replica.leader.host}` : "no replica yet";
  return `Standby replica: ${leader} leads; this page shows the statuses it stores, and this replica takes over if its lease lapses.`;
}

/**
 * The page of one stack: its two answers and condition first, then every part of its status, one
 * section each; its databases (`dbs`: one page, as filtered) after the findings. The drifted
 * resources and each rule's findings are listed up to DETAIL_ROWS, the rest through the
 * databases' filter, so the page stays one screen of summary at 10,000 databases.
 */
export function renderStackPage(s: StackStatus, revision: number, dbs?: DatabasesView): string {
  const body = html`<nav aria-label="Breadcrumb"><a href="/">All stacks</a></nav>
    <h1>Stack <span class="name">${breakable(s.name)}</span></h1>
    <p class="sub">
      ${breakable(s.file)}${s.schedule ? html`, ${s.schedule}` : ""}, status generation ${s.generation}, updated ${time(s.updatedAt)}
    </p>
    <p class="answers">
      <span class="answer-label">Sync</span> ${syncBadge(s)} <span class="answer-label">Compliance</span> ${complianceBadge(s)}
      <span class="answer-label">Condition</span> ${conditionBadge(s.condition.type, s)} ${reasonOf(s)}
    </p>
    ${coverageLine(s)}
    ${STACK_SECTIONS.map(([id, title, content]) =>
      id === "condition" && dbs
        ? [section("databases", "Databases", databasesSection(stackPagePath(s.name), dbs)), section(id, title, content(s))]
        : section(id, title, content(s)),
    )}`;
  return layout(`stackwarden: ${s.name}: ${syncText(s)}, ${complianceText(s)}`, body, { stack: s.name, revision });
}

/** The sections of a stack's page, in order (the answers first, the watcher's own state after): id, heading, content. */
const STACK_SECTIONS: readonly [string, string, (s: StackStatus) => HtmlValue][] = [
  ["sync", "Sync", syncDetails],
  ["compliance", "Compliance", complianceDetails],
  ["condition", "Condition", conditionDetails],
  ["deployment", "Deployment", deploymentDetails],
  ["ticks", "Ticks", tickDetails],
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

function conditionDetails(s: StackStatus): Html {
  return html`<p>${conditionBadge(s.condition.type, s)} ${reasonOf(s)} since ${time(s.condition.lastTransitionTime)}</p>
    <p>${s.condition.message}</p>`;
}

function syncDetails(s: StackStatus): Html {
  return html`<p>${syncBadge(s)} ${s.sync.message}</p>
    <p>
      ${s.drift.checkedAt ? html`Live state read ${time(s.drift.checkedAt)}` : "Live state not read yet"}${
        driftSince(s) ? html`, drifted since ${time(driftSince(s)!)}` : ""
      }
    </p>
    ${detailTableOf({
      caption: s.sync.state === "unknown" ? "Drifted resources when last read" : "Drifted resources",
      columns: ["Resource", "Property", "Desired", "Live", "Changed", "Stack file"],
      items: s.drift.resources.slice(0, DETAIL_ROWS),
      row: (r) =>
        html`<th scope="row">${breakable(r.label)}</th>
          <td>${r.property}</td>
          <td>${r.desired}</td>
          <td>${r.live ?? none()}</td>
          <td>
            ${
              r.changedBy
                ? html`<span class="who">${r.changedBy.caller ?? "an unnamed caller"}</span>, ${time(r.changedBy.at)}
                    <details class="drift-more">
                      <summary>details</summary>
                      ${breakable(r.changedBy.operation)}<br />correlation ${r.changedBy.correlationId ?? none()}<br />from the
                      ${r.changedBy.source}
                    </details>`
                : "found by the sweep"
            }
          </td>
          <td>${fileLine(r.source)}</td>`,
    })}
    ${moreInDatabases(s, s.drift.resources.length - DETAIL_ROWS, "sync=drifted", "drifted")}`;
}

/** "and N more": a link to the databases' section, filtered to them. */
function moreInDatabases(s: StackStatus, more: number, filter: string, what: string): HtmlValue {
  return more > 0
    ? html`<p class="sub">
        and ${more.toLocaleString("en-US")} more:
        <a href="${stackPagePath(s.name)}${filter ? `?${filter}` : ""}#${DATABASES_ANCHOR}">the ${what ? `${what} ` : ""}databases</a>
      </p>`
    : "";
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
    <dt>Last re-read</dt>
    <dd>${s.lastReread ? rereadLine(s.lastReread) : none("no re-read since the watcher started")}</dd>
    <dt>Commit</dt>
    <dd>${t ? commitLine(t) : none()}</dd>
    <dt>Next tick</dt>
    <dd>${s.nextTickAt ? time(s.nextTickAt) : none()}</dd>
  </dl>`;
}

function complianceDetails(s: StackStatus): Html {
  return html`<p>${complianceBadge(s)} ${s.compliance.message}</p>
    <p>${findingCounts(s)}${s.findings.checkedAt ? html`, checked ${time(s.findings.checkedAt)}` : ""}</p>
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
            items: r.findings.slice(0, DETAIL_ROWS),
            row: (f) =>
              html`<th scope="row">${breakable(f.label)}${f.facet ? html` <span class="sub">(${f.facet})</span>` : ""}</th>
                <td>${f.verdict}</td>
                <td>${f.message}</td>
                <td>${fileLine(f.source)}</td>`,
          })}
          ${
            r.findings.length > DETAIL_ROWS
              ? moreInDatabases(
                  s,
                  r.findings.length - DETAIL_ROWS + r.truncated,
                  r.level === "mandatory" ? "compliance=non-compliant" : "",
                  r.level === "mandatory" ? "non-compliant" : "",
                )
              : r.truncated
                ? html`<p class="sub">and ${r.truncated} more not listed</p>`
                : ""
          }`,
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
          <td>${e.exitCode ?? none("none: killed mid-way")}</td>
          <td>${e.commit ? shortCommit(e.commit) : none()}</td>`,
    })}`;
}

/** A page that says one thing (not found, not authorized), with a way back (`back`: a stack's page; default all stacks). */
export function renderMessagePage(title: string, message: string, back?: string): string {
  return layout(
    `stackwarden: ${title}`,
    html`<h1>${title}</h1>
      <p>${message}</p>
      <p>${back ? html`<a href="${back}">Back to the stack</a>, ` : ""}<a href="/">All stacks</a></p>`,
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

/**
 * One stack's row: Sync and Compliance lead, the condition follows, then deployment and last tick.
 * Each cell carries its column's name (`data-label`) for the narrow layout, where rows are cards
 * and the header row is hidden.
 */
function overviewRow(s: StackStatus): Html {
  return html`<tr
    data-stack="${s.name}"
    data-sync="${s.sync.state}"
    data-compliance="${s.compliance.state}"
    data-condition="${s.condition.type}"
    data-drift="${s.drift.state}"
  >
    <th scope="row"><a href="${stackPagePath(s.name)}">${breakable(s.name)}</a><span class="sub">${breakable(s.file)}</span></th>
    <td class="cell-sync" data-label="Sync">${syncBadge(s)}${syncNotes(s)}</td>
    <td class="cell-compliance" data-label="Compliance">${complianceBadge(s)}${complianceNotes(s)}</td>
    <td class="cell-condition" data-label="Condition">
      ${conditionBadge(s.condition.type, s)} ${reasonOf(s)}<span class="sub">${s.condition.message}</span>${watcherNotes(s)}
    </td>
    <td class="cell-deployment" data-label="Deployment">${deploymentSummary(s)}</td>
    <td class="cell-ticks" data-label="Last tick">
      ${s.lastTick ? html`${tickLine(s.lastTick)}<span class="sub">${commitLine(s.lastTick)}</span>` : none("no tick yet")}
      <span class="sub">next ${s.nextTickAt ? time(s.nextTickAt) : none()}</span>
    </td>
  </tr>`;
}

/** Under the sync badge: since when it drifted and what (a few), or what was last known when unknown. */
function syncNotes(s: StackStatus): HtmlValue {
  if (s.sync.state === "unknown")
    return s.sync.checkedAt
      ? html`<span class="sub"
          >last read ${time(s.sync.checkedAt)}: ${s.drift.state === "drifted" ? `${s.sync.drifted} drifted` : "in sync"}</span
        >`
      : html`<span class="sub">not read yet</span>`;
  if (s.sync.state !== "drifted") return "";
  const since = driftSince(s);
  return html`${since ? html`<span class="sub">since ${time(since)}</span>` : ""}${someOf(s.drift.resources, driftItem)}`;
}

/** Under the compliance badge: the failing rules (mandatory first, a few), or what was last known when unknown. */
function complianceNotes(s: StackStatus): HtmlValue {
  const f = s.findings;
  if (s.compliance.state === "unknown")
    return f.checkedAt ? html`<span class="sub">last checked ${time(f.checkedAt)}: ${f.mandatory} mandatory</span>` : "";
  return html`<span class="sub">${f.advisory} advisory${f.exempt ? html`, ${f.exempt} exempt` : ""}</span>${someOf(
      f.rules.filter((r) => r.failing > 0),
      (r) => html`<span class="rule">${r.ruleId}</span> (${r.level}): ${r.failing}`,
    )}`;
}

/** Under the condition: what else of the watcher's own state needs a look (a held lock, failed probes); the rest is on the stack's page. */
function watcherNotes(s: StackStatus): HtmlValue {
  const failed = s.probes.results.filter((p) => p.outcome === "failed");
  return html`${s.lock.holder ? html`<span class="sub">lock ${lockLine(s)}</span>` : ""}${
    failed.length
      ? html`<span class="sub">probes: ${probeCounts(s)}</span
          >${someOf(failed, (p) => html`${p.name}: ${p.error ? p.error.code : "failed"}`)}`
      : ""
  }`;
}

/** How many stacks are in each of the watcher's conditions. */
function conditionCounts(stacks: readonly StackStatus[]): Record<ConditionType, number> {
  const counts: Record<ConditionType, number> = { Ready: 0, Reconciling: 0, Stalled: 0 };
  for (const s of stacks) counts[s.condition.type]++;
  return counts;
}

/** The condition's reason, and the error code it comes from when there is one (`StackFileInvalid SW_CONFIG_INVALID`). */
function reasonOf(s: StackStatus): Html {
  const code = s.condition.code;
  return html`<span class="reason">${s.condition.reason}</span>${code ? html` <code class="error-code">${code}</code>` : ""}`;
}

/**
 * One drifted database as a person reads it: its name, what changed (`TDE Disabled → want Enabled`),
 * who and when (relative); the operation, correlation id, change source and stack-file line behind a disclosure.
 */
function driftItem(r: DriftedResource): Html {
  const c = r.changedBy;
  const who = c ? html`by <span class="who">${c.caller ?? "an unnamed caller"}</span>, ${time(c.at)}` : html`found by the sweep`;
  return html`<span class="drift-line"
      ><span class="drift-name">${breakable(r.label)}</span>: ${propertyName(r.property)} ${r.live ?? "unknown"} → want ${r.desired},
      ${who}</span
    >
    <details class="drift-more">
      <summary>details</summary>
      ${c ? html`${breakable(c.operation)}<br />correlation ${c.correlationId ?? none()}<br />from the ${c.source}<br />` : ""}stack file
      ${fileLine(r.source)}
    </details>`;
}

/** A drifted property as a person names it. */
function propertyName(p: DriftedResource["property"]): string {
  return p === "transparentDataEncryption" ? "TDE" : p;
}

/** Since when a stack has drifted: the earliest change a record names, else when the watcher first saw it. */
function driftSince(s: StackStatus): string | null {
  const ats = s.drift.resources.flatMap((r) => (r.changedBy ? [r.changedBy.at] : [])).filter((a) => Number.isFinite(Date.parse(a)));
  return ats.length ? ats.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : s.drift.since;
}

function tickLine(t: TickStatus): Html {
  return html`#${t.number} <span class="outcome-${t.outcome}">${t.outcome}</span> in ${formatDuration(t.durationMs)},
    ${time(t.finishedAt)}${t.consecutiveFailures > 1 ? html` (${t.consecutiveFailures} failures in a row)` : ""}`;
}

/** A re-read between ticks: its number, outcome, duration, when, and what it re-read. */
function rereadLine(r: RereadStatus): Html {
  return html`#${r.number} (after tick ${r.afterTick}) <span class="outcome-${r.outcome}">${r.outcome}</span> in
    ${formatDuration(r.durationMs)}, ${time(r.finishedAt)}: ${r.changed} changed resource(s), ${r.databases} database(s), ${r.rules} rule(s)
    judged again`;
}

function commitLine(t: TickStatus): Html {
  if (!t.commit) return none("no commit");
  return html`${shortCommit(t.commit)}${t.commitSubject ? html` <span class="subject">${t.commitSubject}</span>` : ""}`;
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
