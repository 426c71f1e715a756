import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { parse } from "yaml";
import { evaluateCondition, evaluateValue, valueText, type ExpressionContext, type Value } from "./workflow-expressions";

/**
 * Runs a GitHub Actions workflow's jobs and steps locally, the way a runner does where a test can
 * tell: jobs in `needs` order with their `if:`, a fresh workspace per job, the matrix, `env:` at
 * every level, `${{ }}` expressions, `run:` steps in the declared shell with GITHUB_OUTPUT,
 * GITHUB_ENV, GITHUB_PATH and GITHUB_STEP_SUMMARY files, step outcomes and `continue-on-error`,
 * job outputs, composite actions (local, or by reference from a repository the test supplies, with
 * `github.action_path`), reusable workflows called by a job's `uses:` (with their `workflow_call`
 * inputs), and the `::add-mask::` / `::error::` commands.
 * Steps that `uses:` a hosted action run a stand-in the test supplies; a missing stand-in is an error.
 */

export interface StandInContext {
  /** The step's `with:` inputs, evaluated. */
  inputs: Record<string, string>;
  /** The step's environment (as a run step would get it). */
  env: Record<string, string>;
  workspace: string;
  /** The step's working directory (its `working-directory`, else the workspace). */
  cwd: string;
  job: JobRecord;
  log(line: string): void;
}

export interface StandInResult {
  ok: boolean;
  outputs?: Record<string, string>;
  /** Directories to put on PATH for later steps (as GITHUB_PATH does). */
  path?: string[];
  /** Variables for later steps (as GITHUB_ENV does). */
  env?: Record<string, string>;
}

export type StandIn = (ctx: StandInContext) => Promise<StandInResult>;

export interface StepRecord {
  name: string;
  /** `run` or the action a `uses:` step names. */
  kind: string;
  outcome: "success" | "failure" | "skipped";
  exitCode?: number;
  log: string;
  outputs: Record<string, string>;
}

export interface JobRecord {
  job: string;
  /** The matrix values of this leg (empty for a job without a matrix). */
  matrix: Record<string, unknown>;
  name: string;
  result: "success" | "failure" | "skipped";
  steps: StepRecord[];
  summary: string;
  workspace: string;
  permissions: Record<string, string>;
  concurrency?: { group: string; cancelInProgress: boolean };
  maxParallel?: number;
}

export interface WorkflowRun {
  result: "success" | "failure";
  jobs: JobRecord[];
  /** Job results and outputs by job id (matrix legs combined). */
  needs: Record<string, { result: string; outputs: Record<string, string> }>;
  masks: string[];
  errors: string[];
}

export interface RunOptions {
  workflowFile: string;
  /** Where job workspaces and runner temp folders go. */
  root: string;
  /** Environment of the runner process (PATH, HOME, …) before GitHub's own variables. */
  env: Record<string, string>;
  github: {
    event_name: string;
    event: Record<string, unknown>;
    sha: string;
    ref: string;
    base_ref?: string;
    head_ref?: string;
    repository: string;
    run_id: string;
    server_url?: string;
  };
  vars?: Record<string, string>;
  secrets?: Record<string, string>;
  /** Stand-ins for hosted actions, by name without the version (`actions/checkout`). */
  standIns: Record<string, StandIn>;
  /** Stand-ins for `run:` steps, by their exact (trimmed) script. */
  runStandIns?: Record<string, StandIn>;
  /**
   * Repositories that actions and reusable workflows are used from by reference (`owner/repo/path@ref`),
   * by `owner/repo`: the directory GitHub would download the repository at that ref to.
   */
  repositories?: Record<string, string>;
}

type Yaml = Record<string, unknown>;

interface Leg {
  record: JobRecord;
  failed: boolean;
  env: Record<string, string>;
  path: string[];
  steps: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }>;
  temp: string;
  baseEnv: Record<string, string>;
  contexts: Record<string, unknown>;
}

let legCounter = 0;

