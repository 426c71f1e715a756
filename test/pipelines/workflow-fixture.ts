import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { PROJECT_ROOT } from "../../src/platform/version";
import type { TestEmulator } from "../helpers/emulator";
import { git } from "../helpers/git";
import { GitHubApiStandIn } from "./github-api-stand-in";
import { hostedActionStandIns, type SarifUpload } from "./hosted-action-stand-ins";
import { runWorkflow, type JobRecord, type WorkflowRun } from "./workflow-runner";

/** stackwarden's repository, as the workflows' `uses:` name it (package.json's repository). */
export const STACKWARDEN_REPOSITORY = "OWNER/stackwarden";

/** The repository the workflows run for, as GitHub's APIs name it. */
export const REPO = { owner: "acme", repo: "estate" };

export interface Outcome {
  run: WorkflowRun;
  sarif: SarifUpload[];
  /** The tokens the stand-in `az` handed out during the run (the chain's Azure CLI credential asked for them). */
  azTokens: string[];
}

export interface WorkflowEvent {
  name: string;
  payload: Record<string, unknown>;
  ref: string;
  sha: string;
  base_ref?: string;
  head_ref?: string;
}

/**
 * A user's repository for the workflows: a bare `origin` (what actions/checkout clones) and an
 * author's clone to commit in. It holds the test's stack files and no stackwarden source: the
 * workflows set stackwarden up from its own repository (`stackwarden`, what GitHub downloads for
 * `uses: OWNER/stackwarden/...`). `projectFiles` copies files of the project into it and `links`
 * adds committed symlinks to more of it (both for the Pulumi engine's program).
 */
export class WorkflowRepo {
  readonly dir = mkdtempSync(join(tmpdir(), "stackwarden-workflows-"));
  readonly origin = join(this.dir, "origin.git");
  readonly author = join(this.dir, "author");
  readonly api = new GitHubApiStandIn(REPO);
  /** stackwarden's repository as the runner downloads it for actions and workflows used by reference. */
  readonly stackwarden = join(this.dir, "stackwarden");
  private runs = 0;
  /** The commit of the initial main. */
  readonly base: string;

  constructor(
    private readonly emu: TestEmulator,
    private readonly opts: {
      files: Record<string, string>;
      /** Files of the project copied into the user's repository (Pulumi.yaml for the Pulumi engine). */
      projectFiles?: string[];
      links?: string[];
      env?: Record<string, string>;
      vars?: Record<string, string>;
      secrets?: Record<string, string>;
    },
  ) {
    git(this.dir, "init", "-q", "--bare", "-b", "main", this.origin);
    git(this.dir, "clone", "-q", this.origin, this.author);
    git(this.author, "checkout", "-q", "-b", "main");
    // What GitHub downloads of stackwarden's repository for `uses: OWNER/stackwarden/...@ref`: its
    // files (node_modules and dist come from the npm ci stand-in). The user's repository holds none of them.
    for (const p of [".github", "bin", "scripts", "policies", "package.json", "package-lock.json"])
      cpSync(join(PROJECT_ROOT, p), join(this.stackwarden, p), { recursive: true });
    for (const p of opts.projectFiles ?? []) cpSync(join(PROJECT_ROOT, p), join(this.author, p), { recursive: true });
    for (const p of opts.links ?? []) {
      mkdirSync(join(this.author, p, ".."), { recursive: true });
      symlinkSync(join(PROJECT_ROOT, p), join(this.author, p));
    }
    const ignored = ["node_modules", "dist"].filter((p) => !opts.links?.includes(p));
    this.base = this.commit({ ".gitignore": [...ignored, "reports/", "summaries/", ""].join("\n"), ...opts.files }, "initial");
    this.git("push", "-q", "origin", "main");
  }

  git(...args: string[]): string {
    return git(this.author, ...args);
  }

