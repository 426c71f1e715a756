import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import Ajv from "ajv-draft-04";
import addFormats from "ajv-formats";
import { locatePulumiCli } from "../../src/platform/programs/pulumi-engine";
import { git } from "../helpers/git";
import type { GitHubApiStandIn } from "./github-api-stand-in";
import type { StandIn, StandInResult } from "./workflow-runner";

/**
 * The smallest honest equivalents of the hosted actions (and of `npm ci`) the workflows use. Each
 * does what the real one does where a later step can tell, and checks what the real one would
 * refuse. STAND_INS lists them for the test's report.
 */
export const STAND_INS: Record<string, string> = {
  "actions/checkout":
    "a fresh clone of the test's origin repository in the job's workspace: with fetch-depth 0 every branch (origin/*), else only the event's ref at that depth; then GITHUB_SHA detached",
  "actions/setup-node":
    "puts the Node.js line the workflow asks for first on PATH: the running Node.js when its major version matches, else the project's pinned build of that line (scripts/node-install.sh: its cache, or one fetch from the npm registry)",
  "npm ci (run step)":
    "links the already installed and built project (node_modules, dist) into its working directory (the setup action's repository), which must hold package.json and package-lock.json: a real npm ci needs the registry and minutes",
  "azure/login":
    "requires client-id, tenant-id, subscription-id and the job's id-token: write (OIDC), then signs the stand-in `az` in and puts it on PATH; its `account get-access-token --output json --resource R` (what AzureCliCredential runs) prints the CLI's documented JSON with a token issued by the emulator's identity endpoint, and before a sign-in it answers as az does (`Please run 'az login'`)",
  "pulumi/actions": "puts the Pulumi CLI built by npm run pulumi:install on PATH (fails when there is none)",
  "github/codeql-action/upload-sarif":
    "requires the job's security-events: write, validates the file against the SARIF 2.1.0 schema (code scanning refuses invalid SARIF) and records it with its category",
  "actions/upload-artifact": "copies the path into the run's artifact store (if-no-files-found, include-hidden-files, unique names)",
  "actions/download-artifact": "copies the run's artifacts matching `pattern` into `path`/<artifact name>/",
  "actions/github-script":
    "runs the step's script as an async function of (require, github, context, core) with require resolving from the workspace, the step's env, and `github` = an in-memory GitHub issues API (GitHubApiStandIn)",
};

export interface SarifUpload {
  job: string;
  category: string;
  file: string;
  sarif: { runs: { results: { ruleId: string; level?: string; message: { text: string } }[] }[] };
}

export interface StandInOptions {
  /** The bare repository the checkout clones from. */
  origin: string;
  /** The installed, built project whose node_modules and dist `npm ci` stands for. */
  projectDir: string;
  /** Where the stand-in `az` gets its tokens (the emulator's IMDS base, `<url>/metadata`). */
  identityEndpoint: string;
  /** Per run: artifacts are kept under it. */
  artifactsDir: string;
  github: GitHubApiStandIn;
  repo: { owner: string; repo: string };
  /** The workflow run's github-script context fields. */
  context: () => { eventName: string; sha: string; runId: number; payload: Record<string, unknown>; issueNumber?: number; ref: string };
  /** A folder for the stand-in's own files (the `az` stand-in). */
  toolsDir: string;
}

let sarifValidator: ReturnType<Ajv["compile"]> | undefined;
function validateSarif(doc: unknown): string | undefined {
  if (!sarifValidator) {
    const schema = JSON.parse(readFileSync(join(__dirname, "..", "fixtures", "sarif", "sarif-schema-2.1.0.json"), "utf8")) as Record<
      string,
      unknown
    >;
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    sarifValidator = ajv.compile(schema);
  }
  return sarifValidator(doc) ? undefined : ajvText(sarifValidator.errors);
}

function ajvText(errors: unknown): string {
  return JSON.stringify(errors).slice(0, 500);
}

