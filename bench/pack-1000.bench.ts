/**
 * The policy pack over a user's own program of 1 000 azure-native databases (issue 43): a Pulumi
 * YAML program of BENCH_DATABASES databases, each with its TransparentDataEncryption, on
 * BENCH_SERVERS servers, each server with its vault, key, server key and customer-managed protector.
 * `pulumi preview` without the pack, with an empty CrossGuard pack (no policies: what @pulumi/policy
 * itself costs, the floor under any pack) and with `--policy-pack policies` alternate, rounds of
 * each, in one run (after one untimed warm-up of each), so machine noise falls on all alike; the
 * ratio of the median wall times with the pack and without is the figure to keep (goal <= 1.3x). A
 * fourth arm, a bare gRPC analyzer that answers nothing without @pulumi/policy (bare-analyzer-pack.ts),
 * is the floor of any analyzer in Node.js; each arm's analyzer CPU is read from /proc (analyzer-cpu.ts),
 * a figure the machine's load does not stretch as it does wall time. Then the pack's own time per
 * resource, in process: every policy judged as the analyzer judges it (a resource policy per
 * resource, a stack policy over all), over the same resources.
 *
 * The provider is the e2e tier's STAND-IN azure-native provider (test/e2e/stand-ins/: the real
 * plugin's binaries come from GitHub releases, which cannot be reached here), which answers Check
 * and Diff locally: the preview's cost is the engine's, the language host's and the pack's. The
 * program declares everything it protects with, so the pack reads nothing live here; what a program
 * only references is read through the clients' reader (throttle-aware, as `check`'s).
 *
 * Without a Pulumi CLI or the YAML language host it prints one SKIPPED line and exits 0.
 * Settings (environment): BENCH_DATABASES (default 1000), BENCH_SERVERS (default 10), BENCH_ROUNDS (default 2).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { stringify } from "yaml";
import { allRules } from "../src/domain/compliance/registry";
import { PACK_JUDGING_LEVEL } from "../policies/finding-violation";
import { clientSetFromEnv } from "../src/clients/client-set";
import type { ResourceInput } from "../src/domain/facts/fact-kind";
import { resolveSettings } from "../src/domain/compliance/rule";
import { locatePulumiCli } from "../src/platform/programs/pulumi-engine";
import { checkResources } from "../src/usecases/check";
import { sampleAnalyzerCpu } from "./analyzer-cpu";
import { bareAnalyzerPack } from "./bare-analyzer-pack";
import { median, reportGoal } from "./goal";

const DATABASES = Number(process.env.BENCH_DATABASES ?? 1000);
const SERVERS = Number(process.env.BENCH_SERVERS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const RG = "rg-bench";
const SUB = "00000000-0000-0000-0000-000000000000";

/** The checkout: the first directory above this file (src or dist) with Pulumi.yaml. */
function repoRoot(): string {
  for (let d = __dirname; ; d = dirname(d)) {
    if (existsSync(join(d, "Pulumi.yaml")) && existsSync(join(d, "package.json"))) return d;
    if (dirname(d) === d) throw new Error(`no Pulumi.yaml above ${__dirname}`);
  }
}

type Resource = { type: string; properties: Record<string, unknown> };

