/**
 * `pulumi preview --refresh` against `stackwarden plan`, on the same 100-database stack and the same
 * emulator (a child process: `stackwarden emulator --seed`), after 10 databases were changed out of
 * band (PUT Disabled), so both have the same 10 changes to find.
 *
 * Set-up (timed and printed, not part of the ratio): a throw-away copy of the Pulumi project, a
 * file:// backend, `pulumi stack init`, `pulumi up --yes --skip-preview`. Then rounds alternate the
 * two commands, so machine noise falls on both alike; the ratio of the median wall times is the
 * figure to keep. What each does: Pulumi runs the program (3 resources per database: TDE, advisors,
 * scan activities), refreshes all 300 through the dynamic-provider plugin and diffs them; `plan`
 * reads the 100 TDE configurations (concurrently) and diffs them.
 *
 * Without a Pulumi CLI (on PATH or in the pulumi:install cache) it prints one SKIPPED line and exits 0.
 * Settings (environment): BENCH_DATABASES (default 100), BENCH_ROUNDS (default 3).
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { stringify } from "yaml";
import { ImdsManagedIdentityCredential } from "../src/services/imds/imds-credential";
import { locatePulumiCli } from "../src/platform/programs/pulumi-engine";
import { SqlClient } from "../src/services/sql/client";

const DATABASES = Number(process.env.BENCH_DATABASES ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DRIFTED = Math.min(10, DATABASES);
const SERVERS = 4;
const SUB = "00000000-0000-0000-0000-000000000000";

/** The checkout: the first directory above this file (src or dist) with Pulumi.yaml. */
function repoRoot(): string {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, "Pulumi.yaml")) && existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) throw new Error(`no Pulumi.yaml above ${__dirname}`);
  }
}

interface Run {
  code: number | null;
  ms: number;
  out: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Run> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      out += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, ms: performance.now() - t0, out }));
  });
}