/** Runs the workflow and resolves to what each job did. */
export async function runWorkflow(opts: RunOptions): Promise<WorkflowRun> {
  const run: WorkflowRun = { result: "success", jobs: [], needs: {}, masks: [], errors: [] };
  const eventPath = join(opts.root, `event-${opts.github.run_id}-${Date.now()}.json`);
  mkdirSync(opts.root, { recursive: true });
  writeFileSync(eventPath, JSON.stringify(opts.github.event));
  const github = { ...opts.github, server_url: opts.github.server_url ?? "https://github.com", event_path: eventPath };
  await runJobs(opts, opts.workflowFile, github, {}, opts.secrets ?? {}, run);
  return run;
}

/** The file of a reusable workflow a job `uses:` (`owner/repo/.github/workflows/x.yml@ref`, or `./.github/workflows/x.yml`). */
function calledWorkflowFile(opts: RunOptions, uses: string, callerFile: string): string {
  if (uses.startsWith("./")) return resolve(callerFile, "..", "..", "..", uses);
  const m = /^([^/]+\/[^/]+)\/(.+)@[^@]+$/.exec(uses);
  const repo = m && opts.repositories?.[m[1]];
  if (!m || !repo) throw new Error(`no repository for the reusable workflow ${uses} (the test supplies repositories)`);
  return join(repo, m[2]);
}

/**
 * The `inputs` of a called workflow: each `workflow_call` input's `with:` value or its default,
 * typed as declared; a required input without a value, or a value for an undeclared one, is an
 * error as GitHub makes it.
 */
function workflowCallInputs(file: string, wf: Yaml, withValues: Record<string, Value>): Record<string, Value> {
  const on = (wf.on ?? {}) as Yaml;
  const call = on.workflow_call;
  if (call === undefined) throw new Error(`${file} has no workflow_call trigger: it cannot be called`);
  const declared = (((call ?? {}) as Yaml).inputs ?? {}) as Record<string, Yaml>;
  for (const k of Object.keys(withValues)) if (!(k in declared)) throw new Error(`${file}: input ${k} is not declared by workflow_call`);
  const inputs: Record<string, Value> = {};
  for (const [k, decl] of Object.entries(declared)) {
    const v = k in withValues ? withValues[k] : (decl.default as Value);
    if (v === undefined && decl.required === true) throw new Error(`${file}: required input ${k} has no value`);
    inputs[k] = decl.type === "boolean" ? v === true || v === "true" : decl.type === "number" ? Number(v) : v === undefined ? "" : v;
  }
  return inputs;
}

async function runJobs(
  opts: RunOptions,
  workflowFile: string,
  github: Record<string, unknown>,
  inputs: Record<string, Value>,
  secrets: Record<string, string>,
  run: WorkflowRun,
): Promise<"success" | "failure"> {
  const wf = parse(readFileSync(workflowFile, "utf8")) as Yaml;
  const jobs = (wf.jobs ?? {}) as Record<string, Yaml>;
  const needsOfRun: WorkflowRun["needs"] = {};
  let overall: "success" | "failure" = "success";
  const done = new Set<string>();
  const order: string[] = [];
  const visit = (id: string, seen: string[] = []) => {
    if (done.has(id)) return;
    if (seen.includes(id)) throw new Error(`needs cycle at ${id}`);
    for (const n of needsOf(jobs[id])) visit(n, [...seen, id]);
    done.add(id);
    order.push(id);
  };
  Object.keys(jobs).forEach((id) => visit(id));

  const workflowEnv = (wf.env ?? {}) as Yaml;
  const defaults = ((wf.defaults as Yaml | undefined)?.run ?? {}) as Yaml;

  for (const id of order) {
    const job = jobs[id];
    const needs = Object.fromEntries(needsOf(job).map((n) => [n, needsOfRun[n]]));
    const jobCtx: ExpressionContext = {
      contexts: { github, needs, vars: opts.vars ?? {}, secrets, inputs },
      status: { failed: Object.values(needs).some((n) => n.result !== "success") },
    };
    if (!evaluateCondition(job.if, jobCtx)) {
      needsOfRun[id] = run.needs[id] = { result: "skipped", outputs: {} };
      run.jobs.push(emptyRecord(id, job, "skipped"));
      continue;
    }
    if (job.uses !== undefined) {
      // A reusable workflow: its jobs run in this run, with the inputs `with:` gives and the caller's
      // secrets when it passes them (`secrets: inherit`, or by name).
      const file = calledWorkflowFile(opts, String(job.uses), workflowFile);
      const called = parse(readFileSync(file, "utf8")) as Yaml;
      const withValues = Object.fromEntries(Object.entries((job.with ?? {}) as Yaml).map(([k, v]) => [k, evaluateValue(v, jobCtx)]));
      const passed =
        job.secrets === "inherit"
          ? secrets
          : Object.fromEntries(Object.entries((job.secrets ?? {}) as Yaml).map(([k, v]) => [k, valueText(evaluateValue(v, jobCtx))]));
      const result = await runJobs(opts, file, github, workflowCallInputs(file, called, withValues), passed, run);
      needsOfRun[id] = run.needs[id] = { result, outputs: {} };
      if (result === "failure") overall = run.result = "failure";
      continue;
    }
    const strategy = (job.strategy ?? {}) as Yaml;
    const legs = expandMatrix(strategy.matrix === undefined ? undefined : evaluateValue(strategy.matrix, jobCtx));
    let result: "success" | "failure" = "success";
    let outputs: Record<string, string> = {};
    for (const matrix of legs) {
      const leg = await runLeg(opts, id, job, matrix, {
        github,
        needs,
        workflowEnv,
        defaults,
        run,
        maxParallel: strategy["max-parallel"],
        inputs,
        secrets,
      });
      run.jobs.push(leg.record);
      if (leg.record.result === "failure") result = "failure";
      const outCtx: ExpressionContext = { contexts: { ...leg.contexts, steps: leg.steps }, status: { failed: leg.failed } };
      outputs = Object.fromEntries(Object.entries((job.outputs ?? {}) as Yaml).map(([k, v]) => [k, valueText(evaluateValue(v, outCtx))]));
    }
    needsOfRun[id] = run.needs[id] = { result, outputs };
    if (result === "failure") overall = run.result = "failure";
  }
  return overall;
}

