import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { PROJECT_ROOT } from "../src/platform/version";

/** An emulator in a child process (`stackwarden emulator`), so that its CPU is not charged to the client measured. */
export interface ChildEmulator {
  url: string;
  child: ChildProcess;
  /** ARM GETs served so far (the emulator's own count). */
  gets(): Promise<number>;
  stats(): Promise<{ total: number; byRoute: Record<string, number>; throttled: number; cpuMicros: number }>;
  close(): void;
}

/** A seed of `servers` x `perServer` databases under one resource group (every 7th Disabled). */
export function sqlEstate(servers: number, perServer: number) {
  return Array.from({ length: servers }, (_, s) => ({
    name: `sql-bench-${s}`,
    resourceGroup: "rg-bench",
    databases: Array.from({ length: perServer }, (_, d) => ({
      name: `db${d}`,
      transparentDataEncryption: d % 7 === 0 ? "Disabled" : "Enabled",
    })),
  }));
}

/** Starts `stackwarden emulator --port 0 --seed <seed> ...flags` and waits for its URL. */
export async function startChildEmulator(seed: object, flags: string[] = []): Promise<ChildEmulator> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-"));
  const seedPath = join(dir, "seed.yaml");
  writeFileSync(seedPath, JSON.stringify(seed));
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bin", "stackwarden.js"), "emulator", "--port", "0", "--seed", seedPath, ...flags],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // Its banner is noise here; anything else it says is shown.
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    if (!d.startsWith("stackwarden emulator: serving")) process.stderr.write(d);
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => {
      // A seed it refused (or any failure to start) leaves no directory behind.
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`the emulator exited with code ${code}`));
    });
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  const stats = async () =>
    (await (await fetch(`${url}/_emulator/stats`)).json()) as {
      total: number;
      byRoute: Record<string, number>;
      throttled: number;
      cpuMicros: number;
    };
  return {
    url,
    child,
    stats,
    async gets() {
      const s = await stats();
      return Object.entries(s.byRoute)
        .filter(([k]) => k.startsWith("GET /subscriptions/"))
        .reduce((n, [, v]) => n + v, 0);
    },
    close: () => {
      child.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
