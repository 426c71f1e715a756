import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ImdsManagedIdentityCredential } from "../src/auth/imds-credential";
import { resolveRuleSettings } from "../src/compliance/rule-settings";
import type { StackConfig } from "../src/config/stack-config";
import { planTde } from "../src/reconcile/tde-plan";
import { SqlClient } from "../src/services/sql/client";
import { PROJECT_ROOT } from "../src/version";

/**
 * `plan` over 1 000 databases (10 servers x 100) against the emulator with 10 ms of latency on
 * every request. The floor is GET count x latency / concurrency: no client can finish sooner.
 * The emulator runs in a child process so its work is not charged to the client.
 */
const SERVERS = 10;
const PER_SERVER = 100;
const LATENCY_MS = 10;
const CONCURRENCIES = [16, 64];
const SUB = "00000000-0000-0000-0000-000000000000";

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stackwarden-bench-"));
  const servers = Array.from({ length: SERVERS }, (_, s) => ({
    name: `sql-bench-${s}`,
    resourceGroup: "rg-bench",
    databases: Array.from({ length: PER_SERVER }, (_, d) => ({
      name: `db${d}`,
      transparentDataEncryption: d % 7 === 0 ? "Disabled" : "Enabled",
    })),
  }));
  const seedPath = join(dir, "seed.json.yaml");
  writeFileSync(seedPath, JSON.stringify({ sql: { servers } }));
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, "bin", "stackwarden.js"), "emulator", "--port", "0", "--seed", seedPath, "--latency", String(LATENCY_MS)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const url = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  try {
    const credential = new ImdsManagedIdentityCredential({ endpoint: `${url}/metadata` });
    const sql = new SqlClient({ endpoint: url, credential });
    const stack: StackConfig = {
      file: "bench",
      subscriptionId: SUB,
      elasticPools: [],
      exemptions: [],
      policies: resolveRuleSettings(undefined),
      batch: { locations: [], workspaces: [] },
      databases: servers.flatMap((s) =>
        s.databases.map((d) => ({
          resourceGroup: s.resourceGroup,
          server: s.name,
          database: d.name,
          transparentDataEncryption: "Enabled" as const,
        })),
      ),
    };
    // Warm-up: token, connections, validators; not part of the figure.
    await planTde(sql, { ...stack, databases: stack.databases.slice(0, 64) }, { concurrency: 64 });
    process.stdout.write(`${stack.databases.length} databases, ${LATENCY_MS} ms latency per request (emulator in a child process)\n`);
    for (const concurrency of CONCURRENCIES) {
      const before = await getCount(url);
      const started = performance.now();
      const plan = await planTde(sql, stack, { concurrency });
      const wall = performance.now() - started;
      const gets = (await getCount(url)) - before;
      const floor = (gets * LATENCY_MS) / concurrency;
      process.stdout.write(
        `concurrency ${String(concurrency).padStart(3)}: ${gets} GETs, ${plan.changes.length} changes, wall ${wall.toFixed(0)} ms, floor ${floor.toFixed(0)} ms (GETs x latency / concurrency), ratio ${(wall / floor).toFixed(2)}x (goal <= 1.3x)\n`,
      );
    }
  } finally {
    child.kill("SIGTERM");
  }
}

async function getCount(url: string): Promise<number> {
  const stats = (await (await fetch(`${url}/_emulator/stats`)).json()) as { byRoute: Record<string, number> };
  return Object.entries(stats.byRoute)
    .filter(([k]) => k.startsWith("GET /subscriptions/"))
    .reduce((n, [, v]) => n + v, 0);
}

main().catch((e: unknown) => {
  process.stderr.write(`plan-1000 bench failed: ${(e as Error).message}\n`);
  process.exitCode = 1;
});