function needsOf(job: Yaml | undefined): string[] {
  const n = job?.needs;
  return n === undefined ? [] : Array.isArray(n) ? (n as string[]) : [String(n)];
}

function emptyRecord(id: string, job: Yaml, result: JobRecord["result"]): JobRecord {
  return { job: id, matrix: {}, name: String(job.name ?? id), result, steps: [], summary: "", workspace: "", permissions: {} };
}

/** The legs of a matrix: `include` entries, or the product of its dimensions (not both: the workflows here use include). */
function expandMatrix(matrix: Value): Record<string, unknown>[] {
  if (matrix === undefined || matrix === null) return [{}];
  if (typeof matrix !== "object" || Array.isArray(matrix))
    throw new Error(`strategy.matrix must be a mapping, got ${JSON.stringify(matrix)}`);
  const { include, exclude, ...dims } = matrix as Record<string, Value>;
  if (exclude !== undefined) throw new Error("matrix exclude is not supported by the test runner");
  const dimNames = Object.keys(dims);
  if (dimNames.length && include !== undefined)
    throw new Error("matrix dimensions together with include are not supported by the test runner");
  if (!dimNames.length) {
    const legs = (include ?? []) as Record<string, unknown>[];
    // GitHub refuses an empty matrix; the workflows guard their matrix jobs with a count.
    if (!legs.length) throw new Error("the matrix has no legs: GitHub fails such a job");
    return legs;
  }
  let legs: Record<string, unknown>[] = [{}];
  for (const d of dimNames) {
    const values = dims[d];
    if (!Array.isArray(values)) throw new Error(`matrix dimension ${d} must be a list`);
    legs = legs.flatMap((l) => values.map((v) => ({ ...l, [d]: v })));
  }
  return legs;
}

