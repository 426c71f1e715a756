/**
 * The CPU time of a `pulumi preview`'s policy analyzer (the Node.js process that runs
 * @pulumi/pulumi's run-policy-pack), read from /proc while the preview runs: the engine kills the
 * analyzer at the end, so it cannot report on itself. User + system time of all its threads, in
 * seconds; unlike wall time it does not grow with the machine's load (the pack-1000 bench).
 */
import { readdirSync, readFileSync } from "node:fs";

const TICKS_PER_SECOND = 100; // USER_HZ: /proc reports CPU times in these on every Linux platform

/** CPU seconds of a /proc stat line (utime + stime). */
function cpuSecondsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Samples, every 100 ms, the CPU time of every analyzer process below `root`; returns a function
 * that stops sampling and gives the total over the analyzers seen (undefined without /proc, or
 * when no analyzer ran). What an analyzer spent in its last 100 ms before it was killed is lost.
 */
export function sampleAnalyzerCpu(root: number): () => number | undefined {
  const seen = new Map<number, number>();
  const sample = () => {
    let entries: string[];
    try {
      entries = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
    } catch {
      return;
    }
    const parent = new Map<number, number>();
    const stats = new Map<number, string>();
    for (const e of entries) {
      try {
        const stat = readFileSync(`/proc/${e}/stat`, "utf8");
        stats.set(Number(e), stat);
        parent.set(Number(e), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      } catch {
        /* gone */
      }
    }
    const below = (pid: number) => {
      for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
      return false;
    };
    for (const [pid, stat] of stats) {
      if (!below(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("run-policy-pack")) seen.set(pid, cpuSecondsOf(stat));
      } catch {
        /* gone */
      }
    }
  };
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    return seen.size ? [...seen.values()].reduce((a, b) => a + b, 0) : undefined;
  };
}
