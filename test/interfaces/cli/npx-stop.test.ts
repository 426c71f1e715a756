import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { startTestEmulator, type TestEmulator } from "../../helpers/emulator";

// Long-running commands stop when told, however they were started. `npx stackwarden emulator &`
// then `kill $!` signals npm exec, whose shell exits without passing the signal on: the node
// process below it must stop all the same (it notices its parent is gone), within seconds, and
// leave its state, lock and audit trail closed cleanly. Real processes, started through npm exec.

/** The environment of a clean shell (none of the variables that change what the CLI does). */
function shellEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^(STACKWARDEN_|AZURE_|npm_)/i.test(k)) delete env[k];
  return { ...env, ...extra };
}

/** `npx stackwarden …` from the project directory, as a user types it, with its output collected. */
function npx(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; out: () => string } {
  const child = spawn("npx", ["stackwarden", ...args], { cwd: PROJECT_ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (out += d));
  return { child, out: () => out };
}

/** The pid of the node process running stackwarden with an argument that only this test uses. */
function stackwardenPid(marker: string): number | undefined {
  const ps = execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" });
  const line = ps.split("\n").find((l) => l.includes(marker) && /node\s/.test(l) && /stackwarden/.test(l) && !/npm exec|sh -c/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(100);
  }
}

async function inProcess(argv: string[], env: Record<string, string>): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const io: CommandIO = {
    out: () => {},
    err: (l) => err.push(l),
    isTTY: false,
    cwd: PROJECT_ROOT,
    exitCode: 0,
    env: { PATH: process.env.PATH, ...env },
  };
  return { code: await main(argv, io), err: err.join("\n") };
}

const started: ChildProcess[] = [];
const leftovers: number[] = [];
afterEach(() => {
  for (const c of started.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
});

const work = mkdtempSync(join(tmpdir(), "sw-npx-stop-"));
let emulator: TestEmulator | undefined;
afterAll(async () => emulator?.close());

describe("npx stackwarden emulator &, then kill $!", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`${signal} to the npx process stops the emulator's node process within seconds, its state saved`, async () => {
      const state = join(work, `state-${signal}`);
      const run = npx(["emulator", "--port", "0", "--state", state], shellEnv());
      started.push(run.child);
      const url = await until("the emulator's URL", () => /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(run.out())?.[1], 90_000);
      const pid = await until("the emulator's node process", () => stackwardenPid(state), 10_000);
      leftovers.push(pid);
      expect(pid).not.toBe(run.child.pid);

      // A change the emulator acknowledged before the kill.
      const stackFile = join(work, `Pulumi.npx-${signal}.yaml`);
      writeFileSync(
        stackFile,
        "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:databases:\n    - { resourceGroup: rg-data, server: sql-prod-1, database: orders, transparentDataEncryption: Enabled }\n",
      );
      const dirs = { STACKWARDEN_LOCK_DIR: join(work, "locks"), STACKWARDEN_AUDIT_DIR: join(work, "audit") };
      const applied = await inProcess(["apply", "--config", stackFile, "--yes", "--poll-interval", "50"], {
        STACKWARDEN_EMULATOR: url,
        ...dirs,
      });
      expect(applied.code, applied.err).toBe(0);

      process.kill(run.child.pid!, signal);
      await until("the emulator's node process to exit", () => (alive(pid) ? undefined : true), 10_000);
      await expect(fetch(`${url}/metadata/versions`)).rejects.toThrow();
      // npm passes the signal on to node, its own child (.npmrc: script-shell=bash).
      expect(run.out()).toContain(`stackwarden emulator: stopped (received ${signal})`);

      // Closed cleanly: the state it saved holds the change.
      emulator = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES), stateDir: state });
      const again = await inProcess(["plan", "--config", stackFile], { STACKWARDEN_EMULATOR: emulator.url });
      expect(again.code, again.err).toBe(0);
      await emulator.close();
      emulator = undefined;
    }, 180_000);
  }
});

describe("started by a shell that does not pass signals on", () => {
  it("sh -c (dash) killed with SIGTERM: the emulator notices its parent is gone and stops, its state saved", async () => {
    const state = join(work, "state-sh");
    const bin = join(PROJECT_ROOT, "bin", "stackwarden.js");
    // `; echo` keeps the shell in between (a lone command might be exec'd): as npm's `sh -c` is.
    const child = spawn("/bin/sh", ["-c", `${process.execPath} ${bin} emulator --port 0 --state ${state}; echo shell-done`], {
      cwd: PROJECT_ROOT,
      env: shellEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    started.push(child);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    const url = await until("the emulator's URL", () => /^(http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1], 60_000);
    const pid = await until("the emulator's node process", () => stackwardenPid(state), 10_000);
    leftovers.push(pid);
    expect(pid).not.toBe(child.pid);
    process.kill(child.pid!, "SIGTERM");
    await until("the emulator's node process to exit", () => (alive(pid) ? undefined : true), 10_000);
    await expect(fetch(`${url}/metadata/versions`)).rejects.toThrow();
    expect(existsSync(join(state, "state.json"))).toBe(true);
  }, 120_000);
});

describe("npx stackwarden watch, then kill of the npx process", () => {
  it("stops the watcher within seconds: its last tick logged, its lock released", async () => {
    emulator = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
    const stackFile = join(work, "Pulumi.npx-watch.yaml");
    writeFileSync(
      stackFile,
      "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:databases:\n    - { resourceGroup: rg-data, server: sql-prod-2, database: audit, transparentDataEncryption: Enabled }\n",
    );
    const locks = join(work, "watch-locks");
    const run = npx(
      [
        "watch",
        "--config",
        stackFile,
        "--interval",
        "300ms",
        "--auto-remediate",
        "--lock-dir",
        locks,
        "--audit-dir",
        join(work, "watch-audit"),
      ],
      {
        ...shellEnv({ STACKWARDEN_EMULATOR: emulator.url }),
      },
    );
    started.push(run.child);
    await until("a tick", () => (/tick 2: /.test(run.out()) ? true : undefined), 90_000);
    const pid = await until("the watcher's node process", () => stackwardenPid(stackFile), 10_000);
    leftovers.push(pid);
    process.kill(run.child.pid!, "SIGTERM");
    await until("the watcher's node process to exit", () => (alive(pid) ? undefined : true), 10_000);
    expect(run.out()).toMatch(/stopped after \d+ tick\(s\)/);
    // The lock it took to repair is released: no lock directory is left for the stack.
    expect(existsSync(locks) ? readdirSync(locks).filter((f) => f.endsWith(".lock")) : []).toEqual([]);
  }, 180_000);
});