async function runLeg(
  opts: RunOptions,
  id: string,
  job: Yaml,
  matrix: Record<string, unknown>,
  shared: {
    github: Record<string, unknown>;
    needs: Record<string, unknown>;
    workflowEnv: Yaml;
    defaults: Yaml;
    run: WorkflowRun;
    maxParallel: unknown;
    inputs: Record<string, Value>;
    secrets: Record<string, string>;
  },
): Promise<Leg> {
  const base = join(opts.root, `${id}-${++legCounter}`);
  const workspace = join(base, "work");
  const temp = join(base, "temp");
  mkdirSync(workspace, { recursive: true });
  mkdirSync(temp, { recursive: true });
  const github = { ...shared.github, workspace, job: id };
  const baseEnv: Record<string, string> = {
    ...opts.env,
    CI: "true",
    GITHUB_ACTIONS: "true",
    GITHUB_WORKSPACE: workspace,
    GITHUB_EVENT_NAME: opts.github.event_name,
    GITHUB_EVENT_PATH: String(shared.github.event_path),
    GITHUB_SHA: opts.github.sha,
    GITHUB_REF: opts.github.ref,
    GITHUB_BASE_REF: opts.github.base_ref ?? "",
    GITHUB_HEAD_REF: opts.github.head_ref ?? "",
    GITHUB_REPOSITORY: opts.github.repository,
    GITHUB_RUN_ID: opts.github.run_id,
    GITHUB_SERVER_URL: String(shared.github.server_url),
    GITHUB_JOB: id,
    RUNNER_TEMP: temp,
    RUNNER_OS: "Linux",
  };
  const contexts: Record<string, unknown> = {
    github,
    needs: shared.needs,
    vars: opts.vars ?? {},
    secrets: shared.secrets,
    matrix,
    strategy: { "max-parallel": shared.maxParallel },
    runner: { temp, os: "Linux" },
    inputs: shared.inputs,
    env: {},
  };
  const leg: Leg = {
    record: {
      job: id,
      matrix,
      name: "",
      result: "success",
      steps: [],
      summary: "",
      workspace,
      permissions: (job.permissions ?? {}) as Record<string, string>,
      maxParallel: typeof shared.maxParallel === "number" ? shared.maxParallel : undefined,
    },
    failed: false,
    env: {},
    path: [],
    steps: {},
    temp,
    baseEnv,
    contexts,
  };
  const ctx = (): ExpressionContext => ({ contexts: { ...contexts, steps: leg.steps }, status: { failed: leg.failed } });
  // env: the workflow's, then the job's, each evaluated where it is declared.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(shared.workflowEnv)) env[k] = valueText(evaluateValue(v, ctx()));
  contexts.env = { ...env };
  for (const [k, v] of Object.entries((job.env ?? {}) as Yaml)) env[k] = valueText(evaluateValue(v, ctx()));
  contexts.env = { ...env };
  leg.record.name = valueText(evaluateValue(job.name ?? id, ctx()));
  if (job.concurrency !== undefined) {
    const c = job.concurrency as Yaml | string;
    leg.record.concurrency =
      typeof c === "string"
        ? { group: valueText(evaluateValue(c, ctx())), cancelInProgress: false }
        : { group: valueText(evaluateValue(c.group, ctx())), cancelInProgress: evaluateValue(c["cancel-in-progress"], ctx()) === true };
  }
  const defaults = { ...shared.defaults, ...(((job.defaults as Yaml | undefined)?.run ?? {}) as Yaml) };
  for (const step of (job.steps ?? []) as Yaml[]) {
    await runStep(opts, leg, step, env, defaults, workspace, leg.steps, shared.inputs, shared.run);
  }
  leg.record.result = leg.failed ? "failure" : "success";
  return leg;
}

