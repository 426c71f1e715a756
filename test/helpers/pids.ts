import { spawnSync } from "node:child_process";

/** The pid of a process that has exited (a writer killed mid-write, for the stores' leftover files). */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  return r.pid!;
}
