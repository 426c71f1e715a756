/**
 * Start-up: `stackwarden --version` and `stackwarden --help` as whole processes (`node
 * bin/stackwarden.js ...`, spawn to exit), against `node -e 0`, in interleaved rounds so that machine
 * noise falls on all three alike. The figure is the ratio of median wall times (goal: at most 2x).
 * Settings (environment): BENCH_ROUNDS (default 25).
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { PROJECT_ROOT } from "../src/platform/version";
import { median, reportGoal } from "./goal";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25);
const BIN = join(PROJECT_ROOT, "bin", "stackwarden.js");
const GOAL = 2;

const cases: [string, string[]][] = [
  ["node -e 0", ["-e", "0"]],
  ["stackwarden --version", [BIN, "--version"]],
  ["stackwarden --help", [BIN, "--help"]],
];

function once(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`node ${args.join(" ")} exited ${r.status}: ${r.stderr.toString()}`);
  return ms;
}

function main(): void {
  const times = new Map<string, number[]>(cases.map(([n]) => [n, []]));
  for (const [, args] of cases) once(args); // warm the file cache
  for (let r = 0; r < ROUNDS; r++) {
    // Rotate the order so that no case always runs right after another.
    for (let i = 0; i < cases.length; i++) {
      const [name, args] = cases[(i + r) % cases.length];
      times.get(name)!.push(once(args));
    }
  }
  const base = median(times.get("node -e 0")!);
  process.stdout.write(`${ROUNDS} rounds, each case a whole process (spawn to exit), median wall time:\n`);
  for (const [name] of cases) process.stdout.write(`  ${name.padEnd(24)} ${median(times.get(name)!).toFixed(1).padStart(7)} ms\n`);
  for (const [name] of cases.slice(1)) {
    reportGoal({ figure: `${name} vs node -e 0 (start-up)`, value: median(times.get(name)!) / base, limit: GOAL });
  }
}

main();
