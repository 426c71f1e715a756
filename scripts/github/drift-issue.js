"use strict";
/**
 * One issue per drifted stack: opened the first time a drift run finds drift (or a mandatory
 * violation), its body updated on later runs, closed with a comment when a run finds the stack
 * clean. Run by actions/github-script:
 *
 *   const track = require("./scripts/github/drift-issue.js");
 *   await track({ github, context, core });
 *
 * Environment: STACK, DRIFT_EXIT, CHECK_EXIT, REPORTS (holding summary.md from stack-results.js).
 */
const { existsSync, readFileSync } = require("node:fs");
const { join, resolve } = require("node:path");

const { fitMarkdown, COMMENT_LIMIT } = require("./fit-markdown");

const LABEL = "stackwarden-drift";
/** Room in an issue body (65,536 characters) kept for the lines before the stack's summary. */
const HEAD_ROOM = 1000;

const markerOf = (stack) => `<!-- stackwarden:drift stack=${stack} -->`;

/** Whether this run found something a person must act on. */
function needsAttention(env) {
  return env.DRIFT_EXIT === "2" || env.CHECK_EXIT === "3";
}

async function track({ github, context, core }, env = process.env) {
  const stack = env.STACK;
  if (!stack) throw new Error("drift-issue.js needs STACK");
  const { owner, repo } = context.repo;
  const marker = markerOf(stack);
  const runUrl = `${context.serverUrl}/${owner}/${repo}/actions/runs/${context.runId}`;
  const open = await github.paginate(github.rest.issues.listForRepo, { owner, repo, state: "open", labels: LABEL, per_page: 100 });
  const existing = open.find((i) => !i.pull_request && typeof i.body === "string" && i.body.startsWith(marker));

  if (!needsAttention(env)) {
    if (!existing) return { action: "none" };
    await github.rest.issues.createComment({
      owner,
      repo,
      issue_number: existing.number,
      body: `No drift in stack \`${stack}\` any more ([run ${context.runId}](${runUrl})).`,
    });
    await github.rest.issues.update({ owner, repo, issue_number: existing.number, state: "closed", state_reason: "completed" });
    core.info(`closed drift issue #${existing.number} of stack ${stack}`);
    return { action: "closed", number: existing.number };
  }

  const summaryFile = join(resolve(env.GITHUB_WORKSPACE || process.cwd(), env.REPORTS || "."), "summary.md");
  let details = existsSync(summaryFile) ? readFileSync(summaryFile, "utf8").trim() : "(no summary: see the run)";
  details = fitMarkdown(
    details,
    COMMENT_LIMIT - HEAD_ROOM - stack.length,
    `the whole summary is in [run ${context.runId}](${runUrl})'s job summary and its artifact \`reports-${stack}\``,
  ).text;
  const what = [
    env.DRIFT_EXIT === "2" && "live state differs from the stack file",
    env.CHECK_EXIT === "3" && "a mandatory compliance rule is violated",
  ]
    .filter(Boolean)
    .join(", and ");
  const body = [
    marker,
    `stackwarden's scheduled drift run found that in stack \`${stack}\` ${what}.`,
    "",
    `Last seen by [run ${context.runId}](${runUrl}) on ${new Date().toISOString()}. This issue is updated by every drift run and closed when the stack is clean again.`,
    "",
    details,
  ].join("\n");
  const title = `stackwarden drift: stack ${stack}`;
  if (existing) {
    await github.rest.issues.update({ owner, repo, issue_number: existing.number, title, body });
    core.info(`updated drift issue #${existing.number} of stack ${stack}`);
    return { action: "updated", number: existing.number };
  }
  const created = await github.rest.issues.create({ owner, repo, title, body, labels: [LABEL] });
  core.info(`opened drift issue #${created.data.number} of stack ${stack}`);
  return { action: "opened", number: created.data.number };
}

module.exports = track;
module.exports.LABEL = LABEL;
module.exports.markerOf = markerOf;