  /** Writes files in the author's clone and commits them; resolves to the commit. */
  commit(files: Record<string, string>, message: string): string {
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(this.author, f, ".."), { recursive: true });
      writeFileSync(join(this.author, f), text);
    }
    this.git("add", "-A");
    this.git("commit", "-q", "-m", message);
    return this.git("rev-parse", "HEAD");
  }

  /** The id the next run gets. */
  get nextRunId(): number {
    return 4001 + this.runs;
  }

  /**
   * Runs a workflow for an event, with the stand-ins for hosted actions: one of stackwarden's own
   * (`merge.yml`), as its repository runs it, or with `fromRepository` one of the user's
   * repository (a caller that uses stackwarden's by reference), as committed on the event's commit.
   */
  async run(workflow: string, event: WorkflowEvent, fromRepository = false): Promise<Outcome> {
    const runId = String(4000 + ++this.runs);
    const root = join(this.dir, "runs", runId);
    const { standIns, runStandIns, sarifUploads, azTokensIssued } = hostedActionStandIns({
      origin: this.origin,
      projectDir: PROJECT_ROOT,
      identityEndpoint: this.emu.imdsEndpoint,
      artifactsDir: join(root, "artifacts"),
      github: this.api,
      repo: REPO,
      toolsDir: join(this.dir, "tools"),
      context: () => ({
        eventName: event.name,
        sha: event.sha,
        ref: event.ref,
        runId: Number(runId),
        payload: event.payload,
        issueNumber: (event.payload.pull_request as { number?: number } | undefined)?.number,
      }),
    });
    const issuedBefore = azTokensIssued().length;
    const run = await runWorkflow({
      workflowFile: fromRepository
        ? this.committedFile(event.sha, join(".github", "workflows", workflow), root)
        : join(this.stackwarden, ".github", "workflows", workflow),
      repositories: { [STACKWARDEN_REPOSITORY]: this.stackwarden },
      root,
      // The runner's environment: the ARM endpoint points at the emulator. No IMDS endpoint and no
      // token: every credential must come through azure/login and the Azure CLI it signs in.
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? this.dir,
        STACKWARDEN_ARM_ENDPOINT: this.emu.url,
        LANG: "C.UTF-8",
        ...this.opts.env,
      },
      github: {
        event_name: event.name,
        event: event.payload,
        sha: event.sha,
        ref: event.ref,
        base_ref: event.base_ref,
        head_ref: event.head_ref,
        repository: `${REPO.owner}/${REPO.repo}`,
        run_id: runId,
      },
      vars: {
        AZURE_CLIENT_ID: "11111111-1111-1111-1111-111111111111",
        AZURE_TENANT_ID: "22222222-2222-2222-2222-222222222222",
        AZURE_SUBSCRIPTION_ID: "33333333-3333-3333-3333-333333333333",
        ...this.opts.vars,
      },
      secrets: this.opts.secrets ?? {},
      standIns,
      runStandIns,
    });
    return { run, sarif: sarifUploads, azTokens: azTokensIssued().slice(issuedBefore) };
  }

  /** A file as committed at `sha`, written under `dir` (the workflow file GitHub reads for the event). */
  private committedFile(sha: string, path: string, dir: string): string {
    const file = join(dir, "workflow", path);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, this.git("show", `${sha}:${path.split(sep).join("/")}`));
    return file;
  }

  /**
   * Pushes `sha` as pull request `number`'s head and runs the pull-request workflow for it:
   * stackwarden's own, or with `callerWorkflow` the user's repository's workflow of that name.
   */
  pullRequest(sha: string, number: number, headRef = "feature", callerWorkflow?: string): Promise<Outcome> {
    this.git("push", "-q", "--force", "origin", `${sha}:refs/pull/${number}/head`);
    return this.run(
      callerWorkflow ?? "pull-request.yml",
      {
        name: "pull_request",
        payload: { number, pull_request: { number, head: { sha, ref: headRef }, base: { ref: "main", sha: this.base } } },
        ref: `refs/pull/${number}/head`,
        sha,
        base_ref: "main",
        head_ref: headRef,
      },
      callerWorkflow !== undefined,
    );
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The job (matrix leg) of a run. */
export function job(run: WorkflowRun, id: string, stack?: string): JobRecord {
  const found = run.jobs.find((j) => j.job === id && (stack === undefined || j.matrix.stack === stack));
  if (!found)
    throw new Error(`no job ${id}${stack ? ` for ${stack}` : ""}: ${run.jobs.map((j) => `${j.job}/${String(j.matrix.stack)}`).join(", ")}`);
  return found;
}

/** A step of a job, by name. */
export function step(j: JobRecord, name: string) {
  const s = j.steps.find((x) => x.name === name);
  if (!s) throw new Error(`no step "${name}" in ${j.name}: ${j.steps.map((x) => x.name).join(", ")}`);
  return s;
}

/** Everything a run printed, for failure messages. */
export function logOf(run: WorkflowRun): string {
  return run.jobs.map((j) => `== ${j.name} ${j.result}\n${j.steps.map((s) => `-- ${s.name} ${s.outcome}\n${s.log}`).join("")}`).join("\n");
}
