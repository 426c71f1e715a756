"use strict";
/**
 * The one stackwarden comment of a pull request, created the first time a run has stacks to report
 * and updated in place on every later run (found by its marker and its bot author). Run by actions/github-script:
 *
 *   const upsert = require("./scripts/github/pr-comment.js");
 *   await upsert({ github, context, core });
 *
 * Environment: MATRIX (the `stacks --output json` of the run), SUMMARIES (the folder where each
 * stack's summary artifact was downloaded: SUMMARIES/summary-<stack>/summary.md).
 */
const { existsSync, readFileSync } = require("node:fs");
const { join, resolve } = require("node:path");

const MARKER = "<!-- stackwarden:pull-request -->";
/** GitHub refuses comments over 65 536 characters; keep room for the footer. */
const MAX_BODY = 60000;

/** The comment's text: one section per stack in the matrix, in its order. */
function commentBody(env, context) {
  const stacks = JSON.parse(env.MATRIX || '{"include":[]}').include.map((s) => s.stack);
  const runUrl = `${context.serverUrl}/${context.repo.owner}/${context.repo.repo}/actions/runs/${context.runId}`;
  const sha = (context.payload.pull_request && context.payload.pull_request.head && context.payload.pull_request.head.sha) || context.sha;
  const parts = [MARKER, `## stackwarden: ${stacks.length} stack(s) changed by this pull request`, ""];
  if (stacks.length === 0) parts.push("No stack file, and nothing every stack depends on, changed: nothing to plan or check.", "");
  const failed = [];
  for (const stack of stacks) {
    // Relative to the workspace, as the download step wrote it.
    const file = join(resolve(env.GITHUB_WORKSPACE || process.cwd(), env.SUMMARIES || "summaries"), `summary-${stack}`, "summary.md");
    if (!existsSync(file)) {
      failed.push(stack);
      parts.push(`### :x: stack \`${stack}\``, "", "No results: the job stopped before its summary (see the run).", "");
      continue;
    }
    const text = readFileSync(file, "utf8").trim();
    if (/verdict=fail/.test(text.split("\n", 1)[0])) failed.push(stack);
    parts.push(text, "");
  }
  if (stacks.length)
    parts.splice(2, 0, failed.length ? `**Failing:** ${failed.map((s) => `\`${s}\``).join(", ")}` : "All stacks pass.", "");
  let body = parts.join("\n");
  if (body.length > MAX_BODY) body = `${body.slice(0, MAX_BODY)}\n\n… cut to fit a comment: the full reports are in the run's summary.`;
  return `${body}\n---\n<sub>For ${sha ? sha.slice(0, 12) : "this commit"}, [run ${context.runId}](${runUrl}). This comment is updated on every push.</sub>\n`;
}

/** Creates the comment or updates the existing one; resolves to what it did. */
async function upsert({ github, context, core }, env = process.env) {
  const issue_number = context.issue.number;
  if (!issue_number) throw new Error("pr-comment.js runs on pull_request events only (no pull-request number in the context)");
  const { owner, repo } = context.repo;
  const body = commentBody(env, context);
  const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number, per_page: 100 });
  const mine = comments.find((c) => c.user && c.user.type === "Bot" && typeof c.body === "string" && c.body.startsWith(MARKER));
  // A pull request that never touched a stack gets no comment; one that did keeps its comment current.
  if (!mine && JSON.parse(env.MATRIX || '{"include":[]}').include.length === 0) {
    core.info(`no stack changed by #${issue_number}: no comment`);
    return { action: "none" };
  }
  if (mine) {
    await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
    core.info(`updated the stackwarden comment ${mine.id} on #${issue_number}`);
    return { action: "updated", id: mine.id };
  }
  const created = await github.rest.issues.createComment({ owner, repo, issue_number, body });
  core.info(`created the stackwarden comment ${created.data.id} on #${issue_number}`);
  return { action: "created", id: created.data.id };
}

module.exports = upsert;
module.exports.commentBody = commentBody;
module.exports.MARKER = MARKER;
