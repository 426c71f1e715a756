import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { stringify } from "yaml";
import type { PulumiCli } from "../../src/platform/programs/pulumi-engine";
import type { CommandResult } from "./cli-process";
import { runCommand } from "./cli-process";
import { isolatedEnv, REPO_ROOT } from "./pulumi-cli";

/**
 * The stand-in provider plugins of the e2e tier (`pulumi-resource-azure-native`, see
 * test/e2e/stand-ins/azure-native-provider.js). Only a YamlProgram with `standIns: true` puts this
 * directory on PATH: beside the CLI it would shadow a real plugin.
 */
export const STAND_IN_BIN = join(REPO_ROOT, "test", "e2e", "stand-ins", "bin");

/** Pulumi YAML's language host beside the CLI (npm run pulumi:install builds it), or undefined. */
export function yamlLanguageHost(cli: PulumiCli): string | undefined {
  const host = join(cli.binDir, "pulumi-language-yaml");
  return existsSync(host) ? host : undefined;
}

export interface YamlProgramOptions {
  cli: PulumiCli;
  /** Pulumi.yaml's `name` (the project). */
  name?: string;
  /** Put the stand-in provider plugins on PATH (a program that declares azure-native resources needs them). */
  standIns?: boolean;
  passphrase?: string;
  /** More environment for the CLI and its plugins (an analyzer's settings, an emulator's endpoints). */
  env?: Record<string, string>;
}

/** What Pulumi.yaml says besides `name` and `runtime` (resources, variables, outputs, config). */
export interface YamlProgramBody {
  config?: Record<string, unknown>;
  variables?: Record<string, unknown>;
  resources?: Record<string, { type: string; properties?: Record<string, unknown>; options?: Record<string, unknown> }>;
  outputs?: Record<string, unknown>;
}

export interface PulumiRunOptions {
  stack?: string;
  /** Each becomes `--policy-pack DIR` (e.g. join(REPO_ROOT, "policies")). */
  policyPacks?: string[];
  /** `--json`: the result's stdout is the engine's JSON (previewSteps reads a preview's). */
  json?: boolean;
  args?: string[];
  timeoutMs?: number;
}

/** One step of `pulumi preview --json`. */
export interface PreviewStep {
  op: string;
  urn: string;
  type: string;
  inputs: Record<string, unknown>;
}

/**
 * A Pulumi YAML program in a throw-away directory, with its own PULUMI_HOME and file:// backend, run
 * by the CLI the e2e tier found: write() the program, initStack(), then preview()/up() with any
 * `--policy-pack`. Nothing is written into the checkout.
 */
export class YamlProgram {
  readonly root: string;
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(readonly opts: YamlProgramOptions) {
    this.root = mkdtempSync(join(tmpdir(), "stackwarden-yaml-"));
    this.dir = join(this.root, "program");
    const home = join(this.root, "pulumi-home");
    const backend = join(this.root, "backend");
    for (const d of [this.dir, home, backend]) mkdirSync(d, { recursive: true });
    const path = [...(opts.standIns ? [STAND_IN_BIN] : []), opts.cli.binDir, process.env.PATH ?? ""];
    this.env = isolatedEnv({
      PATH: path.join(delimiter),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? "stackwarden-e2e",
      NO_COLOR: "1",
      ...opts.env,
    });
  }

  /** Writes Pulumi.yaml: the project name, `runtime: yaml` and the body. */
  write(body: YamlProgramBody): void {
    writeFileSync(join(this.dir, "Pulumi.yaml"), stringify({ name: this.opts.name ?? "yaml-program", runtime: "yaml", ...body }));
  }

  /** Runs `pulumi <args> --non-interactive --color never` in the program's directory. */
  pulumi(args: string[], timeoutMs = 240_000): Promise<CommandResult> {
    return runCommand(this.opts.cli.command, [...args, "--non-interactive", "--color", "never"], {
      cwd: this.dir,
      env: this.env,
      timeoutMs,
    });
  }

  initStack(stack = "dev"): Promise<CommandResult> {
    return this.pulumi(["stack", "init", stack]);
  }

  /** `pulumi preview` of a stack, with each policy pack given. */
  preview(run: PulumiRunOptions = {}): Promise<CommandResult> {
    return this.pulumi(["preview", ...this.runArgs(run)], run.timeoutMs);
  }

  /** `pulumi up --yes --skip-preview` of a stack, with each policy pack given. */
  up(run: PulumiRunOptions = {}): Promise<CommandResult> {
    return this.pulumi(["up", "--yes", "--skip-preview", ...this.runArgs(run)], run.timeoutMs);
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }

  private runArgs(run: PulumiRunOptions): string[] {
    return [
      "--stack",
      run.stack ?? "dev",
      ...(run.policyPacks ?? []).flatMap((p) => ["--policy-pack", p]),
      ...(run.json ? ["--json"] : []),
      ...(run.args ?? []),
    ];
  }
}

/** The steps of a `pulumi preview --json` run (its stdout), with each step's resource type and inputs. */
export function previewSteps(r: CommandResult): PreviewStep[] {
  const doc = JSON.parse(r.stdout) as {
    steps?: { op: string; urn: string; newState?: { type: string; inputs?: Record<string, unknown> } }[];
  };
  return (doc.steps ?? []).map((s) => ({
    op: s.op,
    urn: s.urn,
    type: s.newState?.type ?? s.urn.split("::")[2],
    inputs: s.newState?.inputs ?? {},
  }));
}
