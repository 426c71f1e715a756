/** Where commands write and whom they ask: swappable so tests can capture output in-process. */
export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
  /** Raw text to stdout, no newline added: for a live display redrawn in place. */
  write?(text: string): void;
  /** Asks a question on the terminal; absent when no one can answer (stdin is not a terminal). */
  ask?(question: string): Promise<string>;
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
  write: (text) => process.stdout.write(text),
  ask: process.stdin.isTTY ? askOnTerminal : undefined,
  isTTY: Boolean(process.stdout.isTTY),
  env: process.env,
  cwd: process.cwd(),
  exitCode: 0,
});

async function askOnTerminal(question: string): Promise<string> {
  // Loaded here, not at the top: only a command that asks needs readline (start-up stays light).
  const { createInterface } = await import("node:readline/promises");
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