/** The program: per server its identity, vault, key, server key and protector; per database its TDE (Enabled: nothing fails). */
function program(): Record<string, Resource> {
  const resources: Record<string, Resource> = {};
  const expires = Math.floor(Date.now() / 1000) + 2 * 365 * 86_400;
  for (let s = 0; s < SERVERS; s++) {
    resources[`server${s}`] = {
      type: "azure-native:sql:Server",
      properties: {
        resourceGroupName: RG,
        serverName: `sql-bench-${s}`,
        location: "westeurope",
        administratorLogin: "sqladmin",
        identity: { type: "SystemAssigned" },
      },
    };
    resources[`vault${s}`] = {
      type: "azure-native:keyvault:Vault",
      properties: {
        resourceGroupName: RG,
        vaultName: `kv-bench-${s}`,
        location: "westeurope",
        properties: {
          tenantId: "11111111-1111-1111-1111-111111111111",
          sku: { family: "A", name: "standard" },
          enablePurgeProtection: true,
        },
      },
    };
    resources[`key${s}`] = {
      type: "azure-native:keyvault:Key",
      properties: {
        resourceGroupName: RG,
        vaultName: `\${vault${s}.name}`,
        keyName: "tde",
        properties: { kty: "RSA", keySize: 2048, attributes: { expires } },
      },
    };
    resources[`serverKey${s}`] = {
      type: "azure-native:sql:ServerKey",
      properties: {
        resourceGroupName: RG,
        serverName: `\${server${s}.name}`,
        keyName: `kv-bench-${s}_tde_0123456789abcdef0123456789abcdef`,
        serverKeyType: "AzureKeyVault",
        uri: `\${key${s}.keyUriWithVersion}`,
      },
    };
    resources[`protector${s}`] = {
      type: "azure-native:sql:EncryptionProtector",
      properties: {
        resourceGroupName: RG,
        serverName: `\${server${s}.name}`,
        encryptionProtectorName: "current",
        serverKeyName: `\${serverKey${s}.name}`,
        serverKeyType: "AzureKeyVault",
      },
    };
  }
  for (let d = 0; d < DATABASES; d++) {
    const s = d % SERVERS;
    resources[`db${d}`] = {
      type: "azure-native:sql:Database",
      properties: { resourceGroupName: RG, serverName: `\${server${s}.name}`, databaseName: `db${d}`, location: "westeurope" },
    };
    resources[`tde${d}`] = {
      type: "azure-native:sql:TransparentDataEncryption",
      properties: {
        resourceGroupName: RG,
        serverName: `\${server${s}.name}`,
        databaseName: `\${db${d}.name}`,
        tdeName: "current",
        state: "Enabled",
      },
    };
  }
  return resources;
}

/**
 * A CrossGuard pack of no policies: what @pulumi/policy itself costs the engine (the analyzer's
 * process, a Remediate and an Analyze call per resource, AnalyzeStack), the floor under any pack.
 * Its node_modules is this checkout's, where the language host finds @pulumi/pulumi's run-policy-pack.
 */
function emptyPack(dir: string, root: string): string {
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "PulumiPolicy.yaml"), "runtime: nodejs\ndescription: no policies (the pack-1000 bench's floor)\n");
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "empty-pack", version: "0.1.0", main: "index.js" }));
  writeFileSync(join(dir, "index.js"), 'const { PolicyPack } = require("@pulumi/policy");\nnew PolicyPack("empty", { policies: [] });\n');
  return dir;
}

function run(
  cmd: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; ms: number; out: string; analyzerCpu?: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const analyzerCpu = sampleAnalyzerCpu(child.pid!);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.on("error", (e) => {
      analyzerCpu();
      reject(e);
    });
    child.on("close", (code) => resolve({ code, ms: performance.now() - t0, out, analyzerCpu: analyzerCpu() }));
  });
}

/** The pack's judging in process, as the analyzer runs it: seconds over all policies. */
async function judgeInProcess(resources: ResourceInput[]): Promise<number> {
  const known = <T>(read: () => T) => read();
  const context = { known, clients: clientSetFromEnv({ ...process.env, ARM_SUBSCRIPTION_ID: SUB }) };
  const t0 = performance.now();
  for (const rule of allRules()) {
    const settings = { [rule.id]: { ...resolveSettings(rule, {}), enforcementLevel: PACK_JUDGING_LEVEL } };
    if (rule.packScope === "resource")
      for (const r of resources) await checkResources({ rules: [rule], resources: [r], settings, exemptions: [], context });
    else await checkResources({ rules: [rule], resources, settings, exemptions: [], context });
  }
  return (performance.now() - t0) / 1000;
}

/** The program's resources as a stack policy receives them at preview: literal inputs, and the names that flow from elsewhere followed by property dependencies. */
function resourcesOf(p: Record<string, Resource>): ResourceInput[] {
  const urn = (name: string) => `urn:pulumi:bench::pack-bench::${p[name].type}::${name}`;
  return Object.entries(p).map(([name, r]) => {
    const dependsOn: Record<string, string[]> = {};
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(r.properties)) {
      const ref = typeof v === "string" ? /^\$\{(\w+)\.\w+\}$/.exec(v) : null;
      if (ref) dependsOn[k] = [urn(ref[1])];
      props[k] = ref ? UNKNOWN_AT_PREVIEW : v;
    }
    return { type: r.type, urn: urn(name), props, dependsOn };
  });
}
const UNKNOWN_AT_PREVIEW = Symbol.for("stackwarden.unknown");

