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

const { fitMarkdown, COMMENT_LIMIT } = require("./fit-markdown");

const MARKER = "<!-- stackwarden:pull-request -->";
/** Below this much room a stack's summary is not begun: it is named among those left out. */
const MIN_SECTION = 2000;

/** A stack's section: its summary, or what says its job stopped first; failing or not. */
function sectionOf(stack, env) {
  // Relative to the workspace, as the download step wrote it.
  const file = join(resolve(env.GITHUB_WORKSPACE || process.cwd(), env.SUMMARIES || "summaries"), `summary-${stack}`, "summary.md");
  if (!existsSync(file))
    return {
      stack,
      failed: true,
      text: [`### :x: stack \`${stack}\``, "", "No results: the job stopped before its summary (see the run)."].join("\n"),
    };
  const text = readFileSync(file, "utf8").trim();
  return { stack, failed: /verdict=fail/.test(text.split("\n", 1)[0]), text };
}

/**
 * The comment's text, within GitHub's 65,536 characters at any size: one section per stack, failing
 * stacks first (each in the matrix's order); a section that does not fit whole is cut at a line with
 * the exact count of what was left out, and stacks that find no room are named and counted. Every
 * stack's whole summary stays in its job summary and its `reports-<stack>` artifact.
 */
function commentBody(env, context) {
  const stacks = JSON.parse(env.MATRIX || '{"include":[]}').include.map((s) => s.stack);
  const runUrl = `${context.serverUrl}/${context.repo.owner}/${context.repo.repo}/actions/runs/${context.runId}`;
  const sha = (context.payload.pull_request && context.payload.pull_request.head && context.payload.pull_request.head.sha) || context.sha;
  const footer = `\n---\n<sub>For ${sha ? sha.slice(0, 12) : "this commit"}, [run ${context.runId}](${runUrl}). This comment is updated on every push.</sub>\n`;
  const sections = stacks.map((s) => sectionOf(s, env));
  const failed = sections.filter((s) => s.failed).map((s) => s.stack);
  const head = [MARKER, `## stackwarden: ${stacks.length} stack(s) changed by this pull request`, ""];
  if (stacks.length === 0) head.push("No stack file, and nothing every stack depends on, changed: nothing to plan or check.", "");
  else head.push(failed.length ? `**Failing:** ${failed.map((s) => `\`${s}\``).join(", ")}` : "All stacks pass.", "");
  const parts = [head.join("\n")];
  const ordered = [...sections.filter((s) => s.failed), ...sections.filter((s) => !s.failed)];
  const where = (stack) =>
    `the whole summary is in the job summary of \`${stack}\` and its artifact \`reports-${stack}\` of [run ${context.runId}](${runUrl})`;
  // Room kept for the line naming the stacks left out.
  const tailRoom = 400 + stacks.reduce((n, s) => n + s.length + 4, 0);
  let used = parts[0].length + footer.length;
  const leftOut = [];
  for (const s of ordered) {
    const room = COMMENT_LIMIT - used - 2 - Math.min(tailRoom, 4000);
    if (leftOut.length || room < Math.min(MIN_SECTION, s.text.length)) {
      leftOut.push(s);
      continue;
    }
    const fit = fitMarkdown(s.text, room, where(s.stack));
    parts.push(fit.text);
    used += fit.text.length + 2;
  }
  if (leftOut.length) {
    const failing = leftOut.filter((s) => s.failed).length;
    let names = leftOut.map((s) => `\`${s.stack}\``).join(", ");
    if (names.length > 3000) names = `${names.slice(0, names.lastIndexOf(", ", 3000))}, …`;
    parts.push(
      `**${leftOut.length}** more stack(s) not shown here to stay within GitHub's limit (${failing} failing): ${names}. Each one's whole summary is in its job summary and its artifact \`reports-<stack>\` of [run ${context.runId}](${runUrl}).`,
    );
  }
  return `${parts.join("\n\n")}${footer}`;
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
