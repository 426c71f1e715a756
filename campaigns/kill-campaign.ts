import { runRounds } from "./run-rounds";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { StateStore } from "../src/emulator/state-store";
import { PROJECT_ROOT } from "../src/platform/version";
import { campaignEstate, intBetween, prng, stateMismatches, writeCampaignFiles } from "./campaign-estate";

/**
 * The kill campaign: real processes. `stackwarden emulator --state DIR` and `stackwarden apply` run
 * as children; at a random moment `kill -9` hits apply, the emulator, or both. The emulator comes
 * back on the same port from its state directory, which must load whatever moment the kill hit
 * (a torn journal line is dropped, a half-written snapshot is a temporary file swept away). Then a
 * rerun of apply must converge (exit 0), plan must exit 0, and the state must match the stack.
 */
const BIN = join(PROJECT_ROOT, "bin", "stackwarden.js");
export const KILL_DATABASES = 40;

export interface KillRoundResult {
  seed: number;
  converged: boolean;
  killed: "apply" | "emulator" | "both";
  /** When the kill came, in ms after apply started. */
  at: number;
  ms: number;
  failure?: string;
}

/** A CLI child process and what it printed. */
export interface Child {
  proc: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
}

/** Runs the compiled CLI as a child process, collecting its output. */
export function child(args: string[], env: NodeJS.ProcessEnv, cwd: string): Child {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => output.push(d));
  proc.stderr!.setEncoding("utf8").on("data", (d: string) => output.push(d));
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  return { proc, output, exited };
}

/** The environment of a child: this one's, without stackwarden's, Azure's or Pulumi's settings. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(STACKWARDEN_|AZURE_|PULUMI_)/.test(k)) env[k] = v;
  return { ...env, ...extra };
}

async function startEmulatorProcess(seed: string, stateDir: string, port: number, cwd: string): Promise<{ c: Child; url: string }> {
  const c = child(["emulator", "--port", String(port), "--seed", seed, "--state", stateDir], cleanEnv({}), cwd);
  const url = await Promise.race([
    new Promise<string>((resolve) => createInterface({ input: c.proc.stdout! }).once("line", (l) => resolve(l.trim()))),
    c.exited.then((code) => {
      throw new Error(`the emulator exited with ${code} before printing its URL: ${c.output.join("")}`);
    }),
  ]);
  return { c, url };
}

function kill9(c: Child): Promise<unknown> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill("SIGKILL");
  return c.exited;
}

/** One round (see the module comment). */
export async function killRound(seed: number): Promise<KillRoundResult> {
  const started = Date.now();
  const rand = prng(seed);
  const dir = mkdtempSync(join(tmpdir(), `stackwarden-kill-${seed}-`));
  const stateDir = join(dir, "state");
  const dbs = campaignEstate(rand, KILL_DATABASES);
  const files = writeCampaignFiles(dir, dbs, { scanDurationMs: intBetween(rand, 100, 400) });
  const pick = rand();
  const killed: KillRoundResult["killed"] = pick < 0.4 ? "apply" : pick < 0.8 ? "emulator" : "both";
  const at = intBetween(rand, 30, 2500);
  const gap = intBetween(rand, 50, 400);
  const children: Child[] = [];
  const fail = (why: string, c?: Child): KillRoundResult => ({
    seed,
    converged: false,
    killed,
    at,
    ms: Date.now() - started,
    failure: `${why}${c ? `\n${c.output.join("").split("\n").slice(-20).join("\n")}` : ""}`,
  });
  try {
    let emu = await startEmulatorProcess(files.seed, stateDir, 0, dir);
    children.push(emu.c);
    const port = Number(new URL(emu.url).port);
    const env = cleanEnv({ STACKWARDEN_ARM_ENDPOINT: emu.url, STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata` });
    const applyArgs = ["apply", "--config", files.stack, "--yes", "--poll-interval", "50", "--concurrency", "8", "--scan-timeout", "60"];
    const first = child(applyArgs, env, dir);
    children.push(first);
    await Promise.race([sleep(at), first.exited]);
    if (killed !== "emulator") await kill9(first);
    if (killed !== "apply") {
      await kill9(emu.c);
      // Whatever moment the kill hit, what is on disk loads.
      try {
        StateStore.load(stateDir);
      } catch (e) {
        return fail(`the state did not load after kill -9 of the emulator: ${(e as Error).message}`);
      }
      await sleep(gap);
      emu = await startEmulatorProcess(files.seed, stateDir, port, dir);
      children.push(emu.c);
    }
    await first.exited; // a surviving apply finishes on its own (converged or not)
    const rerun = child(applyArgs, env, dir);
    children.push(rerun);
    const code = await rerun.exited;
    if (code !== 0) return fail(`the rerun of apply exited ${code}`, rerun);
    const plan = child(["plan", "--config", files.stack], env, dir);
    children.push(plan);
    const planCode = await plan.exited;
    if (planCode !== 0) return fail(`plan exited ${planCode} after the rerun`, plan);
    emu.c.proc.kill("SIGTERM");
    const stopped = await emu.c.exited;
    if (stopped !== 0) return fail(`the emulator exited ${stopped} on SIGTERM`, emu.c);
    const state = StateStore.load(stateDir);
    if (!state) return fail("the state directory holds no state");
    const mismatches = stateMismatches(state, dbs);
    if (mismatches.length) return fail(`the state differs from the stack: ${mismatches.slice(0, 5).join("; ")}`);
    return { seed, converged: true, killed, at, ms: Date.now() - started };
  } catch (e) {
    return fail(`the round failed: ${(e as Error).stack ?? String(e)}`);
  } finally {
    await Promise.all(children.map(kill9));
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface KillReport {
  results: KillRoundResult[];
  converged: number;
  failingSeeds: number[];
  ms: number;
}

/** Runs `rounds` rounds from `seed`, `parallel` at a time. */
export async function runKillCampaign(opts: {
  seed: number;
  rounds: number;
  parallel?: number;
  onRound?: (r: KillRoundResult, done: number) => void;
}): Promise<KillReport> {
  return runRounds(opts, (seed) => killRound(seed));
}
