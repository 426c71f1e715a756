import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/platform/version";

/** The README as it is in the checkout: blocks are read from it at test time, never copied. */
export function readme(): string {
  return readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
}

/** The lines of the first ```sh block after the heading (`## Quick start`, `### Point the CLI at the emulator`). */
export function shBlockAfter(text: string, heading: string): string[] {
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README: no heading "${heading}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m) throw new Error(`README: no sh block after "${heading}"`);
  return m[1].split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
}

/** The exit status a line's comment promises (`# exit 2: …`), or 0 when it names none. */
export function promisedExit(line: string): number {
  const m = /#.*?\bexit (\d+)\b/.exec(line);
  return m ? Number(m[1]) : 0;
}

/**
 * A fresh clone of the checkout's committed HEAD in a temporary directory (what a newcomer gets),
 * with none of the checkout's build output or node_modules.
 */
export function freshClone(): string {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-clone-"));
  execFileSync("git", ["clone", "--quiet", "--no-hardlinks", PROJECT_ROOT, join(dir, "repo")], { stdio: "ignore" });
  return join(dir, "repo");
}

export interface TypedLine {
  line: string;
  code: number;
  /** What the line printed on stdout and stderr, as it arrived. */
  output: string;
}

/**
 * One bash, fed the lines one at a time as a person types them: each foreground line runs to its
 * end and its exit status is read back; a line ending in `&` starts in the background, and the
 * next line is typed once it printed its first line (the emulator's URL), as a person waits for it.
 */
export class TypingShell {
  private readonly bash: ChildProcessWithoutNullStreams;
  private out = "";
  private n = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.bash = spawn("bash", [], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    this.bash.stdout.setEncoding("utf8").on("data", (d: string) => (this.out += d));
    this.bash.stderr.setEncoding("utf8").on("data", (d: string) => (this.out += d));
  }

  /** Everything printed so far. */
  get transcript(): string {
    return this.out;
  }

  /** Types one line and waits for it (see the class), up to `timeoutMs`. */
  async type(line: string, timeoutMs: number): Promise<TypedLine> {
    const n = ++this.n;
    const from = this.out.length;
    const marker = `__typed_${n}_rc_`;
    const background = /&\s*(#.*)?$/.test(line);
    this.bash.stdin.write(`${line}\n`);
    this.bash.stdin.write(`printf '\\n${marker}%s\\n' "$?"\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const since = this.out.slice(from);
      const m = new RegExp(`${marker}(\\d+)`).exec(since);
      const ready = !background || /^https?:\/\/\S+$/m.test(since);
      if (m && ready) return { line, code: Number(m[1]), output: since.slice(0, m.index) + since.slice(m.index + m[0].length) };
      if (this.bash.exitCode !== null) throw new Error(`bash ended while running: ${line}\n${since}`);
      if (Date.now() > deadline) throw new Error(`"${line}" did not finish within ${timeoutMs} ms; it printed:\n${since.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ends the shell, first stopping the background jobs it started (a test that failed half-way leaves none behind). */
  async close(): Promise<void> {
    if (this.bash.exitCode === null) {
      this.bash.stdin.end("kill $(jobs -p) 2>/dev/null; wait; exit\n");
      const ended = new Promise<void>((resolve) => this.bash.once("exit", () => resolve()));
      await Promise.race([ended, new Promise((r) => setTimeout(r, 15_000))]);
    }
    if (this.bash.exitCode === null) this.bash.kill("SIGKILL");
  }
}