function must(r: Run, what: string, ok: (number | null)[] = [0]): Run {
  if (!ok.includes(r.code)) throw new Error(`${what} exited ${r.code}:\n${r.out.slice(-4000)}`);
  return r;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const dbName = (i: number) => `db-${String(i).padStart(3, "0")}`;
const serverOf = (i: number) => `sql-bench-${i % SERVERS}`;

async function main(): Promise<void> {
  const cli = locatePulumiCli(process.env);
  if (!cli) {
    process.stdout.write("SKIPPED pulumi-vs-plan: no Pulumi CLI (npm run pulumi:install)\n");
    return;
  }
  const root = repoRoot();
  const tmp = mkdtempSync(join(tmpdir(), "stackwarden-bench-pulumi-"));
  let emulator: ReturnType<typeof spawn> | undefined;
  let emulatorLog = "";
  try {
    // The estate: DATABASES databases on SERVERS servers, all Enabled; short scans.
    const seed = {
      sql: {
        subscriptionId: SUB,
        scanDurationMs: 50,
        servers: Array.from({ length: SERVERS }, (_, s) => ({
          name: `sql-bench-${s}`,
          resourceGroup: "rg-bench",
          location: "East US",
          databases: Array.from({ length: DATABASES }, (_, i) => i)
            .filter((i) => i % SERVERS === s)
            .map((i) => ({ name: dbName(i), transparentDataEncryption: "Enabled" })),
        })),
      },
    };
    writeFileSync(join(tmp, "seed.yaml"), stringify(seed));
    emulator = spawn(process.execPath, [join(root, "bin", "stackwarden.js"), "emulator", "--port", "0", "--seed", join(tmp, "seed.yaml")], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    emulator.stderr!.setEncoding("utf8").on("data", (d: string) => {
      emulatorLog += d;
    });
    const rl = createInterface({ input: emulator.stdout! });
    const [url] = (await once(rl, "line")) as [string];
    rl.close();

    // A copy of the project with the bench stack (nothing written into the checkout).
    const project = join(tmp, "project");
    mkdirSync(join(project, "stacks"), { recursive: true });
    copyFileSync(join(root, "Pulumi.yaml"), join(project, "Pulumi.yaml"));
    for (const f of ["package.json", "node_modules", "dist", "src", "providers", "policies", "tsconfig.json"])
      symlinkSync(join(root, f), join(project, f));
    for (const f of readdirSync(join(root, "stacks")).filter((n) => n.endsWith(".ts") || n.endsWith(".js")))
      symlinkSync(join(root, "stacks", f), join(project, "stacks", f));
    const stackFile = join(project, "stacks", "Pulumi.bench.yaml");
    writeFileSync(
      stackFile,
      stringify({
        config: {
          "stackwarden:subscriptionId": SUB,
          "stackwarden:databases": Array.from({ length: DATABASES }, (_, i) => ({
            resourceGroup: "rg-bench",
            server: serverOf(i),
            database: dbName(i),
            transparentDataEncryption: "Enabled",
          })),
        },
      }),
    );
    const base: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(PULUMI_|STACKWARDEN_|AZURE_)/.test(k)) base[k] = v;
    const env: NodeJS.ProcessEnv = {
      ...base,
      PATH: [cli.binDir, process.env.PATH ?? ""].join(delimiter),
      PULUMI_HOME: join(tmp, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${join(tmp, "backend")}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: "bench",
      STACKWARDEN_ARM_ENDPOINT: url,
      STACKWARDEN_IMDS_ENDPOINT: `${url}/metadata`,
    };
    mkdirSync(join(tmp, "backend"));
    const pulumi = (args: string[]) => run(cli.command, [...args, "--non-interactive", "--color", "never"], project, env);
    const plan = () =>
      run(process.execPath, [join(root, "bin", "stackwarden.js"), "plan", "--config", stackFile, "--output", "json"], project, env);

    process.stdout.write(
      `${DATABASES} databases (${DATABASES * 3} Pulumi resources), ${DRIFTED} changed out of band, ${ROUNDS} rounds; CLI ${cli.command}\n`,
    );
    must(await pulumi(["stack", "init", "bench"]), "pulumi stack init");
    const up = must(await pulumi(["up", "--yes", "--skip-preview"]), "pulumi up");
    process.stdout.write(`set-up: pulumi up --yes --skip-preview (create ${DATABASES * 3 + 1} resources): ${secs(up.ms)}\n`);

    const sql = new SqlClient({ endpoint: url, credential: new ImdsManagedIdentityCredential({ endpoint: `${url}/metadata` }) });
    for (let i = 0; i < DRIFTED; i++) {
      await sql.putTransparentDataEncryption(
        { subscriptionId: SUB, resourceGroup: "rg-bench", server: serverOf((i * 7) % DATABASES), database: dbName((i * 7) % DATABASES) },
        "Disabled",
      );
    }

    const pulumiMs: number[] = [];
    const planMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const p = must(await pulumi(["preview", "--refresh"]), "pulumi preview --refresh");
      const updates = /~ (\d+) to update/.exec(p.out)?.[1];
      if (Number(updates) !== DRIFTED)
        throw new Error(`pulumi preview --refresh found ${updates ?? "no"} updates, expected ${DRIFTED}:\n${p.out.slice(-3000)}`);
      pulumiMs.push(p.ms);
      const s = must(await plan(), "stackwarden plan", [2]);
      const changes = (JSON.parse(s.out) as { changes?: unknown[] }).changes?.length;
      if (changes !== DRIFTED) throw new Error(`stackwarden plan found ${changes} changes, expected ${DRIFTED}`);
      planMs.push(s.ms);
      process.stdout.write(`round ${r + 1}: pulumi preview --refresh ${secs(p.ms)}, stackwarden plan ${secs(s.ms)}\n`);
    }
    const pm = median(pulumiMs);
    const sm = median(planMs);
    process.stdout.write(`pulumi preview --refresh: median ${secs(pm)}\n`);
    process.stdout.write(`stackwarden plan:         median ${secs(sm)}\n`);
    process.stdout.write(`ratio (pulumi ÷ plan): ${(pm / sm).toFixed(1)}x\n`);
  } catch (e) {
    if (emulatorLog) process.stderr.write(`emulator said:\n${emulatorLog.slice(-3000)}\n`);
    throw e;
  } finally {
    emulator?.kill("SIGTERM");
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
