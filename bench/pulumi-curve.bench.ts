/**
 * The Pulumi path at 100, 300 and 1 000 databases, against the engine's floor measured in the same
 * run: a program with the same number of no-op dynamic resources, as lean in state as ours
 * (bench/pulumi-project.ts, `floorProject`). At the first size, the same no-op program written with
 * `pulumi.dynamic.Resource` is measured too, for reference.
 *
 * For each size: the emulator (a child process) serves that many databases; stackwarden's project
 * and the floor project each get a stack of that size; then, timed, for each: `pulumi up --yes
 * --skip-preview` (creates 3 resources per database) and `pulumi preview --refresh` (refreshes them
 * all through the dynamic-provider plugin and diffs them). Each command's peak RSS is sampled for
 * the program's Node.js process (started by the language host), the Go language host, and the
 * dynamic-provider plugin.
 *
 * After the first size's `up`, the state is exported: the bytes of serialized provider each
 * resource stores (`__provider`, in its inputs and again in its outputs; goal at most 1 KB) and the
 * state per managed database (its TDE resource plus its two data sources, compact JSON) against the
 * no-op program's state per database (goal at most 1.1x). At every size, `preview --refresh` against
 * the floor's (goal at most 1.5x; the figure is the one at 1 000 databases) and `up` against
 * the floor's (printed, no goal).
 *
 * Without a Pulumi CLI (on PATH or in the pulumi:install cache) it prints one SKIPPED line.
 * Settings (environment): BENCH_PULUMI_SIZES (default 100,300,1000).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { stringify } from "yaml";
import { writeFileSync } from "node:fs";
import { locatePulumiCli } from "../src/platform/programs/pulumi-engine";
import { reportGoal } from "./goal";
import { BenchProject, benchRoot, cleanup, floorProject, must, repoRoot, type Run } from "./pulumi-project";

const SIZES = (process.env.BENCH_PULUMI_SIZES ?? "100,300,1000").split(",").map(Number);
const SERVERS = 4;
const SUB = "00000000-0000-0000-0000-000000000000";

const dbName = (i: number) => `db-${String(i).padStart(4, "0")}`;
const serverOf = (i: number) => `sql-bench-${i % SERVERS}`;
const databases = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    resourceGroup: "rg-bench",
    server: serverOf(i),
    database: dbName(i),
    transparentDataEncryption: "Enabled",
  }));

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const mb = (r: Run) =>
  `program ${r.rss.program.toFixed(0)} MB, language host ${r.rss.languageHost.toFixed(0)} MB, provider plugin ${r.rss.providerPlugin.toFixed(0)} MB`;

async function startEmulator(root: string, n: number): Promise<{ url: string; stop: () => void }> {
  const seed = {
    sql: {
      subscriptionId: SUB,
      scanDurationMs: 50,
      servers: Array.from({ length: SERVERS }, (_, s) => ({
        name: `sql-bench-${s}`,
        resourceGroup: "rg-bench",
        location: "East US",
        databases: Array.from({ length: n }, (_, i) => i)
          .filter((i) => i % SERVERS === s)
          .map((i) => ({ name: dbName(i), transparentDataEncryption: "Enabled" })),
      })),
    },
  };
  const seedFile = join(root, `seed-${n}.yaml`);
  writeFileSync(seedFile, stringify(seed));
  const child = spawn(process.execPath, [join(repoRoot(), "bin", "stackwarden.js"), "emulator", "--port", "0", "--seed", seedFile], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const rl = createInterface({ input: child.stdout! });
  const [url] = (await once(rl, "line")) as [string];
  rl.close();
  return { url, stop: () => child.kill("SIGTERM") };
}

interface Sizes {
  /** Bytes of one copy of `__provider`, on average. */
  providerBytes: number;
  providerCopies: number;
  perDatabase: number;
  perDatabaseParts: Record<string, number>;
}

/** Reads the exported state: bytes of `__provider` per resource, and compact bytes per managed database. */
function stateSizes(exported: string, n: number, typePrefix: string): Sizes {
  const doc = JSON.parse(exported) as {
    deployment: { resources: { type: string; inputs?: Record<string, unknown>; outputs?: Record<string, unknown> }[] };
  };
  const ours = doc.deployment.resources.filter((r) => r.type.startsWith(typePrefix));
  const perDatabaseParts: Record<string, number> = {};
  let providerBytes = 0;
  let providerCopies = 0;
  for (const r of ours) {
    const kind = r.type.slice(r.type.lastIndexOf(":") + 1);
    perDatabaseParts[kind] = (perDatabaseParts[kind] ?? 0) + JSON.stringify(r).length / n;
    for (const bag of [r.inputs, r.outputs]) {
      const p = bag?.__provider;
      if (typeof p === "string") {
        providerBytes += p.length;
        providerCopies += 1;
      }
    }
  }
  return {
    providerBytes: providerBytes / providerCopies,
    providerCopies: providerCopies / ours.length,
    perDatabase: Object.values(perDatabaseParts).reduce((a, b) => a + b, 0),
    perDatabaseParts,
  };
}

