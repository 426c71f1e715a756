import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { main } from "../../../src/interfaces/cli/main";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";

/** What one in-process run of the CLI wrote, and its exit code. */
export interface CliRun {
  code: number;
  /** The stdout lines, joined with newlines. */
  out: string;
  /** The stderr lines, joined with newlines. */
  err: string;
  /** Every line in the order written, `out <line>` or `err <line>`: for tests that assert the whole exchange. */
  transcript: string[];
}

/** Where the CLI runs: its working directory and its whole environment (nothing of this process's is passed on). */
export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** A CommandIO that records every line, for code that takes an IO without going through main. */
export interface CapturingIO extends CommandIO {
  /** The run so far, as runCliWith returns it, with `code` as its exit code. */
  result(code: number): CliRun;
}

/** A non-terminal CommandIO in `cwd` with exactly `env`, recording what is written. */
export function capturingIO({ cwd, env = {} }: CliOptions): CapturingIO {
  const out: string[] = [];
  const err: string[] = [];
  const transcript: string[] = [];
  return {
    out: (l) => {
      out.push(l);
      transcript.push(`out ${l}`);
    },
    err: (l) => {
      err.push(l);
      transcript.push(`err ${l}`);
    },
    isTTY: false,
    cwd,
    env,
    exitCode: 0,
    result: (code) => ({ code, out: out.join("\n"), err: err.join("\n"), transcript: [...transcript] }),
  };
}

/** Runs the CLI in-process with captured output, in `cwd` with exactly `env`. */
export async function runCliWith(argv: string[], options: CliOptions): Promise<CliRun> {
  const io = capturingIO(options);
  return io.result(await main(argv, io));
}

/** The environment that points the CLI at an emulator: its ARM and IMDS endpoints, and PATH. */
export function emulatorEnv(emulatorUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    // The suite's choice (vitest.config.mts: off), as the command's environment passes it to the scan cache.
    STACKWARDEN_SCAN_CACHE: process.env.STACKWARDEN_SCAN_CACHE,
    STACKWARDEN_ARM_ENDPOINT: emulatorUrl,
    STACKWARDEN_IMDS_ENDPOINT: `${emulatorUrl}/metadata`,
  };
}

/** Runs the CLI in-process with captured output, against an emulator's endpoints (and any `env` beside them). */
export function runCli(argv: string[], emulatorUrl: string, cwd: string, env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return runCliWith(argv, { cwd, env: { ...emulatorEnv(emulatorUrl), ...env } });
}

/** A temporary directory holding stack files. */
export function stackDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-cli-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
