"use strict";
/**
 * One stack's results in a pipeline job, read from the reports folder and the steps' exit codes.
 *
 *   node scripts/github/stack-results.js summary <pull-request|merge|drift> <reports-dir>
 *     prints the stack's markdown summary (job summary, pull-request comment, drift issue)
 *   node scripts/github/stack-results.js verdict <pull-request|merge|drift> <reports-dir>
 *     prints one ::error:: line per failure and exits 1 when the stack fails the pipeline
 *
 * Environment: STACK, ENGINE, and the exit codes the steps recorded: PLAN_EXIT, CHECK_EXIT,
 * PREVIEW_EXIT, APPLY_EXIT, DRIFT_EXIT (empty when the step did not run).
 * Files in the reports folder: plan.md, check.md, drift.md, *.err (stderr), preview.txt, apply.txt.
 */
const { existsSync, readFileSync } = require("node:fs");
const { join } = require("node:path");
const { bytes, fitMarkdown, SUMMARY_LIMIT } = require("./fit-markdown");

/** What each step's exit code means (the CLI's documented codes). */
const MEANINGS = {
  plan: { 0: ["ok", "no changes"], 2: ["ok", "changes pending"] },
  check: { 0: ["ok", "no mandatory violation"], 3: ["fail", "mandatory violation"] },
  drift: { 0: ["ok", "no drift"], 2: ["fail", "drift found"] },
  apply: { 0: ["ok", "converged"] },
  preview: { 0: ["ok", "preview and policy pack passed"] },
};

/** The steps each pipeline runs, in order. */
const STEPS = {
  "pull-request": ["plan", "check", "preview"],
  merge: ["apply", "check"],
  drift: ["drift", "check"],
};

/** A step's state: `skipped` (did not run), `ok` or `fail`, with words for people. */
function stepResult(step, raw) {
  if (raw === undefined || raw === "") return { step, state: "skipped", text: "did not run" };
  const code = Number(raw);
  const known = MEANINGS[step][code];
  if (known) return { step, code, state: known[0], text: `${known[1]} (exit ${code})` };
  // stackwarden's exit 1 is an error; Pulumi's non-zero exits mix policy violations and errors.
  return { step, code, state: "fail", text: code === 1 && step !== "preview" ? "error (exit 1)" : `failed (exit ${code})` };
}

/** The results of a pipeline's steps; `preview` only counts for Pulumi-engine stacks. */
function results(kind, env) {
  return STEPS[kind].filter((s) => s !== "preview" || env.ENGINE === "pulumi").map((s) => stepResult(s, env[`${s.toUpperCase()}_EXIT`]));
}

/** Whether the stack fails the pipeline: a failed step, or a step that should have run and did not. */
function failures(kind, env) {
  return results(kind, env).filter((r) => r.state !== "ok");
}

function read(dir, name) {
  const p = join(dir, name);
  return existsSync(p) ? readFileSync(p, "utf8").trim() : "";
}

/** Long logs are cut to their last lines: the error is at the end. */
function tail(text, lines = 60) {
  const all = text.split("\n");
  return all.length > lines ? [`… (${all.length - lines} earlier lines in the job log)`, ...all.slice(-lines)].join("\n") : text;
}

function fence(text) {
  return ["```text", text.replace(/```/g, "ʼʼʼ"), "```"].join("\n");
}

/** The stack's markdown summary, within a job summary's 1 MiB. Its first line is a marker the comment and issue scripts read. */
function summary(kind, dir, env) {
  const stack = env.STACK || "(unknown stack)";
  const rs = results(kind, env);
  const failed = rs.some((r) => r.state !== "ok");
  const out = [
    `<!-- stackwarden:stack=${stack} verdict=${failed ? "fail" : "pass"} -->`,
    `### ${failed ? ":x:" : ":white_check_mark:"} stack \`${stack}\` (${env.ENGINE || "native"})`,
    "",
    "| step | result |",
    "|---|---|",
    ...rs.map((r) => `| ${r.step} | ${r.state === "fail" ? "**" + r.text + "**" : r.text} |`),
    "",
  ];
  for (const step of STEPS[kind]) {
    if (step === "preview") {
      const preview = read(dir, "preview.txt");
      if (preview)
        out.push("<details><summary>pulumi preview --policy-pack policies</summary>", "", fence(tail(preview)), "", "</details>", "");
      continue;
    }
    if (step === "apply") {
      const apply = read(dir, "apply.txt");
      if (apply) out.push("<details><summary>apply</summary>", "", fence(tail(apply)), "", "</details>", "");
      continue;
    }
    const md = read(dir, `${step}.md`);
    if (md) out.push(md, "");
    const err = read(dir, `${step}.err`)
      .split("\n")
      .filter((l) => l && !/^stackwarden check: wrote /.test(l))
      .join("\n");
    if (err) out.push(`${step} said:`, "", fence(tail(err, 20)), "");
  }
  // A job summary takes at most 1 MiB: the reports come whole in the artifact beside it.
  const text = fitMarkdown(
    out.join("\n").trimEnd(),
    SUMMARY_LIMIT - 1,
    `the whole reports are in the artifact \`reports-${stack}\``,
    bytes,
  ).text;
  return text + "\n";
}

function main(argv, env) {
  const [mode, kind, dir] = argv;
  if (!["summary", "verdict"].includes(mode) || !STEPS[kind] || !dir) {
    process.stderr.write("usage: stack-results.js summary|verdict pull-request|merge|drift REPORTS_DIR\n");
    return 1;
  }
  if (mode === "summary") {
    process.stdout.write(summary(kind, dir, env));
    return 0;
  }
  const failed = failures(kind, env);
  for (const f of failed) process.stdout.write(`::error title=stack ${env.STACK}: ${f.step}::${f.step} ${f.text}\n`);
  if (!failed.length)
    process.stdout.write(
      `stack ${env.STACK}: ${results(kind, env)
        .map((r) => `${r.step} ${r.text}`)
        .join("; ")}\n`,
    );
  return failed.length ? 1 : 0;
}

module.exports = { summary, failures, results };

if (require.main === module) process.exitCode = main(process.argv.slice(2), process.env);
