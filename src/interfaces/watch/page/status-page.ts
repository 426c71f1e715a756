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
import { html, type Html, type HtmlValue } from "./html";

// The status page, rendered on the server: the overview (one row per stack) and a page per stack.
// Every value goes through `html`, which escapes it. No inline script or style (the CSP forbids
// both): behaviour comes from /assets/status-page.js, looks from /assets/status-page.css. The
// script swaps `<main id="content">` for the same element of a fresh copy of the page when the
// board changes, so what the server renders is the only rendering.

/** Drifted resources, findings and probes a row of the overview names before "and N more". */
const ROW_ITEMS = 3;

/** The overview: one row per stack with its condition, deployment, drift, ticks, findings, lock, probes and audit trail. */
export function renderOverviewPage(list: StackStatusList): string {
  const n = list.stacks.length;
  const body = html`<h1>Stacks</h1>
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

/** The page of one stack: every part of its status in full. */
export function renderStackPage(s: StackStatus, revision: number): string {
  const body = html`<nav aria-label="Breadcrumb"><a href="/">All stacks</a></nav>
    <h1>Stack <span class="name">${s.name}</span></h1>
    <p class="sub">${s.file}${s.schedule ? html`, ${s.schedule}` : ""}, status generation ${s.generation}, updated ${time(s.updatedAt)}</p>
    <section aria-labelledby="h-condition">
      <h2 id="h-condition">Condition</h2>
      <p>
        ${conditionBadge(s.condition.type)} <span class="reason">${s.condition.reason}</span> since ${time(s.condition.lastTransitionTime)}
      </p>
      <p>${s.condition.message}</p>
    </section>
    <section aria-labelledby="h-deployment">
      <h2 id="h-deployment">Deployment</h2>
      ${deploymentDetails(s)}
    </section>
    <section aria-labelledby="h-drift">
      <h2 id="h-drift">Drift</h2>
      <p>
        ${driftBadge(s)}
        ${s.drift.checkedAt ? html`checked ${time(s.drift.checkedAt)}` : "not checked yet"}${
          s.drift.since ? html`, drifted since ${time(s.drift.since)}` : ""
        }
      </p>
      ${
        s.drift.resources.length
          ? html`<table>
              <caption>
                Drifted resources
              </caption>
              <thead>
                <tr>
                  <th scope="col">Resource</th>
                  <th scope="col">Property</th>
                  <th scope="col">Desired</th>
                  <th scope="col">Live</th>
                  <th scope="col">Stack file</th>
                </tr>
              </thead>
              <tbody>
                ${s.drift.resources.map(
                  (r) =>
                    html`<tr>
                      <th scope="row">${r.label}</th>
                      <td>${r.property}</td>
                      <td>${r.desired}</td>
                      <td>${r.live ?? none()}</td>
                      <td>${fileLine(r.source)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : ""
      }
    </section>
    <section aria-labelledby="h-ticks">
      <h2 id="h-ticks">Ticks</h2>
      <dl>
        <dt>Last tick</dt>
        <dd>${s.lastTick ? tickLine(s.lastTick) : none("no tick has finished yet")}</dd>
        ${
          s.lastTick?.error
            ? html`<dt>Error</dt>
                <dd>${s.lastTick.error}</dd>`
            : ""
        }
        <dt>Commit</dt>
        <dd>${s.lastTick ? commitLine(s.lastTick) : none()}</dd>
        <dt>Next tick</dt>
        <dd>${s.nextTickAt ? time(s.nextTickAt) : none()}</dd>
      </dl>
    </section>
    <section aria-labelledby="h-findings">
      <h2 id="h-findings">Findings</h2>
      <p>${findingCounts(s)}${s.findings.checkedAt ? html`, checked ${time(s.findings.checkedAt)}` : ""}</p>
      ${s.findings.rules.map(
        (r) =>
          html`<h3>
              <span class="rule">${r.ruleId}</span> <span class="level-${r.level}">${r.level}</span>: ${r.failing}
              failing${r.exempt ? html`, ${r.exempt} exempt` : ""}
            </h3>
            <table>
              <caption class="visually-hidden">
                Findings of ${r.ruleId}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Resource</th>
                  <th scope="col">Verdict</th>
                  <th scope="col">Message</th>
                  <th scope="col">Stack file</th>
                </tr>
              </thead>
              <tbody>
                ${r.findings.map(
                  (f) =>
                    html`<tr>
                      <th scope="row">${f.label}${f.facet ? html` <span class="sub">(${f.facet})</span>` : ""}</th>
                      <td>${f.verdict}</td>
                      <td>${f.message}</td>
                      <td>${fileLine(f.source)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
            ${r.truncated ? html`<p class="sub">and ${r.truncated} more not listed</p>` : ""}`,
      )}
    </section>
    <section aria-labelledby="h-lock">
      <h2 id="h-lock">Lock</h2>
      <p>${lockLine(s)}</p>
      ${
        s.lock.lastRecovered
          ? html`<p>
              Last recovered ${time(s.lock.lastRecovered.at)} from pid ${s.lock.lastRecovered.holder.pid} on
              ${s.lock.lastRecovered.holder.host} (${s.lock.lastRecovered.holder.command}), which no longer ran
            </p>`
          : ""
      }
    </section>
    <section aria-labelledby="h-probes">
      <h2 id="h-probes">Probes</h2>
      <p>${probeCounts(s)}${s.probes.ranAt ? html`, ran ${time(s.probes.ranAt)}` : ""}</p>
      ${
        s.probes.results.length
          ? html`<table>
              <caption class="visually-hidden">
                Probe results
              </caption>
              <thead>
                <tr>
                  <th scope="col">Probe</th>
                  <th scope="col">Issuer</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Status</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                ${s.probes.results.map(
                  (p) =>
                    html`<tr>
                      <th scope="row">${p.name}</th>
                      <td>${p.issuer}/${p.doctype} (${p.format})</td>
                      <td class="outcome-${p.outcome}">${p.outcome}</td>
                      <td>${formatDuration(p.latencyMs)}</td>
                      <td>${p.status ?? none()}</td>
                      <td>${p.error ? html`${p.error.code}: ${p.error.message}` : none()}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : ""
      }
    </section>
    <section aria-labelledby="h-audit">
      <h2 id="h-audit">Audit trail</h2>
      <p>
        ${s.audit.head ? html`Head: seq ${s.audit.head.seq}, sha256 <code class="hash">${s.audit.head.hash}</code>` : none("no entry yet")}
      </p>
      ${
        s.audit.last.length
          ? html`<table>
              <caption>
                Last entries, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Seq</th>
                  <th scope="col">At</th>
                  <th scope="col">What</th>
                  <th scope="col">Who</th>
                  <th scope="col">Exit code</th>
                  <th scope="col">Commit</th>
                </tr>
              </thead>
              <tbody>
                ${s.audit.last.map(
                  (e) =>
                    html`<tr>
                      <th scope="row">${e.seq}</th>
                      <td>${time(e.at)}</td>
                      <td>${e.command}: ${auditWhat(e)}</td>
                      <td>${whoLine(e)}</td>
                      <td>${e.exitCode}</td>
                      <td>${e.commit ? html`<code>${e.commit.slice(0, 12)}</code>` : none()}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
          : ""
      }
    </section>`;
  return layout(`stackwarden: ${s.name}`, body, { stack: s.name, revision });
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
    <td class="cell-condition">
      ${conditionBadge(s.condition.type)} <span class="reason">${s.condition.reason}</span><span class="sub">${s.condition.message}</span>
    </td>
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
