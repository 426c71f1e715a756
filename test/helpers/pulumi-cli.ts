import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { parse, stringify } from "yaml";
import { locatePulumiCli, type PulumiCli } from "../../src/platform/programs/pulumi-engine";
import { runCliProcess, runCommand, type CommandResult } from "./cli-process";

/** The checkout these tests run from. */
export const REPO_ROOT = resolve(__dirname, "../..");

/** Printed (and never silent) when the e2e tier cannot run. */
export const E2E_SKIP_LINE = "SKIPPED e2e: no Pulumi CLI (npm run pulumi:install)";

/** `STACKWARDEN_E2E=required` (set by .ci/run): a missing CLI fails the run instead of skipping. */
export function e2eRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.STACKWARDEN_E2E === "required";
}

/** The Pulumi CLI the e2e tier uses (PATH first, then the pulumi:install cache), or undefined. */
export function e2eCli(env: NodeJS.ProcessEnv = process.env): PulumiCli | undefined {
  return locatePulumiCli(env);
}

/** The environment of a CLI run: the caller's, minus anything Pulumi, Azure or stackwarden, plus `extra`. */
export function isolatedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(PULUMI_|STACKWARDEN_|AZURE_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

export interface PulumiProjectOptions {
  cli: PulumiCli;
  /** The emulator's base URL (ARM under `/`, IMDS under `/metadata`). */
  emulatorUrl: string;
  passphrase?: string;
}

/**
 * A throw-away working copy of the Pulumi project: the repo's Pulumi.yaml, symlinks to the code
 * (`package.json`, `node_modules`, `dist`, `src`, `providers`, `policies`, `tsconfig.json`,
 * `stacks/*.ts` and `stacks/index.js`, the compiled program's entry) and a real `stacks/` directory for the test's stack files, so nothing is written
 * into the checkout. PULUMI_HOME and the file:// backend live beside it.
 */
export class PulumiProject {
  readonly root: string;
  readonly dir: string;
  readonly backendUrl: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(readonly opts: PulumiProjectOptions) {
    this.root = mkdtempSync(join(tmpdir(), "stackwarden-e2e-"));
    this.dir = join(this.root, "project");
    const home = join(this.root, "pulumi-home");
    const backend = join(this.root, "backend");
    for (const d of [this.dir, join(this.dir, "stacks"), home, backend]) mkdirSync(d, { recursive: true });
    copyFileSync(join(REPO_ROOT, "Pulumi.yaml"), join(this.dir, "Pulumi.yaml"));
    for (const f of ["package.json", "node_modules", "dist", "src", "providers", "policies", "tsconfig.json"]) {
      symlinkSync(join(REPO_ROOT, f), join(this.dir, f));
    }
    for (const f of readdirSync(join(REPO_ROOT, "stacks")).filter((n) => n.endsWith(".ts") || n.endsWith(".js"))) {
      symlinkSync(join(REPO_ROOT, "stacks", f), join(this.dir, "stacks", f));
    }
    this.backendUrl = `file://${backend}`;
    this.env = isolatedEnv({
      PATH: [opts.cli.binDir, process.env.PATH ?? ""].join(delimiter),
      PULUMI_HOME: home,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_AUTOMATION_API_SKIP_VERSION_CHECK: "true",
      PULUMI_CONFIG_PASSPHRASE: opts.passphrase ?? "stackwarden-e2e",
      STACKWARDEN_ARM_ENDPOINT: opts.emulatorUrl,
      STACKWARDEN_IMDS_ENDPOINT: `${opts.emulatorUrl}/metadata`,
      NO_COLOR: "1",
    });
  }

  /** `stacks/Pulumi.<stack>.yaml` of this copy. */
  stackFile(stack: string): string {
    return join(this.dir, "stacks", `Pulumi.${stack}.yaml`);
  }

  /** Writes a stack's `config:` (keeping Pulumi's own top-level keys such as `encryptionsalt`). */
  writeStackConfig(stack: string, config: Record<string, unknown>): void {
    let doc: Record<string, unknown> = {};
    try {
      doc = (parse(readFileSync(this.stackFile(stack), "utf8")) as Record<string, unknown>) ?? {};
    } catch {
      /* a new stack */
    }
    writeFileSync(this.stackFile(stack), stringify({ ...doc, config }));
  }

  readStackFile(stack: string): Record<string, unknown> {
    return parse(readFileSync(this.stackFile(stack), "utf8")) as Record<string, unknown>;
  }

  /** Runs `pulumi <args> --non-interactive --color never` in the project copy. */
  pulumi(args: string[], timeoutMs = 240_000): Promise<CommandResult> {
    return runCommand(this.opts.cli.command, [...args, "--non-interactive", "--color", "never"], {
      cwd: this.dir,
      env: this.env,
      timeoutMs,
    });
  }

  /** Runs `pulumi <args>` as `pulumi()` does, with another environment (another identity, a variable of the test's own). */
  pulumiWith(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000): Promise<CommandResult> {
    return runCommand(this.opts.cli.command, [...args, "--non-interactive", "--color", "never"], { cwd: this.dir, env, timeoutMs });
  }

  /** Runs the stackwarden CLI (the compiled one in the checkout) in the project copy. */
  stackwarden(args: string[], env: NodeJS.ProcessEnv = this.env, timeoutMs = 240_000): Promise<CommandResult> {
    return runCliProcess(args, { cwd: this.dir, env, timeoutMs });
  }

  cleanup(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

/** A failure message that shows what the CLI said. */
export function explain(r: CommandResult): string {
  return `exit ${r.code}${r.signal ? ` (${r.signal})` : ""} after ${r.ms} ms; output:\n${r.output.slice(-6000)}`;
}