async function runStep(
  opts: RunOptions,
  leg: Leg,
  step: Yaml,
  jobEnv: Record<string, string>,
  defaults: Yaml,
  dir: string,
  stepsCtx: Leg["steps"],
  inputs: Record<string, Value>,
  run: WorkflowRun,
): Promise<boolean> {
  const ctx = (extraEnv: Record<string, string>): ExpressionContext => ({
    contexts: { ...leg.contexts, env: { ...jobEnv, ...leg.env, ...extraEnv }, steps: stepsCtx, inputs },
    status: { failed: leg.failed },
  });
  const name = valueText(evaluateValue(step.name ?? step.uses ?? firstLine(String(step.run ?? "")), ctx({})));
  const kind = step.uses ? String(step.uses) : "run";
  const record: StepRecord = { name, kind, outcome: "skipped", log: "", outputs: {} };
  leg.record.steps.push(record);
  const id = step.id === undefined ? undefined : String(step.id);
  if (!evaluateCondition(step.if, ctx({}))) {
    if (id) stepsCtx[id] = { outputs: {}, outcome: "skipped", conclusion: "skipped" };
    return true;
  }
  const stepEnvDecl: Record<string, string> = {};
  for (const [k, v] of Object.entries((step.env ?? {}) as Yaml)) stepEnvDecl[k] = valueText(evaluateValue(v, ctx(stepEnvDecl)));
  const env: Record<string, string> = { ...leg.baseEnv, ...jobEnv, ...leg.env, ...stepEnvDecl };
  env.PATH = [...leg.path, leg.baseEnv.PATH ?? ""].filter(Boolean).join(delimiter);
  const wd = step["working-directory"] ?? defaults["working-directory"];
  const wdText = wd === undefined ? undefined : valueText(evaluateValue(wd, ctx(stepEnvDecl)));
  const cwd = wdText ? (isAbsolute(wdText) ? wdText : join(dir, wdText)) : dir;
  const log = (line: string) => {
    record.log += `${line}\n`;
  };

  let ok: boolean;
  let outputs: Record<string, string> = {};
  if (step.uses) {
    const uses = String(step.uses);
    const withInputs: Record<string, string> = {};
    for (const [k, v] of Object.entries((step.with ?? {}) as Yaml)) withInputs[k] = valueText(evaluateValue(v, ctx(stepEnvDecl)));
    const byReference = /^([^/]+\/[^/]+)\/(.+)@[^@]+$/.exec(uses);
    const repository = byReference && opts.repositories?.[byReference[1]];
    if (uses.startsWith("./")) {
      ok = await runComposite(opts, leg, resolve(leg.record.workspace, uses), withInputs, jobEnv, stepEnvDecl, run, log);
    } else if (byReference && repository) {
      ok = await runComposite(opts, leg, join(repository, byReference[2]), withInputs, jobEnv, stepEnvDecl, run, log);
    } else {
      const standIn = opts.standIns[uses.replace(/@.*$/, "")];
      if (!standIn) throw new Error(`no stand-in for the hosted action ${uses} (step "${name}")`);
      const r = await standIn({ inputs: withInputs, env, workspace: leg.record.workspace, cwd, job: leg.record, log });
      ok = r.ok;
      outputs = r.outputs ?? {};
      if (r.path) leg.path.unshift(...r.path);
      if (r.env) Object.assign(leg.env, r.env);
    }
  } else {
    const script = String(step.run ?? "");
    const standIn = opts.runStandIns?.[script.trim()];
    if (standIn) {
      const r = await standIn({ inputs: {}, env, workspace: leg.record.workspace, cwd, job: leg.record, log });
      ok = r.ok;
      if (r.path) leg.path.unshift(...r.path);
      if (r.env) Object.assign(leg.env, r.env);
    } else {
      const res = await runScript(leg, step, defaults, cwd, env, valueText(evaluateValue(script, ctx(stepEnvDecl))), run);
      record.exitCode = res.code;
      record.log += res.log;
      ok = res.code === 0;
      outputs = res.outputs;
    }
  }
  record.outputs = outputs;
  record.outcome = ok ? "success" : "failure";
  const continueOnError = evaluateValue(step["continue-on-error"] ?? false, ctx(stepEnvDecl)) === true;
  const conclusion = ok || continueOnError ? "success" : "failure";
  if (id) stepsCtx[id] = { outputs, outcome: record.outcome, conclusion };
  if (conclusion === "failure") leg.failed = true;
  return conclusion === "success";
}

