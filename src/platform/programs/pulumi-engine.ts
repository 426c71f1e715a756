import { accessSync, constants, existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import type * as Automation from "@pulumi/pulumi/automation";
import type { ErrorCode } from "../errors/error-codes";
import { errorLine } from "../errors/error-line";
import { PROJECT_ROOT } from "../version";

/** The one line printed when no Pulumi CLI can be found. */
export const PULUMI_INSTALL_HINT = "npm run pulumi:install";

/** The default state backend of `apply --engine pulumi` (override with PULUMI_BACKEND_URL). */
export const DEFAULT_BACKEND_URL = "file://~/.pulumi-local";

/** Where a Pulumi CLI was found. */
export interface PulumiCli {
  /** Absolute path of the `pulumi` executable. */
  command: string;
  /** Its directory; the plugins (language host, dynamic provider, analyzer shims) live beside it. */
  binDir: string;
  source: "PATH" | "cache";
}

/** The version of `@pulumi/pulumi` this project runs with (the CLI built by pulumi:install matches it). */
export function pulumiSdkVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a JSON file outside rootDir, read when asked
  return (require("@pulumi/pulumi/package.json") as { version: string }).version;
}

/**
 * The bin directory that `npm run pulumi:install` fills:
 * `${STACKWARDEN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/stackwarden}/pulumi-v<version>/bin`.
 */
export function pulumiCacheBinDir(env: NodeJS.ProcessEnv = process.env, version = pulumiSdkVersion()): string {
  const cacheRoot = env.STACKWARDEN_CACHE_DIR || join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "stackwarden");
  return resolve(cacheRoot, `pulumi-v${version}`, "bin");
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `pulumi` on PATH, then in the pulumi:install cache; undefined when neither has one. */
export function locatePulumiCli(env: NodeJS.ProcessEnv = process.env): PulumiCli | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const command = resolve(dir, "pulumi");
    if (isExecutableFile(command)) return { command, binDir: dirname(command), source: "PATH" };
  }
  const binDir = pulumiCacheBinDir(env);
  const command = join(binDir, "pulumi");
  return isExecutableFile(command) ? { command, binDir, source: "cache" } : undefined;
}

/** The one-line message for a missing CLI, naming where it looked and how to get one. */
export function missingCliMessage(env: NodeJS.ProcessEnv = process.env): string {
  return `no Pulumi CLI found (not on PATH, not in ${pulumiCacheBinDir(env)}): run \`${PULUMI_INSTALL_HINT}\` to build it, then retry`;
}

