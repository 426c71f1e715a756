import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../src/platform/version";

/** The README as it is in the checkout: blocks are read from it at test time, never copied. */
export function readme(): string {
  return readFileSync(join(PROJECT_ROOT, "README.md"), "utf8");
}

/** A page of docs/ as it is in the checkout (`pulumi.md`). */
export function docPage(name: string): string {
  return readFileSync(join(PROJECT_ROOT, "docs", name), "utf8");
}

/** The README, then every page of docs/ by name: the documents whose shell blocks the blocks test covers. */
export function documents(): { file: string; text: string }[] {
  const pages = readdirSync(join(PROJECT_ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort();
  return [{ file: "README.md", text: readme() }, ...pages.map((f) => ({ file: `docs/${f}`, text: docPage(f) }))];
}

/** The README and every docs/ page in one text: for a test that checks a sentence or table wherever it now lives. */
export function allDocs(): string {
  return documents()
    .map((d) => d.text)
    .join("\n");
}

/** The lines of the first ```sh block after the heading (`## Quick start`, `### Point the CLI at the emulator`). */
export function shBlockAfter(text: string, heading: string): string[] {
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README: no heading "${heading}"`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m) throw new Error(`README: no sh block after "${heading}"`);
  return m[1].split("\n").filter((l) => l.trim() && !l.trim().startsWith("#"));
}

/** How a fenced shell block of the README says it is tested: the HTML comment on the line above its fence. */
export type BlockMarker =
  /** `<!-- runnable -->`: run as written, in a fresh clone after the quick start's `npm ci`. */
  | { kind: "runnable" }
  /** `<!-- runnable with an emulator -->`: the same, with STACKWARDEN_EMULATOR naming an emulator of the dev estate. */
  | { kind: "runnable with an emulator" }
  /** `<!-- not run: REASON -->`: what it needs that a test machine has not (real Azure, the Pulumi CLI, …). */
  | { kind: "not run"; reason: string }
  /** No marker, or one this list does not know: a block the README test refuses. */
  | { kind: "unmarked"; above: string };

export interface ShellBlock {
  /** The document it is in (`README.md`, `docs/recipes.md`). */
  file: string;
  /** The line of its opening fence, counted from 1. */
  line: number;
  /** The heading it sits under (`### Point the CLI at the emulator`). */
  heading: string;
  marker: BlockMarker;
  /** Its commands as typed: comment-only and blank lines left out, `\`-continued lines joined into one. */
  commands: string[];
}

/** The shell languages a fence may name; a fence with no language (a synopsis, sample output) is no shell block. */
const SHELL_FENCE = /^\s*```(sh|bash|shell|console|zsh)\b/;
/** A fence, at any indent (a block inside a list item is indented). */
const FENCE = /^\s*```/;

function markerOf(above: string): BlockMarker {
  const t = above.trim();
  if (t === "<!-- runnable -->") return { kind: "runnable" };
  if (t === "<!-- runnable with an emulator -->") return { kind: "runnable with an emulator" };
  const m = /^<!-- not run: (.*\S)\s*-->$/.exec(t);
  if (m) return { kind: "not run", reason: m[1] };
  return { kind: "unmarked", above: t };
}

/** Joins `\`-continued lines and leaves out blank and comment-only ones: what a person types, line by line. */
export function commandLines(body: string[]): string[] {
  const out: string[] = [];
  let pending = "";
  for (const raw of body) {
    const line = pending ? `${pending} ${raw.trim()}` : raw;
    if (/\\\s*$/.test(line)) {
      pending = line.replace(/\s*\\\s*$/, "");
      continue;
    }
    pending = "";
    if (line.trim() && !line.trim().startsWith("#")) out.push(line);
  }
  if (pending) out.push(pending);
  return out;
}

/** Every fenced shell block of a document (the README by default), in order, with its marker and its commands. */
export function shellBlocks(text: string, file = "README.md"): ShellBlock[] {
  const lines = text.split("\n");
  const blocks: ShellBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    if (/^#{1,6} /.test(lines[i])) heading = lines[i];
    if (!FENCE.test(lines[i])) continue;
    const end = lines.findIndex((l, j) => j > i && FENCE.test(l));
    if (end < 0) throw new Error(`${file}: the fence on line ${i + 1} is never closed`);
    if (SHELL_FENCE.test(lines[i])) {
      const body = lines.slice(i + 1, end).map((l) => l.trim());
      blocks.push({ file, line: i + 1, heading, marker: markerOf(lines[i - 1] ?? ""), commands: commandLines(body) });
    }
    i = end;
  }
  return blocks;
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

/**
 * Removes a fresh clone in a process of its own that outlives the test: `npm ci`'s ~87 000 files took
 * 2 to 6 minutes to delete on a busy shared disk (past the 120 s hook budget), time no assertion needs.
 */
export function removeInBackground(dir: string): void {
  spawn("rm", ["-rf", "--", dir], { detached: true, stdio: "ignore" }).unref();
}

export interface TypedLine {
  line: string;
  code: number;
  /** What the line printed on stdout and stderr, as it arrived. */
  output: string;
}

/** Whether a typed line starts in the background (`… &`, with or without a comment after it). */
export function isBackground(line: string): boolean {
  return /&\s*(#.*)?$/.test(line);
}

/** The variables a line exports (`export A=1 B=2`), with the values as written. */
export function exportsOf(line: string): Map<string, string> {
  const out = new Map<string, string>();
  const m = /^export\s+(.*?)\s*(#.*)?$/.exec(line.trim());
  if (!m) return out;
  for (const [, name, value] of m[1].matchAll(/([A-Z_][A-Z0-9_]*)=(\S*)/g)) out.set(name, value);
  return out;
}

export interface TypeOptions {
  /**
   * For a background line: variables whose `export NAME=…` line it must have printed before the next
   * line is typed (the block exports them next, with the values it printed).
   */
  printsExports?: string[];
}

/**
 * One bash, fed the lines one at a time as a person types them: each foreground line runs to its
 * end and its exit status is read back; a line ending in `&` starts in the background, and the
 * next line is typed once it printed a URL (the emulator's first line, a watcher's "listening on
 * http://…") and every `export` line the block goes on to use, as a person waits for them.
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
  async type(line: string, timeoutMs: number, opts: TypeOptions = {}): Promise<TypedLine> {
    const n = ++this.n;
    const from = this.out.length;
    const marker = `__typed_${n}_rc_`;
    const background = isBackground(line);
    const waits = (opts.printsExports ?? []).map((name) => new RegExp(`^export ${name}=\\S+$`, "m"));
    this.bash.stdin.write(`${line}\n`);
    this.bash.stdin.write(`printf '\\n${marker}%s\\n' "$?"\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const since = this.out.slice(from);
      const m = new RegExp(`${marker}(\\d+)`).exec(since);
      const ready = !background || (/https?:\/\/\S+/.test(since) && waits.every((w) => w.test(since)));
      if (m && ready) return { line, code: Number(m[1]), output: since.slice(0, m.index) + since.slice(m.index + m[0].length) };
      // A background job that failed (its port taken, a bad flag) prints its error line and never a URL: no use waiting.
      if (background && /^stackwarden[\w ]*: SW_[A-Z_]+: /m.test(since))
        throw new Error(`"${line}" failed in the background:\n${since.slice(-4000)}`);
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

/** The local ports a block's commands listen on (`--port N`, `--storage-port N`, `--listen HOST:N`). */
export function portsOf(commands: string[]): number[] {
  const ports = commands.flatMap((l) => [...l.matchAll(/--(?:storage-)?port (\d+)|--listen \S*:(\d+)/g)].map((m) => Number(m[1] ?? m[2])));
  return [...new Set(ports)].filter((p) => p > 0);
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Waits until every port is free, up to `timeoutMs`: the README's blocks use fixed ports (4000, 9090, …),
 * and another checkout's README test on the same machine may hold one for a minute; then it says who.
 */
export async function waitForFreePorts(ports: number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const taken: number[] = [];
    for (const port of ports) if (!(await portIsFree(port))) taken.push(port);
    if (taken.length === 0) return;
    if (Date.now() > deadline)
      throw new Error(`ports ${taken.join(", ")} stayed in use for ${timeoutMs / 1000} s (ss -ltnp names the process)`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
