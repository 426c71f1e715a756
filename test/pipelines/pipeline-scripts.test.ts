import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../src/platform/version";
import { GitHubApiStandIn } from "./github-api-stand-in";
import { renderComplianceMarkdown } from "../../src/domain/reports/compliance-markdown";
import { estateInput } from "../domain/reports/estate-findings";

/** The scripts the workflows run (scripts/github), on the cases the workflow test does not reach. */
const scripts = join(PROJECT_ROOT, "scripts", "github");

const results = require(join(scripts, "stack-results.js")) as {
  summary(kind: string, dir: string, env: Record<string, string>): string;
  failures(kind: string, env: Record<string, string>): { step: string; text: string }[];
};

const prComment = require(join(scripts, "pr-comment.js")) as {
  commentBody(env: Record<string, string>, context: Record<string, unknown>): string;
};

const driftIssue = require(join(scripts, "drift-issue.js")) as ((
  a: { github: GitHubApiStandIn; context: Record<string, unknown>; core: { info(m: string): void } },
  env: Record<string, string>,
) => Promise<{ action: string; number?: number }>) & { markerOf(s: string): string; LABEL: string };

const REPO = { owner: "acme", repo: "estate" };
const context = {
  repo: REPO,
  runId: 42,
  serverUrl: "https://github.com",
  sha: "0123456789abcdef",
  payload: {},
  issue: { ...REPO, number: 7 },
};
const core = { info: () => undefined };

describe("stack-results.js", () => {
  it("reads the CLI's exit codes: pending changes pass, a mandatory violation, an error or a step that never ran fail", () => {
    expect(results.failures("pull-request", { PLAN_EXIT: "2", CHECK_EXIT: "0" })).toEqual([]);
    expect(results.failures("pull-request", { PLAN_EXIT: "0", CHECK_EXIT: "3" }).map((f) => f.text)).toEqual([
      "mandatory violation (exit 3)",
    ]);
    expect(results.failures("pull-request", { PLAN_EXIT: "1", CHECK_EXIT: "0" }).map((f) => f.text)).toEqual(["error (exit 1)"]);
    expect(results.failures("pull-request", { PLAN_EXIT: "0" }).map((f) => `${f.step}: ${f.text}`)).toEqual(["check: did not run"]);
    // The Pulumi preview counts for Pulumi stacks only.
    expect(results.failures("pull-request", { PLAN_EXIT: "0", CHECK_EXIT: "0" })).toEqual([]);
    expect(
      results.failures("pull-request", { ENGINE: "pulumi", PLAN_EXIT: "0", CHECK_EXIT: "0", PREVIEW_EXIT: "255" }).map((f) => f.text),
    ).toEqual(["failed (exit 255)"]);
    expect(results.failures("drift", { DRIFT_EXIT: "2", CHECK_EXIT: "0" }).map((f) => f.text)).toEqual(["drift found (exit 2)"]);
    expect(results.failures("merge", { APPLY_EXIT: "0", CHECK_EXIT: "0" })).toEqual([]);
  });

  it("summarises a stack with its reports, stderr without the 'wrote' lines, and a marker line; verdict exits 1 with ::error:: lines", () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-results-"));
    writeFileSync(join(dir, "plan.md"), "### stackwarden plan: `prod`\n\n**1 change** pending");
    writeFileSync(join(dir, "check.md"), "### :x: stackwarden check: `prod`");
    writeFileSync(join(dir, "check.err"), "stackwarden check: wrote markdown report to x.md\nstackwarden: a warning\n");
    const env = { STACK: "prod", PLAN_EXIT: "2", CHECK_EXIT: "3" };
    const md = results.summary("pull-request", dir, env);
    expect(md.split("\n")[0]).toBe("<!-- stackwarden:stack=prod verdict=fail -->");
    expect(md).toContain("| check | **mandatory violation (exit 3)** |");
    expect(md).toContain("**1 change** pending");
    expect(md).toContain("stackwarden: a warning");
    expect(md).not.toContain("wrote markdown report");

    const verdict = spawnSync(process.execPath, [join(scripts, "stack-results.js"), "verdict", "pull-request", dir], {
      env: { ...process.env, ...env },
      encoding: "utf8",
    });
    expect(verdict.status).toBe(1);
    expect(verdict.stdout.trim()).toBe("::error title=stack prod: check::check mandatory violation (exit 3)");
    const usage = spawnSync(process.execPath, [join(scripts, "stack-results.js"), "verdict", "nightly", dir], { encoding: "utf8" });
    expect(usage.status).toBe(1);
    expect(usage.stderr).toMatch(/^usage: /);
  });
});