/** What the engine writes to and reads from; `CommandIO` fits. */
export interface EngineIO {
  out(line: string): void;
  err(line: string): void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export interface PulumiApplyOptions {
  /** The stack name (`stacks/Pulumi.<stack>.yaml` of the project). */
  stack: string;
  /** The stack file, already validated; its project is the directory above `stacks/`. */
  stackFile: string;
  yes?: boolean;
  /**
   * Asked after the preview when not `yes`; absent: no one can be asked (stdin is not a
   * terminal), and the run refuses before the engine starts.
   */
  confirm?(): Promise<boolean>;
  /** Called for each resource `pulumi up` changed (for the audit trail): its URN or database id, the TDE status before and after, the step's op. */
  onResourceChange?: (change: ResourceChange) => void;
  /**
   * Receives the run's closing line (the outcome, or why `pulumi up` failed) instead of it being
   * printed, so a caller that reports more afterwards (the audit note) can print it last.
   */
  onSummary?: (summary: EngineSummary) => void;
  /**
   * Variables for the engine and its plugins beside this process's own (the state's location and
   * the hand-off of the stack's lock, which the TDE provider writes under). Never in its state.
   */
  env?: Record<string, string>;
}

/** The one line that closes a run: on stdout when it succeeded, on stderr when it failed. */
export interface EngineSummary {
  stream: "out" | "err";
  line: string;
}

/** One resource step of `pulumi up` that changed something. */
export interface ResourceChange {
  resource: string;
  before: string | null;
  after: string | null;
  op: string;
}

/** Reads resource changes out of engine events: steps other than same/read/refresh, with only the `status` output kept (never other outputs: they may hold secrets). */
function resourceChangesOf(onChange?: (c: ResourceChange) => void): ((e: Automation.EngineEvent) => void) | undefined {
  if (!onChange) return undefined;
  return (e) => {
    const m = e.resOutputsEvent?.metadata;
    if (!m || ["same", "read", "refresh", "discard"].includes(m.op) || m.type.startsWith("pulumi:")) return;
    const status = (s?: Automation.StepEventStateMetadata) => {
      const v = s?.outputs?.status ?? s?.inputs?.transparentDataEncryption;
      return typeof v === "string" ? v : null;
    };
    const id = m.new?.outputs?.databaseId ?? m.old?.outputs?.databaseId;
    onChange({ resource: typeof id === "string" ? id : m.urn, before: status(m.old), after: status(m.new), op: m.op });
  };
}

/** Whether an error from the Automation API is a CLI that could not be started (ENOENT). */
function isMissingCli(e: unknown): boolean {
  const err = e as { code?: string; commandResult?: { err?: { code?: string } } };
  return err?.code === "ENOENT" || err?.commandResult?.err?.code === "ENOENT";
}

/** Splits streamed chunks into whole lines. */
function lineWriter(write: (line: string) => void): { push(chunk: string): void; flush(): void } {
  let rest = "";
  return {
    push(chunk) {
      const parts = (rest + chunk).split(/\r?\n/);
      rest = parts.pop() ?? "";
      for (const p of parts) write(p);
    },
    flush() {
      if (rest) write(rest);
      rest = "";
    },
  };
}

/** The last meaningful line of a failed CLI command (its `error: ...`), for the one-line summary. */
function failureLine(e: unknown): string {
  const r = (e as { commandResult?: { stderr?: string; code?: number } }).commandResult;
  const lines = `${r?.stderr ?? (e as Error).message ?? e}`
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const error = [...lines].reverse().find((l) => /^error:/i.test(l)) ?? lines[lines.length - 1] ?? "unknown error";
  return `${error.replace(/^error:\s*/i, "")}${r?.code !== undefined && r.code >= 0 ? ` (pulumi exit ${r.code})` : ""}`;
}

/** Why the engine cannot start, in one line with its code. */
interface EngineRefusal {
  refused: { code: ErrorCode; message: string };
}

/**
 * What the engine needs before it starts: a yes (or someone to ask), a Pulumi CLI, the stack file
 * inside a Pulumi project, and a passphrase for a file backend; or why it cannot start.
 */
function prepareEngine(
  opts: PulumiApplyOptions,
  env: NodeJS.ProcessEnv,
): { cli: PulumiCli; projectDir: string; backend: string } | EngineRefusal {
  const refuse = (code: ErrorCode, message: string): EngineRefusal => ({ refused: { code, message } });
  if (!opts.yes && !opts.confirm)
    return refuse(
      "SW_NOT_CONFIRMED",
      `refusing to run pulumi up on stack ${opts.stack} without --yes: stdin is not a terminal, so no one can confirm; nothing was changed (pass --yes)`,
    );
  const cli = locatePulumiCli(env);
  if (!cli) return refuse("SW_TOOL_MISSING", missingCliMessage(env));
  const projectDir = dirname(dirname(resolve(opts.stackFile)));
  if (!existsSync(join(projectDir, "Pulumi.yaml")))
    return refuse(
      "SW_CONFIG_INVALID",
      `${opts.stackFile} is not in a Pulumi project (no Pulumi.yaml in ${projectDir}); --engine pulumi needs the project's stacks/Pulumi.<stack>.yaml`,
    );
  // The CLI expands `~` from the passwd entry, not $HOME: expand it here so HOME is honoured.
  const backend = (env.PULUMI_BACKEND_URL || DEFAULT_BACKEND_URL).replace(/^file:\/\/~(?=\/|$)/, `file://${env.HOME || homedir()}`);
  if (backend.startsWith("file://") && !env.PULUMI_CONFIG_PASSPHRASE && !env.PULUMI_CONFIG_PASSPHRASE_FILE)
    return refuse(
      "SW_SETTING_INVALID",
      `the ${backend} backend encrypts stack secrets with a passphrase: set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE)`,
    );
  return { cli, projectDir, backend };
}

/**
 * The pack the engine runs: the project's own `policies/` when it has one (a clone of stackwarden),
 * else the pack stackwarden ships (`policies/` of the installed package: a project that installed
 * it has none of its own). None when neither has a PulumiPolicy.yaml.
 */
export function policyPackFor(projectDir: string): string[] {
  for (const dir of [join(projectDir, "policies"), join(PROJECT_ROOT, "policies")])
    if (existsSync(join(dir, "PulumiPolicy.yaml"))) return [dir];
  return [];
}

/**
 * `stackwarden apply --engine pulumi`: runs `pulumi up --refresh --policy-pack <project>/policies` on
 * the stack through the Automation API (LocalWorkspace on the project directory), streaming the CLI's output. The backend is
 * PULUMI_BACKEND_URL or `file://~/.pulumi-local`; file backends need PULUMI_CONFIG_PASSPHRASE(_FILE).
 * Resolves to the exit code: 0 converged, 1 error (a missing CLI is one line with the install hint).
 */
export async function runPulumiApply(opts: PulumiApplyOptions, io: EngineIO): Promise<number> {
  const env = io.env;
  const prepared = prepareEngine(opts, env);
  if ("refused" in prepared) {
    io.err(errorLine("stackwarden apply", prepared.refused.code, prepared.refused.message));
    return 1;
  }
  const { cli, projectDir, backend } = prepared;
  // A file backend's directory must exist.
  if (backend.startsWith("file://")) mkdirSync(backend.slice("file://".length).replace(/\?.*$/, ""), { recursive: true });

  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the engine runs: it is heavy
  const auto = require("@pulumi/pulumi/automation") as typeof Automation;
  const out = lineWriter((l) => io.out(l));
  const err = lineWriter((l) => io.err(l));
  // The compliance pack gates the engine as it gates `pulumi up --policy-pack policies`: a
  // mandatory violation stops the update before anything changes.
  const policyPacks = policyPackFor(projectDir);
  const common = { color: (io.isTTY ? "auto" : "never") as "auto" | "never", onOutput: out.push, onError: err.push, policyPacks };
  try {
    // From PATH the Automation API runs `pulumi` itself; from the cache it needs the install root (`<root>/bin/pulumi`).
    const pulumiCommand = await auto.PulumiCommand.get({
      ...(cli.source === "cache" ? { root: dirname(cli.binDir) } : {}),
      skipVersionCheck: true,
    });
    const stack = await auto.LocalWorkspace.createOrSelectStack(
      { stackName: opts.stack, workDir: projectDir },
      {
        pulumiCommand,
        envVars: {
          ...opts.env,
          PULUMI_BACKEND_URL: backend,
          PULUMI_SKIP_UPDATE_CHECK: env.PULUMI_SKIP_UPDATE_CHECK ?? "true",
          // The analyzer shim and other plugins are found on PATH only.
          PATH: [cli.binDir, env.PATH ?? ""].filter(Boolean).join(delimiter),
        },
      },
    );
    io.out(
      `Pulumi engine: stack ${opts.stack} in ${projectDir}, backend ${backend}, CLI ${cli.command} (${pulumiCommand.version?.toString() ?? "unknown version"}), policy pack ${policyPacks[0] ?? "none (no policies/PulumiPolicy.yaml)"}`,
    );
    if (!opts.yes) {
      await stack.preview({ ...common, refresh: true });
      out.flush();
      err.flush();
      if (!(await opts.confirm!())) {
        io.err(errorLine("stackwarden apply", "SW_NOT_CONFIRMED", "cancelled; nothing was changed"));
        return 1;
      }
    }
    const result = await stack.up({ ...common, refresh: true, onEvent: resourceChangesOf(opts.onResourceChange) });
    out.flush();
    err.flush();
    const changes = Object.entries(result.summary.resourceChanges ?? {})
      .filter(([k]) => k !== "same")
      .map(([k, n]) => `${n} ${k}`);
    const line = `Apply (pulumi): ${result.summary.result}${changes.length ? `, ${changes.join(", ")}` : ", no changes"}.`;
    if (opts.onSummary) opts.onSummary({ stream: "out", line });
    else io.out(line);
    return result.summary.result === "succeeded" ? 0 : 1;
  } catch (e) {
    out.flush();
    err.flush();
    const line = isMissingCli(e)
      ? errorLine("stackwarden apply", "SW_TOOL_MISSING", missingCliMessage(env))
      : errorLine("stackwarden apply", "SW_ENGINE_FAILED", `pulumi up failed: ${failureLine(e)}`);
    if (opts.onSummary) opts.onSummary({ stream: "err", line });
    else io.err(line);
    return 1;
  }
}