async function runComposite(
  opts: RunOptions,
  leg: Leg,
  actionDir: string,
  withInputs: Record<string, string>,
  jobEnv: Record<string, string>,
  stepEnv: Record<string, string>,
  run: WorkflowRun,
  log: (l: string) => void,
): Promise<boolean> {
  const file = ["action.yml", "action.yaml"].map((f) => join(actionDir, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`no action.yml in ${actionDir}`);
  const action = parse(readFileSync(file, "utf8")) as Yaml;
  const runs = action.runs as Yaml;
  if (runs?.using !== "composite") throw new Error(`${file}: only composite local actions are supported`);
  const inputs: Record<string, string> = {};
  for (const [k, decl] of Object.entries((action.inputs ?? {}) as Record<string, Yaml>))
    inputs[k] = withInputs[k] ?? String(decl.default ?? "");
  const steps: Leg["steps"] = {};
  const wasFailed = leg.failed;
  // The action's own directory, as `github.action_path` and GITHUB_ACTION_PATH name it to its steps.
  const outer = { github: leg.contexts.github, path: leg.baseEnv.GITHUB_ACTION_PATH };
  leg.contexts.github = { ...(outer.github as Record<string, unknown>), action_path: actionDir };
  leg.baseEnv.GITHUB_ACTION_PATH = actionDir;
  for (const s of (runs.steps ?? []) as Yaml[]) {
    if (s.run !== undefined && s.shell === undefined) throw new Error(`${file}: a composite run step needs shell: (GitHub requires it)`);
    const before = leg.record.steps.length;
    await runStep(opts, leg, s, { ...jobEnv, ...stepEnv }, {}, leg.record.workspace, steps, inputs, run);
    // The composite's steps are logged inside the step that uses it.
    for (const inner of leg.record.steps.splice(before)) log(`  [${inner.outcome}] ${inner.name}\n${inner.log}`);
  }
  leg.contexts.github = outer.github;
  if (outer.path === undefined) delete leg.baseEnv.GITHUB_ACTION_PATH;
  else leg.baseEnv.GITHUB_ACTION_PATH = outer.path;
  const ok = !leg.failed;
  leg.failed = wasFailed;
  return ok;
}

function firstLine(s: string): string {
  return `Run ${s.split("\n")[0]}`;
}

/** Runs a `run:` script in its shell (GitHub's command lines), then reads the files the step wrote. */
async function runScript(
  leg: Leg,
  step: Yaml,
  defaults: Yaml,
  dir: string,
  env: Record<string, string>,
  script: string,
  run: WorkflowRun,
): Promise<{ code: number; log: string; outputs: Record<string, string> }> {
  const n = leg.record.steps.length;
  const files = {
    GITHUB_OUTPUT: join(leg.temp, `output-${n}`),
    GITHUB_ENV: join(leg.temp, `env-${n}`),
    GITHUB_PATH: join(leg.temp, `path-${n}`),
    GITHUB_STEP_SUMMARY: join(leg.temp, `summary-${n}`),
  };
  for (const f of Object.values(files)) writeFileSync(f, "");
  const scriptFile = join(leg.temp, `step-${n}.sh`);
  writeFileSync(scriptFile, script);
  const shell = String(step.shell ?? defaults.shell ?? "");
  // GitHub's command lines: `shell: bash` is `bash --noprofile --norc -eo pipefail {0}`; no shell is `bash -e {0}`.
  const argv =
    shell === "bash"
      ? ["--noprofile", "--norc", "-eo", "pipefail", scriptFile]
      : shell === ""
        ? ["-e", scriptFile]
        : (() => {
            throw new Error(`shell "${shell}" is not supported by the test runner`);
          })();
  const cwd = dir;
  const { code, out } = await new Promise<{ code: number; out: string }>((res, rej) => {
    const child = spawn("bash", argv, { cwd, env: { ...env, ...files }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", rej);
    child.on("close", (c) => res({ code: c ?? 1, out }));
  });
  for (const line of out.split("\n")) {
    const mask = /^::add-mask::(.*)$/.exec(line);
    if (mask) run.masks.push(mask[1]);
    if (/^::error\b/.test(line)) run.errors.push(line);
  }
  const outputs = parseCommandFile(readFileSync(files.GITHUB_OUTPUT, "utf8"));
  Object.assign(leg.env, parseCommandFile(readFileSync(files.GITHUB_ENV, "utf8")));
  const added = readFileSync(files.GITHUB_PATH, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  leg.path.unshift(...added.reverse());
  leg.record.summary += readFileSync(files.GITHUB_STEP_SUMMARY, "utf8");
  return { code, log: out, outputs };
}

/** Reads a GITHUB_OUTPUT / GITHUB_ENV file: `name=value` lines and `name<<DELIMITER` blocks. */
export function parseCommandFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line) continue;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== heredoc[2]) body.push(lines[i++]);
      if (i >= lines.length) throw new Error(`unterminated ${heredoc[1]}<<${heredoc[2]} block`);
      out[heredoc[1]] = body.join("\n");
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`invalid line in a GitHub command file: ${line}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}