async function main(): Promise<void> {
  const cli = locatePulumiCli(process.env);
  if (!cli) {
    process.stdout.write("SKIPPED pulumi-curve: no Pulumi CLI (npm run pulumi:install)\n");
    return;
  }
  process.stdout.write(`Pulumi CLI ${cli.command}; sizes ${SIZES.join(", ")} databases (3 resources each)\n`);
  const rows: string[] = [];
  for (const [index, n] of SIZES.entries()) {
    const root = benchRoot();
    const emu = await startEmulator(root, n);
    try {
      const ours = BenchProject.stackwarden(cli, root, {
        STACKWARDEN_ARM_ENDPOINT: emu.url,
        STACKWARDEN_IMDS_ENDPOINT: `${emu.url}/metadata`,
      });
      ours.writeStack("bench", { "stackwarden:subscriptionId": SUB, "stackwarden:databases": databases(n) });
      const floor = floorProject(cli, root, "lean");
      floor.writeStack("bench", { "floor:databases": databases(n) });
      // Pulumi's documented way (pulumi.dynamic.Resource), for reference, at the first size only: its
      // state is three times ours, and the file backend rewrites the whole state after every step.
      const standard = index === 0 ? floorProject(cli, root, "standard") : undefined;
      standard?.writeStack("bench", { "floor:databases": databases(n) });
      const results: Record<string, { up: Run; preview: Run }> = {};
      const projects: [string, BenchProject][] = [
        ["floor", floor],
        ["stackwarden", ours],
      ];
      if (standard) projects.push(["standard", standard]);
      for (const [name, p] of projects) {
        must(await p.pulumi(["stack", "init", "bench"]), `${name}: pulumi stack init`);
        const up = must(await p.pulumi(["up", "--yes", "--skip-preview"]), `${name}: pulumi up`);
        const preview = must(await p.pulumi(["preview", "--refresh"]), `${name}: pulumi preview --refresh`);
        if (!/\b0 to update|unchanged/.test(preview.out) || /to update/.test(preview.out.replace(/\b0 to update/, ""))) {
          throw new Error(`${name}: preview --refresh of an unchanged stack proposes changes:\n${preview.out.slice(-2000)}`);
        }
        results[name] = { up, preview };
        process.stdout.write(
          `${String(n).padStart(5)} databases  ${name.padEnd(11)} up ${secs(up.ms).padStart(7)} (${mb(up)}); preview --refresh ${secs(preview.ms).padStart(7)} (${mb(preview)})\n`,
        );
      }
      const pr = results.stackwarden.preview.ms / results.floor.preview.ms;
      const ur = results.stackwarden.up.ms / results.floor.up.ms;
      rows.push(
        `| ${n} | ${secs(results.stackwarden.preview.ms)} | ${secs(results.floor.preview.ms)} | ${pr.toFixed(2)}x | ${secs(results.stackwarden.up.ms)} | ${secs(results.floor.up.ms)} | ${ur.toFixed(2)}x | ${results.stackwarden.preview.rss.program.toFixed(0)} / ${results.stackwarden.preview.rss.providerPlugin.toFixed(0)} MB |`,
      );
      if (index === 0) {
        const exported = must(await ours.pulumi(["stack", "export"]), "pulumi stack export");
        const s = stateSizes(exported.out.slice(exported.out.indexOf("{")), n, "pulumi-nodejs:dynamic/sql:");
        const exportOf = async (p: BenchProject, what: string) => {
          const r = must(await p.pulumi(["stack", "export"]), `${what}: pulumi stack export`);
          return stateSizes(r.out.slice(r.out.indexOf("{")), n, "pulumi-nodejs:dynamic/floor:");
        };
        const f = await exportOf(floor, "floor");
        const std = await exportOf(standard!, "standard");
        const parts = (x: Sizes) =>
          Object.entries(x.perDatabaseParts)
            .map(([k, v]) => `${k} ${v.toFixed(0)}`)
            .join(", ");
        process.stdout.write(
          `state (${n} databases): __provider ${s.providerBytes.toFixed(0)} bytes a copy, ${s.providerCopies} copies a resource (inputs and outputs); per managed database ${s.perDatabase.toFixed(0)} bytes of compact JSON (${parts(s)})\n`,
        );
        process.stdout.write(
          `the floor's state: __provider ${f.providerBytes.toFixed(0)} bytes a copy; per database ${f.perDatabase.toFixed(0)} bytes (${parts(f)})\n`,
        );
        process.stdout.write(
          `pulumi.dynamic.Resource's (no-op provider, for reference): __provider ${std.providerBytes.toFixed(0)} bytes a copy; per database ${std.perDatabase.toFixed(0)} bytes (${parts(std)})\n`,
        );
        reportGoal({
          figure: "serialized provider per resource (both copies), bytes",
          value: s.providerBytes * s.providerCopies,
          limit: 1024,
          unit: " B",
          digits: 0,
        });
        reportGoal({
          figure: `state per managed database (TDE resource + its 2 data sources: ${s.perDatabase.toFixed(0)} B) vs the no-op program's (${f.perDatabase.toFixed(0)} B)`,
          value: s.perDatabase / f.perDatabase,
          limit: 1.1,
        });
      }
      process.stdout.write(`${String(n).padStart(5)} databases  pulumi up vs the no-op engine floor: ${ur.toFixed(2)}x (no goal)\n`);
      reportGoal({ figure: `pulumi preview --refresh, ${n} databases, vs the no-op engine floor`, value: pr, limit: 1.5 });
    } finally {
      emu.stop();
      cleanup(root);
    }
  }
  process.stdout.write(
    `\n| databases | preview --refresh | floor | ratio | up | floor | ratio | peak RSS in preview (program / provider plugin) |\n|---|---|---|---|---|---|---|---|\n${rows.join("\n")}\n`,
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`pulumi-curve bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
