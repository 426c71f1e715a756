import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { PROJECT_ROOT } from "../src/platform/version";

/** A `stackwarden watch` in a child process, in a directory of its own (its own `.stackwarden/`: locks, statuses, outbox). */
export interface WatcherChild {
  child: ChildProcess;
  /** Its `--listen` URL. */
  url: string;
  /** Everything it printed so far. */
  out(): string;
  /** Its ARM attempts so far by service (IMDS left out), and the 429s among them, from its /metrics. */
  requests(): Promise<{ byService: Record<string, number>; total: number; throttled: number }>;
  stop(): Promise<number | null>;
}

/** Writes `files` (name → text) under a new directory's `stacks/` and starts `stackwarden watch --all --listen 127.0.0.1:0 …args` there. */
export async function startWatcher(files: Map<string, string>, args: string[], env: Record<string, string>): Promise<WatcherChild> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-drift-"));
  mkdirSync(join(dir, "stacks"));
  for (const [name, text] of files) writeFileSync(join(dir, "stacks", name), text);
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bin", "stackwarden.js"), "watch", "--all", "--listen", "127.0.0.1:0", ...args],
    {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  let done = false;
  void exited.then(() => (done = true));
  while (!done && !/listening on http/.test(out)) await sleep(50);
  const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
  if (!url) throw new Error(`the watcher did not listen (exit ${String(await exited)}):\n${err.slice(-2000)}${out.slice(-2000)}`);
  return {
    child,
    url,
    out: () => out,
    async requests() {
      const text = await (await fetch(`${url}/metrics`)).text();
      const byService: Record<string, number> = {};
      let throttled = 0;
      for (const m of text.matchAll(/^stackwarden_api_requests_total\{([^}]*)\} (\d+)/gm)) {
        const service = /service="([^"]*)"/.exec(m[1])?.[1] ?? "";
        if (service !== "imds") byService[service] = (byService[service] ?? 0) + Number(m[2]);
      }
      for (const m of text.matchAll(/^stackwarden_api_throttled_total\{[^}]*\} (\d+)/gm)) throttled += Number(m[1]);
      return { byService, total: Object.values(byService).reduce((a, b) => a + b, 0), throttled };
    },
    async stop() {
      child.kill("SIGTERM");
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