describe("pr-comment.js", () => {
  it("names stacks whose job stopped before its summary as failing, and says so when no stack changed", () => {
    const ws = mkdtempSync(join(tmpdir(), "pr-comment-"));
    mkdirSync(join(ws, "summaries", "summary-prod"), { recursive: true });
    writeFileSync(join(ws, "summaries", "summary-prod", "summary.md"), "<!-- stackwarden:stack=prod verdict=pass -->\n### ok");
    const matrix = JSON.stringify({ include: [{ stack: "prod" }, { stack: "staging" }] });
    const body = prComment.commentBody({ MATRIX: matrix, SUMMARIES: "summaries", GITHUB_WORKSPACE: ws }, context);
    expect(body).toContain("**Failing:** `staging`");
    expect(body).toContain("No results: the job stopped before its summary");
    expect(body).toContain("[run 42](https://github.com/acme/estate/actions/runs/42)");
    const none = prComment.commentBody({ MATRIX: '{"include":[]}', GITHUB_WORKSPACE: ws }, context);
    expect(none).toContain("0 stack(s) changed");
    expect(none).toContain("nothing to plan or check");
  });

  it("cuts a body that would pass GitHub's 65,536-character limit at a line, saying exactly what it left out", () => {
    const ws = mkdtempSync(join(tmpdir(), "pr-comment-"));
    mkdirSync(join(ws, "s", "summary-big"), { recursive: true });
    const lines = Array.from({ length: 2000 }, (_, i) => `| row ${i} | ${"x".repeat(80)} |`);
    writeFileSync(
      join(ws, "s", "summary-big", "summary.md"),
      ["<!-- stackwarden:stack=big verdict=pass -->", "<details>", ...lines].join("\n"),
    );
    const body = prComment.commentBody({ MATRIX: '{"include":[{"stack":"big"}]}', SUMMARIES: "s", GITHUB_WORKSPACE: ws }, context);
    expect(body.length).toBeLessThanOrEqual(65_536);
    const m =
      /_… (\d+) more line\(s\) \((\d+) characters\) left out here to stay within GitHub's limit: the whole summary is in the job summary of `big` and its artifact `reports-big`/.exec(
        body,
      );
    expect(m).not.toBeNull();
    const shown = lines.filter((l) => body.includes(`${l}\n`)).length;
    expect(shown + Number(m![1])).toBe(lines.length);
    expect(Number(m![2])).toBe(lines.slice(shown).join("\n").length);
    // The cut closes the disclosure it was in.
    expect(body.indexOf("</details>")).toBeGreaterThan(body.indexOf(lines[shown - 1]));
  });

  it("at 10,000 databases with 500 failures per stack: failing stacks first, within 65,536 characters, every failure named or counted", () => {
    const ws = mkdtempSync(join(tmpdir(), "pr-comment-"));
    const input = estateInput({ servers: 40, databases: 10_000, disabled: 400, drifting: 100 });
    const md = renderComplianceMarkdown(input);
    const stacks = ["ok-1", "big-1", "big-2", "big-3", "ok-2"];
    for (const stack of stacks) {
      const dir = join(ws, "reports", stack);
      mkdirSync(dir, { recursive: true });
      if (stack.startsWith("big")) writeFileSync(join(dir, "check.md"), md);
      else writeFileSync(join(dir, "check.md"), "### :white_check_mark: stackwarden check");
      const fail = stack.startsWith("big");
      const summary = results.summary("pull-request", dir, { STACK: stack, PLAN_EXIT: "0", CHECK_EXIT: fail ? "3" : "0" });
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(1024 * 1024);
      mkdirSync(join(ws, "s", `summary-${stack}`), { recursive: true });
      writeFileSync(join(ws, "s", `summary-${stack}`, "summary.md"), summary);
    }
    const matrix = JSON.stringify({ include: stacks.map((stack) => ({ stack })) });
    const body = prComment.commentBody({ MATRIX: matrix, SUMMARIES: "s", GITHUB_WORKSPACE: ws }, context);
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain("**Failing:** `big-1`, `big-2`, `big-3`");
    // The first failing stack comes first and whole: each of its failures named at its stack-file line.
    expect(body.indexOf("stack `big-1`")).toBeLessThan(body.indexOf("stack `ok-1`") === -1 ? Infinity : body.indexOf("stack `ok-1`"));
    const failures = input.result.findings.filter((f) => f.verdict === "fail");
    expect(failures.length).toBeGreaterThanOrEqual(500);
    const section = body.slice(body.indexOf("stack `big-1`"), body.indexOf("stackwarden:stack=big-2"));
    for (const f of failures) expect(section).toContain(f.source ? `#L${f.source.line})` : f.label);
    // What did not fit is counted: a cut stack's lines, and the stacks left out by name.
    const cut = /_… (\d+) more line\(s\) \((\d+) characters\) left out here/.exec(body);
    const out = /\*\*(\d+)\*\* more stack\(s\) not shown here to stay within GitHub's limit \((\d+) failing\): ([^.]*)\./.exec(body);
    expect(cut ?? out).not.toBeNull();
    const shownStacks = stacks.filter((s) => body.includes(`stackwarden:stack=${s} `));
    expect(shownStacks.length + Number(out?.[1] ?? 0)).toBe(stacks.length);
    for (const s of stacks.filter((x) => !shownStacks.includes(x))) expect(out![3]).toContain(`\`${s}\``);
  });
});

