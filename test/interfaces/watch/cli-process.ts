import { setTimeout as delay } from "node:timers/promises";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..", "..", "..");

/** A running `stackwarden` child process whose output is collected line by line. */
export interface CliProcess {
  child: ChildProcess;
  pid: number;
  out(): string;
  err(): string;
  /** Resolves with the first stdout line matching `re` (rejects after `timeoutMs` or when the process ends). */
  line(re: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (a signal name when killed by one). */
  exited: Promise<number | string>;
}

/** Starts the compiled CLI (`bin/stackwarden.js`) as a child process. */
export function startCli(args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): CliProcess {
  const child = spawn(process.execPath, [join(ROOT, "bin", "stackwarden.js"), ...args], {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  const scan = () => {
    for (const w of [...waiters]) {
      const hit = out.split("\n").find((l) => w.re.test(l));
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
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
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

/** Polls `probe` until it returns a value other than undefined (bounded; no timing is asserted). */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
    await delay(50);
  }
}

/** The value of one series of a Prometheus text exposition (`name{a="b"}`), or undefined. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}
