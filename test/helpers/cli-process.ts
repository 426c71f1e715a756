import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/platform/version";

// The CLI as users run it: `node bin/stackwarden.js …` in a child process, for what only a process
// shows (exit codes, signals, stdout/stderr, what a debug log prints). In-process runs use the
// harness in test/interfaces/cli/cli-harness.ts instead.

/** The CLI's entry point in the checkout; it runs the compiled code in dist/. */
export const STACKWARDEN_BIN = join(PROJECT_ROOT, "bin", "stackwarden.js");

/** Throws, saying what to do, when dist/ has not been built (the child processes run it). */
export function requireCompiledCli(): void {
  if (!existsSync(join(PROJECT_ROOT, "dist", "src", "interfaces", "cli", "main.js")))
    throw new Error("dist/ is missing: run `npm run build` (npm test's pretest does)");
}

/** The environment of a clean shell: this process's, without any STACKWARDEN_ or AZURE_ variable, plus `extra`. */
export function cleanShellEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(STACKWARDEN_|AZURE_)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they arrived, for assertions and failure messages. */
  output: string;
  ms: number;
}

/**
 * Runs a command asynchronously (the test process may host the emulator, so its event loop must
 * stay free) and collects its output. Kills it after `timeoutMs`.
 */
export function runCommand(
  command: string,
  args: string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number; input?: string },
): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
      output += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
      output += d;
    });
    child.stdin.end(opts.input ?? "");
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 240_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      fail(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, output, ms: Date.now() - started });
    });
  });
}

/** Where and how a CLI process runs; `nodeArgs` go to node before the entry point (e.g. `--require`). */
export interface CliProcessOptions {
  cwd?: string;
  env: NodeJS.ProcessEnv;
  nodeArgs?: string[];
  /** The entry point to run: default the checkout's bin/stackwarden.js (an installed package's, to test that). */
  bin?: string;
}

/** Runs `stackwarden args…` to its end in a child process (`input` on its stdin) and collects its output. */
export function runCliProcess(args: string[], opts: CliProcessOptions & { timeoutMs?: number; input?: string }): Promise<CommandResult> {
  return runCommand(process.execPath, [...(opts.nodeArgs ?? []), opts.bin ?? STACKWARDEN_BIN, ...args], opts);
}

/** A running `stackwarden` child process whose output is collected line by line. */
export interface CliProcess {
  child: ChildProcess;
  pid: number;
  out(): string;
  err(): string;
  /** Resolves with the first complete stdout line matching `re` (rejects after `timeoutMs` or when the process ends). */
  line(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (a signal name when killed by one), once all its output is in. */
  exited: Promise<number | string>;
}

/** Starts `stackwarden args…` as a child process that keeps running (a watcher, an emulator). */
export function startCli(args: string[], opts: CliProcessOptions): CliProcess {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.bin ?? STACKWARDEN_BIN, ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  const scan = () => {
    // Complete lines only: a line still being written could match a prefix of what it will say.
    const lines = out.split("\n").slice(0, -1);
    for (const w of [...waiters]) {
      const hit = lines.find((l) => w.re.test(l));
      if (hit !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(hit);
      }
    }
  };
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    scan();
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | string>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    pid: child.pid!,
    out: () => out,
    err: () => err,
    exited,
    line(re, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no line matching ${re} within ${timeoutMs} ms.\nstdout:\n${out}\nstderr:\n${err}`)),
          timeoutMs,
        );
        const w = {
          re,
          resolve: (l: string) => {
            clearTimeout(timer);
            resolve(l);
          },
        };
        waiters.push(w);
        scan();
        void exited.then(() => {
          if (waiters.includes(w)) {
            clearTimeout(timer);
            reject(new Error(`the process ended (stdout:\n${out}\nstderr:\n${err})\nbefore a line matching ${re}`));
          }
        });
      });
    },
  };
}

/** A `stackwarden emulator` child process, and the base URL it printed. */
export interface EmulatorProcess extends CliProcess {
  url: string;
}

/** Starts `stackwarden emulator args…` and resolves once it printed its URL (rejects if it ends first). */
export async function startEmulatorProcess(args: string[], opts: CliProcessOptions): Promise<EmulatorProcess> {
  const p = startCli(["emulator", ...args], opts);
  try {
    return { ...p, url: (await p.line(/^https?:\/\//, 30_000)).trim() };
  } catch (e) {
    p.child.kill("SIGKILL");
    throw e;
  }
}