describe("stack-results.js summary", () => {
  it("stays within a job summary's 1 MiB, saying what it left out and that the artifact has the whole reports", () => {
    const dir = mkdtempSync(join(tmpdir(), "stack-results-"));
    writeFileSync(
      join(dir, "plan.md"),
      Array.from({ length: 30_000 }, (_, i) => `| db-${i} | Disabled → Enabled | ${"é".repeat(20)} |`).join("\n"),
    );
    writeFileSync(join(dir, "check.md"), "### :x: stackwarden check");
    const md = results.summary("pull-request", dir, { STACK: "huge", PLAN_EXIT: "2", CHECK_EXIT: "3" });
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(1024 * 1024);
    expect(md.split("\n")[0]).toBe("<!-- stackwarden:stack=huge verdict=fail -->");
    expect(md).toMatch(
      /_… \d+ more line\(s\) \(\d+ bytes\) left out here to stay within GitHub's limit: the whole reports are in the artifact `reports-huge`\._\n$/,
    );
  });
});

describe("pr-comment.js upsert", () => {
  const upsert = require(join(scripts, "pr-comment.js")) as (
    a: { github: GitHubApiStandIn; context: Record<string, unknown>; core: { info(m: string): void } },
    env: Record<string, string>,
  ) => Promise<{ action: string }>;

  it("comments nothing on a pull request that changes no stack, but keeps an existing comment current", async () => {
    const api = new GitHubApiStandIn(REPO);
    api.addPullRequest(7, "docs only");
    const none = { MATRIX: '{"include":[]}' };
    expect(await upsert({ github: api, context, core }, none)).toEqual({ action: "none" });
    expect(api.comments).toEqual([]);
    const ws = mkdtempSync(join(tmpdir(), "pr-comment-"));
    await upsert({ github: api, context, core }, { MATRIX: '{"include":[{"stack":"prod"}]}', GITHUB_WORKSPACE: ws });
    expect(await upsert({ github: api, context, core }, none)).toMatchObject({ action: "updated" });
    expect(api.comments).toHaveLength(1);
    expect(api.comments[0].body).toContain("0 stack(s) changed");
  });
});

describe("drift-issue.js", () => {
  it("closes the stack's open issue with a comment when the stack is clean, and leaves other stacks' issues and pull requests alone", async () => {
    const api = new GitHubApiStandIn(REPO);
    api.addPullRequest(7, "a pull request");
    const other = await api.rest.issues.create({
      ...REPO,
      title: "other",
      body: `${driftIssue.markerOf("staging")}\n`,
      labels: [driftIssue.LABEL],
    });
    const mine = await api.rest.issues.create({
      ...REPO,
      title: "prod",
      body: `${driftIssue.markerOf("prod")}\n`,
      labels: [driftIssue.LABEL],
    });
    const r = await driftIssue({ github: api, context, core }, { STACK: "prod", DRIFT_EXIT: "0", CHECK_EXIT: "0" });
    expect(r).toEqual({ action: "closed", number: mine.data.number });
    expect(api.issues.find((i) => i.number === mine.data.number)).toMatchObject({ state: "closed", state_reason: "completed" });
    expect(api.issues.find((i) => i.number === other.data.number)?.state).toBe("open");
    expect(api.comments.map((c) => c.body)).toEqual([
      "No drift in stack `prod` any more ([run 42](https://github.com/acme/estate/actions/runs/42)).",
    ]);
    // Clean again with nothing open: nothing to do.
    expect(await driftIssue({ github: api, context, core }, { STACK: "prod", DRIFT_EXIT: "0", CHECK_EXIT: "0" })).toEqual({
      action: "none",
    });
  });

  it("opens an issue for a mandatory violation without drift, saying which", async () => {
    const api = new GitHubApiStandIn(REPO);
    const ws = mkdtempSync(join(tmpdir(), "drift-issue-"));
    const r = await driftIssue(
      { github: api, context, core },
      { STACK: "prod", DRIFT_EXIT: "0", CHECK_EXIT: "3", GITHUB_WORKSPACE: ws, REPORTS: "none" },
    );
    expect(r.action).toBe("opened");
    expect(api.issues[0].body).toContain("a mandatory compliance rule is violated");
    expect(api.issues[0].body).not.toContain("live state differs");
  });
});