/** Builds the stand-ins; `uploads` collects what upload-sarif received. */
export function hostedActionStandIns(o: StandInOptions): {
  standIns: Record<string, StandIn>;
  runStandIns: Record<string, StandIn>;
  sarifUploads: SarifUpload[];
  /** Every token the stand-in `az` has handed out (to AzureCliCredential), oldest first. */
  azTokensIssued: () => string[];
} {
  const sarifUploads: SarifUpload[] = [];
  mkdirSync(o.toolsDir, { recursive: true });

  const checkout: StandIn = async ({ inputs, env, workspace, log }) => {
    const depth = Number(inputs["fetch-depth"] ?? "1");
    git(workspace, "init", "-q");
    git(workspace, "remote", "add", "origin", `file://${o.origin}`);
    const ref = env.GITHUB_REF;
    if (depth === 0) {
      git(
        workspace,
        "fetch",
        "-q",
        "origin",
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
        `+${ref}:refs/remotes/event`,
      );
    } else {
      git(workspace, "fetch", "-q", `--depth=${depth}`, "origin", `+${ref}:refs/remotes/event`);
    }
    const fetched = git(workspace, "rev-parse", "refs/remotes/event");
    if (fetched !== env.GITHUB_SHA) {
      log(`checkout: ${ref} is ${fetched}, not GITHUB_SHA ${env.GITHUB_SHA}`);
      return { ok: false };
    }
    git(workspace, "checkout", "-q", "--detach", env.GITHUB_SHA);
    log(`checked out ${env.GITHUB_SHA} (fetch-depth ${depth})`);
    return { ok: true };
  };

  const setupNode: StandIn = async ({ inputs, log }) => {
    const want = String(inputs["node-version"] ?? "").split(".")[0];
    if (!want || want === process.versions.node.split(".")[0]) {
      log(`node ${process.versions.node} (workflow asks for ${want || "any"})`);
      return { ok: true };
    }
    // Tests running on another line (CI's Node 22 pass) get the line asked for, as setup-node installs it.
    const r = spawnSync("bash", [join(o.projectDir, "scripts", "node-install.sh"), want], { encoding: "utf8" });
    const bin = r.stdout.trim().split("\n").pop();
    if (r.status !== 0 || !bin) {
      log(`setup-node stand-in: no Node ${want} (npm run node:install -- ${want}): ${r.stderr.trim()}`);
      return { ok: false };
    }
    log(`node ${want} from ${bin} (workflow asks for ${want}; the tests run on ${process.versions.node})`);
    return { ok: true, path: [bin] };
  };

  const npmCi: StandIn = async ({ cwd, log }) => {
    // npm ci installs the project of its working directory from its lock (the setup action runs it in
    // the action's own repository): one without package.json and package-lock.json is refused.
    for (const f of ["package.json", "package-lock.json"])
      if (!existsSync(join(cwd, f))) {
        log(`npm ci stand-in: no ${f} in ${cwd} (npm ci needs both)`);
        return { ok: false };
      }
    for (const d of ["node_modules", "dist"]) {
      const target = join(o.projectDir, d);
      if (!existsSync(target)) {
        log(`npm ci stand-in: ${target} is missing; run npm ci && npm run build in the project`);
        return { ok: false };
      }
      const link = join(cwd, d);
      // Every job of a run sets up the same download of the action's repository: installed once is installed.
      if (existsSync(link) && realpathSync(link) === realpathSync(target)) continue;
      symlinkSync(target, link, "dir");
    }
    log(`linked the installed project (node_modules, dist) into ${cwd}`);
    return { ok: true };
  };

  const azBin = join(o.toolsDir, "az-bin");
  mkdirSync(azBin, { recursive: true });
  // azure/login's sign-in, as the stand-in az reads it (the real az keeps it in ~/.azure).
  const azAccount = join(azBin, "account.json");
  writeFileSync(
    join(azBin, "az"),
    [
      `#!${process.execPath}`,
      '"use strict";',
      "// Stand-in for the Azure CLI after azure/login: `account get-access-token --output json --resource R`, what",
      "// @azure/identity's AzureCliCredential runs, answered in the shape the CLI documents.",
      'const fs = require("node:fs");',
      "const a = process.argv.slice(2);",
      "const opt = (n) => { const i = a.indexOf(n); return i < 0 ? undefined : a[i + 1]; };",
      'if (a[0] !== "account" || a[1] !== "get-access-token") { console.error(`az stand-in: unsupported command: az ${a.join(" ")}`); process.exit(2); }',
      'if (opt("--output") !== "json") { console.error("az stand-in: expected --output json"); process.exit(2); }',
      'const resource = opt("--resource");',
      'if (!resource) { console.error("az stand-in: --resource is required here"); process.exit(2); }',
      `if (!fs.existsSync(${JSON.stringify(azAccount)})) { console.error("ERROR: Please run 'az login' to setup account."); process.exit(1); }`,
      `const account = JSON.parse(fs.readFileSync(${JSON.stringify(azAccount)}, "utf8"));`,
      `const url = ${JSON.stringify(`${o.identityEndpoint}/identity/oauth2/token?api-version=2020-10-01&resource=`)} + encodeURIComponent(resource);`,
      'fetch(url, { headers: { Metadata: "true" } }).then(async (r) => {',
      "  const body = await r.json();",
      "  if (!r.ok || !body.access_token) { console.error(`az stand-in: token request failed with ${r.status}`); process.exit(1); }",
      `  fs.appendFileSync(${JSON.stringify(join(o.toolsDir, "az-issued.log"))}, body.access_token + "\\n");`,
      "  const expires = new Date(Number(body.expires_on) * 1000);",
      '  const p = (n) => String(n).padStart(2, "0");',
      "  const expiresOn = `${expires.getFullYear()}-${p(expires.getMonth() + 1)}-${p(expires.getDate())} ${p(expires.getHours())}:${p(expires.getMinutes())}:${p(expires.getSeconds())}.000000`;",
      '  const out = { accessToken: body.access_token, expiresOn, expires_on: Number(body.expires_on), subscription: account.subscription, tenant: account.tenant, tokenType: "Bearer" };',
      "  process.stdout.write(JSON.stringify(out, null, 2) + '\\n');",
      "}, (e) => { console.error(`az stand-in: ${e.message}`); process.exit(1); });",
      "",
    ].join("\n"),
  );
  chmodSync(join(azBin, "az"), 0o755);

  const azureLogin: StandIn = async ({ inputs, job, log }) => {
    const missing = ["client-id", "tenant-id", "subscription-id"].filter((k) => !inputs[k]);
    if (missing.length) {
      log(`azure/login: missing ${missing.join(", ")} (OIDC login needs them)`);
      return { ok: false };
    }
    if (job.permissions["id-token"] !== "write") {
      log("azure/login: the job cannot request an OIDC token without permissions: id-token: write");
      return { ok: false };
    }
    writeFileSync(
      azAccount,
      JSON.stringify({ subscription: inputs["subscription-id"], tenant: inputs["tenant-id"], user: inputs["client-id"] }),
    );
    log(`logged in as ${inputs["client-id"]} (tenant ${inputs["tenant-id"]})`);
    return { ok: true, path: [azBin] };
  };

  const pulumiActions: StandIn = async ({ env, log }) => {
    const cli = locatePulumiCli(env);
    if (!cli) {
      log("pulumi/actions stand-in: no Pulumi CLI (npm run pulumi:install)");
      return { ok: false };
    }
    return { ok: true, path: [cli.binDir] };
  };

  const uploadSarif: StandIn = async ({ inputs, workspace, job, log }) => {
    if (job.permissions["security-events"] !== "write") {
      log("upload-sarif: the job needs permissions: security-events: write");
      return { ok: false };
    }
    const file = resolve(workspace, inputs.sarif_file ?? "");
    if (!inputs.sarif_file || !existsSync(file)) {
      log(`upload-sarif: no file at ${inputs.sarif_file}`);
      return { ok: false };
    }
    const sarif = JSON.parse(readFileSync(file, "utf8")) as SarifUpload["sarif"];
    const invalid = validateSarif(sarif);
    if (invalid) {
      log(`upload-sarif: invalid SARIF: ${invalid}`);
      return { ok: false };
    }
    sarifUploads.push({ job: job.name, category: inputs.category ?? "", file: relative(workspace, file), sarif });
    return { ok: true };
  };

  const uploadArtifact: StandIn = async ({ inputs, workspace, log }) => {
    const name = inputs.name || "artifact";
    const dest = join(o.artifactsDir, name);
    if (existsSync(dest)) {
      log(`upload-artifact: an artifact named ${name} exists in this run (v4 artifacts are immutable)`);
      return { ok: false };
    }
    const src = resolve(workspace, inputs.path ?? "");
    const hiddenOk = inputs["include-hidden-files"] === "true";
    const hidden = (p: string) => p.split(sep).some((c) => c.startsWith(".") && c !== "." && c !== "..");
    const files = existsSync(src) ? listFiles(src).filter((f) => hiddenOk || !hidden(relative(workspace, f))) : [];
    if (!files.length) {
      const mode = inputs["if-no-files-found"] || "warn";
      log(`upload-artifact: no files at ${inputs.path} (if-no-files-found: ${mode})`);
      return { ok: mode !== "error" };
    }
    const root = statSync(src).isDirectory() ? src : dirname(src);
    for (const f of files) cpSync(f, join(dest, relative(root, f)));
    log(`uploaded ${files.length} file(s) as ${name}`);
    return { ok: true };
  };

  const downloadArtifact: StandIn = async ({ inputs, workspace, log }) => {
    const pattern = inputs.pattern
      ? new RegExp(
          `^${inputs.pattern
            .replace(/[.+^${}()|[\]\\]/g, "\\$&")
            .replace(/\*/g, ".*")
            .replace(/\?/g, ".")}$`,
        )
      : undefined;
    const names = existsSync(o.artifactsDir)
      ? readdirSync(o.artifactsDir).filter((n) => (inputs.name ? n === inputs.name : !pattern || pattern.test(n)))
      : [];
    const path = resolve(workspace, inputs.path || ".");
    for (const n of names) cpSync(join(o.artifactsDir, n), inputs["merge-multiple"] === "true" ? path : join(path, n), { recursive: true });
    log(`downloaded ${names.length} artifact(s): ${names.join(", ")}`);
    return { ok: inputs.name ? names.length === 1 : true };
  };

  const githubScript: StandIn = async ({ inputs, env, workspace, log }): Promise<StandInResult> => {
    const c = o.context();
    const context = {
      eventName: c.eventName,
      sha: c.sha,
      ref: c.ref,
      runId: c.runId,
      serverUrl: "https://github.com",
      payload: c.payload,
      repo: o.repo,
      issue: { ...o.repo, number: c.issueNumber },
    };
    const core = {
      info: (m: string) => log(m),
      warning: (m: string) => log(`warning: ${m}`),
      setFailed: (m: string) => {
        throw new Error(m);
      },
    };
    const req = createRequire(join(workspace, "github-script.js"));
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
      ...args: string[]
    ) => (...a: unknown[]) => Promise<unknown>;
    const fn = new AsyncFunction("require", "github", "context", "core", inputs.script ?? "");
    // The action runs with the step's environment.
    const saved: Record<string, string | undefined> = {};
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    try {
      await fn(req, o.github, context, core);
      return { ok: true };
    } catch (e) {
      log(`github-script failed: ${(e as Error).message}`);
      return { ok: false };
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  };

  return {
    standIns: {
      "actions/checkout": checkout,
      "actions/setup-node": setupNode,
      "azure/login": azureLogin,
      "pulumi/actions": pulumiActions,
      "github/codeql-action/upload-sarif": uploadSarif,
      "actions/upload-artifact": uploadArtifact,
      "actions/download-artifact": downloadArtifact,
      "actions/github-script": githubScript,
    },
    runStandIns: { "npm ci": npmCi },
    sarifUploads,
    azTokensIssued: () =>
      existsSync(join(o.toolsDir, "az-issued.log"))
        ? readFileSync(join(o.toolsDir, "az-issued.log"), "utf8").split("\n").filter(Boolean)
        : [],
  };
}

function listFiles(p: string): string[] {
  const st = statSync(p);
  if (!st.isDirectory()) return [p];
  return readdirSync(p).flatMap((n) => listFiles(join(p, n)));
}
