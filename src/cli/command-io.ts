/** Where commands write: swappable so tests can capture output in-process. */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Whether stdout is a terminal (live progress) or a pipe (plain lines). */
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Set by a command to choose the process exit code (default 0). */
  exitCode: number;
}

/** A fresh IO bound to the process streams. */
export const processIO = (): CommandIO => ({
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
  cwd: process.cwd(),
  exitCode: 0,
});