async function main(): Promise<void> {
  const cli = locatePulumiCli(process.env);
  if (!cli || !existsSync(join(cli.binDir, "pulumi-language-yaml"))) {
    process.stdout.write("SKIPPED pack-1000: no Pulumi CLI with the YAML language host (npm run pulumi:install)\n");
    return;
  }
  const root = repoRoot();
  const work = mkdtempSync(join(tmpdir(), "stackwarden-pack-bench-"));
  try {
    const dir = join(work, "program");
    const home = join(work, "home");
    const backend = join(work, "backend");
    for (const d of [dir, home, backend]) mkdirSync(d, { recursive: true });
    const resources = program();
    writeFileSync(join(dir, "Pulumi.yaml"), stringify({ name: "pack-bench", runtime: "yaml", resources }));
    const base: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(PULUMI_|STACKWARDEN_|AZURE_|ARM_)/.test(k)) base[k] = v;
    const env: NodeJS.ProcessEnv = {
      ...base,
      PATH: [join(root, "test", "e2e", "stand-ins", "bin"), cli.binDir, dirname(process.execPath), process.env.PATH ?? ""].join(delimiter),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: "stackwarden-bench",
      ARM_SUBSCRIPTION_ID: SUB,
      NO_COLOR: "1",
    };
    const pulumi = (args: string[]) => run(cli.command, [...args, "--non-interactive", "--color", "never"], dir, env);
    const init = await pulumi(["stack", "init", "bench"]);
    if (init.code !== 0) throw new Error(`pulumi stack init failed:\n${init.out}`);
    const count = Object.keys(resources).length;
    process.stdout.write(`program: ${DATABASES} databases on ${SERVERS} servers, ${count} resources (stand-in azure-native provider)\n`);
    const arms = [
      { what: "preview", args: ["preview"] },
      { what: "with an empty pack", args: ["preview", "--policy-pack", emptyPack(join(work, "empty-pack"), root)] },
      { what: "with the pack", args: ["preview", "--policy-pack", join(root, "policies")] },
      { what: "with a bare gRPC analyzer", args: ["preview", "--policy-pack", bareAnalyzerPack(join(work, "bare-analyzer"), root)] },
    ].map((a) => ({ ...a, ms: [] as number[], analyzerCpu: [] as number[] }));
    for (const arm of arms) {
      const warm = await pulumi(arm.args);
      if (warm.code !== 0) throw new Error(`warm-up ${arm.what} failed:\n${warm.out.slice(-3000)}`);
    }
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    for (let i = 0; i < ROUNDS; i++) {
      const line: string[] = [];
      for (const arm of arms) {
        const r = await pulumi(arm.args);
        if (r.code !== 0) throw new Error(`${arm.what} failed:\n${r.out.slice(-3000)}`);
        arm.ms.push(r.ms);
        if (r.analyzerCpu !== undefined) arm.analyzerCpu.push(r.analyzerCpu);
        line.push(`${arm.what} ${seconds(r.ms)}${r.analyzerCpu === undefined ? "" : ` (analyzer CPU ${r.analyzerCpu.toFixed(2)} s)`}`);
      }
      process.stdout.write(`round ${i + 1}: ${line.join(", ")}\n`);
    }
    const [bare, empty, pack, grpcOnly] = arms.map((a) => median(a.ms));
    process.stdout.write(
      `median: ${arms.map((a) => `${a.what} ${seconds(median(a.ms))}`).join(", ")}; the pack adds ` +
        `${((pack - bare) / count).toFixed(2)} ms per resource, ${((pack - empty) / count).toFixed(2)} ms of it over an empty pack\n`,
    );
    process.stdout.write(`an empty pack (the floor of any CrossGuard pack) vs without: ${(empty / bare).toFixed(2)}x\n`);
    process.stdout.write(
      `a bare gRPC analyzer (the floor of any Node.js analyzer: no @pulumi/policy, answers nothing) vs without: ${(grpcOnly / bare).toFixed(2)}x\n`,
    );
    for (const arm of arms.filter((a) => a.analyzerCpu.length))
      process.stdout.write(
        `analyzer CPU ${arm.what}: median ${median(arm.analyzerCpu).toFixed(2)} s, ${((median(arm.analyzerCpu) * 1000) / count).toFixed(2)} ms per resource (start included)\n`,
      );
    const inProcess = await judgeInProcess(resourcesOf(resources));
    process.stdout.write(
      `the pack's judging in process (every policy, ${count} resources): ${inProcess.toFixed(2)} s, ${((inProcess * 1000) / count).toFixed(3)} ms per resource\n`,
    );
    reportGoal({ figure: `pulumi preview with the pack vs without, ${DATABASES} azure-native databases`, value: pack / bare, limit: 1.3 });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
