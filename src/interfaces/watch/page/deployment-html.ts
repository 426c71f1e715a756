import type { ApplyRecord, DeploymentStatus, StackStatus, TrailApply } from "../status/stack-status";
import { html, type Html } from "./html";
import { none, shortCommit, time } from "./values-html";

// The deployment as the pages show it: the last apply on the stack's audit trail, whoever made it
// (its actor, outcome, commit and time), then, on the stack's page, this watcher's own last apply.
// Who is the host and the credential's application id, as the trail's summary keeps them: never
// a user's or tenant's id.

/** What kind of apply an entry's command is, for people. Commands not listed show as they are. */
const APPLY_KINDS: Record<string, string> = {
  apply: "CLI apply",
  "apply --engine pulumi": "Pulumi engine apply",
  "pulumi up": "plain pulumi up",
  watch: "watcher apply of a commit",
  remediate: "watcher repair",
  recover: "apply whose record was unreadable",
};

/** An apply's kind from its command (`CLI apply`, `watcher repair` …). */
export function applyKind(command: string): string {
  return APPLY_KINDS[command] ?? command;
}

/** The deployment's state in words; `failed` and `interrupted` marked as failures. */
function outcomeLine(d: DeploymentStatus): Html {
  const last = d.last;
  switch (d.state) {
    case "none":
      return none("no apply on record");
    case "unknown":
      return none("no apply in the audit trail's last entries");
    case "applying":
      return html`<span class="outcome-applying"
        >${d.applying === "remediation" ? "Repairing drift now" : "Applying a new commit now"}</span
      >`;
    case "succeeded":
      return html`<span class="outcome-succeeded">Succeeded</span>`;
    case "failed":
      return html`<span class="outcome-failed">Failed${typeof last?.exitCode === "number" ? html` (exit ${last.exitCode})` : ""}</span>`;
    case "interrupted":
      return html`<span class="outcome-failed">Interrupted</span> <span class="sub-inline">(killed mid-way)</span>`;
  }
}

/** The overview's Deployment cell: outcome, then actor, commit and time of the last apply; details are one click down. */
export function deploymentSummary(s: StackStatus): Html {
  const d = s.deployment;
  const a = d.last;
  if (!a) return outcomeLine(d);
  return html`${outcomeLine(d)}<span class="sub">${applyKind(a.command)} by ${a.who.host}</span
    ><span class="sub">${a.commit ? html`commit ${shortCommit(a.commit)}` : none("no commit")}, ${time(a.at)}</span>`;
}

/** The stack page's Deployment section: the last apply by anyone in full, the commit deployed, and this watcher's own last apply. */
export function deploymentDetails(s: StackStatus): Html {
  const d = s.deployment;
  return html`<dl>
    <dt>State</dt>
    <dd>${outcomeLine(d)}</dd>
    <dt>Last apply</dt>
    <dd>${d.last ? trailApplyLine(d.last) : none("none on the audit trail")}</dd>
    <dt>Commit deployed</dt>
    <dd>${d.commit ? html`<code>${d.commit}</code>` : none()}</dd>
    <dt>This watcher's last apply</dt>
    <dd>${d.lastApply ? ownApplyLine(d.lastApply) : none()}</dd>
  </dl>`;
}

function trailApplyLine(a: TrailApply): Html {
  const changes = Object.entries(a.what.outcomes).map(([o, n]) => `${n} ${o}`);
  return html`${applyKind(a.command)} (<code>${a.command}</code>) by
  ${a.who.host}${a.who.appId ? html`, app <code>${a.who.appId}</code>` : ""}, ${time(a.at)}: ${a.what.changes}
  change(s)${changes.length ? ` (${changes.join(", ")})` : ""}, exit code ${a.exitCode ?? none("none (killed mid-way)")}, audit entry
  ${a.seq}`;
}

function ownApplyLine(a: ApplyRecord): Html {
  return html`${a.trigger === "remediation" ? "repair of drift" : "apply of a commit"}, ${time(a.startedAt)} to ${time(a.finishedAt)}:
  ${a.converged} converged, ${a.failed} failed, exit code ${a.exitCode}${a.auditSeq !== null ? html`, audit entry ${a.auditSeq}` : ""}`;
}
