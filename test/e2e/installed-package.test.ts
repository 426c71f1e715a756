import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { PROJECT_ROOT } from "../../src/platform/version";
import { cleanShellEnv, runCliProcess, runCommand, startCli, type CliProcess, type CommandResult } from "../helpers/cli-process";
import { installTarball, mb, packCheckout, type InstalledPackage, type PackedTarball } from "../helpers/installed-package";
import { e2eCli, e2eRequired, explain, isolatedEnv } from "../helpers/pulumi-cli";

// stackwarden as a user gets it: `npm pack` of this checkout, `npm install` of the tarball into a
// directory that holds nothing but one stack file (no stackwarden source), and the installed CLI
// run there against the emulator the package embeds. Its verdicts are the checkout's; its state is
// written under the user's directory; the installed policy pack blocks a disabled TDE in
// `pulumi preview`. In the e2e tier: packing and installing take a minute (the npm cache is warm).

const cli = e2eCli();

/** The user's stack: the example stack's databases and rules, without its own files (artifacts, probes). */
function userStack(): string {
  const doc = parse(readFileSync(join(PROJECT_ROOT, "stacks", "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
  delete doc.config["stackwarden:artifacts"];
  delete doc.config["stackwarden:probes"];
  return stringify({ config: doc.config });
}

/** A verdict as both reports show it, without the paths that differ by where the CLI runs. */
function verdicts(r: CommandResult): { rule: string; resource: string; verdict: string; message: string }[] {
  const report = JSON.parse(r.stdout) as { findings: { ruleId: string; resourceId: string; verdict: string; message: string }[] };
  return report.findings.map((x) => ({ rule: x.ruleId, resource: x.resourceId, verdict: x.verdict, message: x.message }));
}

/** Runs a command in the user's directory. */
function inUserDir(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runCommand(command, args, { cwd: installed.dir, env, timeoutMs: 300_000 });
}

let packed: PackedTarball;
let installed: InstalledPackage;
let emulator: CliProcess;
let emulatorUrl: string;

beforeAll(async () => {
  packed = await packCheckout();
  installed = await installTarball(packed.path);
  mkdirSync(join(installed.dir, "stacks"));
  writeFileSync(join(installed.dir, "stacks", "Pulumi.dev.yaml"), userStack());
  // The emulator the package embeds, serving the estate it ships (stacks/dev.estate.yaml of the package).
  emulator = startCli(["emulator", "--port", "0"], { cwd: installed.dir, env: cleanShellEnv(), bin: installed.bin });
  emulatorUrl = await emulator.line(/^http:\/\//, 60_000);
  const installedKb = Number(execFileSync("du", ["-sk", join(installed.dir, "node_modules")], { encoding: "utf8" }).split("\t")[0]);
  const ownKb = Number(execFileSync("du", ["-sk", installed.packageDir], { encoding: "utf8" }).split("\t")[0]);
  console.log(
    `installed package: tarball ${mb(packed.size)} packed, ${mb(packed.unpackedSize)} unpacked (${packed.files.length} files); ` +
      `node_modules ${mb(installedKb * 1024)} with its dependencies (stackwarden itself ${mb(ownKb * 1024)}); npm install took ${(installed.installMs / 1000).toFixed(1)} s`,
  );
}, 600_000);

afterAll(async () => {
  if (emulator) {
    emulator.child.kill("SIGTERM");
    await emulator.exited;
  }
  if (installed) rmSync(installed.dir, { recursive: true, force: true });
  if (packed) rmSync(dirname(packed.path), { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds what runs (the compiled CLI, pack and program, the specs it validates against, the seed estate) and no tests, benches, sources or source maps", () => {
    const files = new Set(packed.files);
    for (const f of [
      "bin/stackwarden.js",
      "package.json",
      "dist/src/interfaces/cli/main.js",
      "dist/policies/index.js",
      "policies/PulumiPolicy.yaml",
      "policies/package.json",
      "stacks/index.js",
      "dist/stacks/index.js",
      "stacks/dev.estate.yaml",
      "specs/pko/pulumi.com_stacks.yaml",
      "specs/azure-regions/regions.json",
      "scripts/github/pr-comment.js",
    ])
      expect(files.has(f), f).toBe(true);
    const unwanted = packed.files.filter(
      (f) =>
        /^(test|bench|campaigns|docs|dist\/test|dist\/bench|dist\/campaigns)\//.test(f) ||
        f.endsWith(".map") ||
        (f.endsWith(".ts") && !f.endsWith(".d.ts")),
    );
    expect(unwanted).toEqual([]);
    // No stack file: `--stack NAME` in a project that installed stackwarden finds only the project's own.
    expect(packed.files.filter((f) => /(^|\/)Pulumi\.[^/]+\.yaml$/.test(f))).toEqual([]);
  });
});

describe("installed into a directory holding only a stack file", () => {
  it("`npx stackwarden check --stack dev` gives the checkout's verdicts, against the emulator it embeds", async () => {
    const env = cleanShellEnv({ STACKWARDEN_EMULATOR: emulatorUrl });
    const there = await inUserDir("npx", ["stackwarden", "check", "--stack", "dev", "--output", "json"], env);
    const here = await runCliProcess(["check", "--config", join(installed.dir, "stacks", "Pulumi.dev.yaml"), "--output", "json"], {
      cwd: PROJECT_ROOT,
      env,
    });
    expect(here.code, explain(here)).toBe(3); // the example estate has two unencrypted databases
    expect(there.code, explain(there)).toBe(here.code);
    expect(verdicts(there)).toEqual(verdicts(here));
    expect(
      verdicts(there)
        .filter((v) => v.verdict === "fail")
        .map((v) => v.rule),
    ).toContain("sql-tde-enabled");
  });

  it("`apply` writes its audit trail under the user's directory, not the package's, and `check` then passes", async () => {
    const env = cleanShellEnv({ STACKWARDEN_EMULATOR: emulatorUrl });
    const apply = await inUserDir("npx", ["stackwarden", "apply", "--stack", "dev", "--yes"], env);
    expect(apply.code, explain(apply)).toBe(0);
    expect(existsSync(join(installed.dir, ".stackwarden", "audit"))).toBe(true);
    expect(existsSync(join(installed.packageDir, ".stackwarden"))).toBe(false);
    const check = await inUserDir("npx", ["stackwarden", "check", "--stack", "dev"], env);
    expect(check.code, explain(check)).toBe(0);
  });
});

if (!cli && e2eRequired()) {
  it("has a Pulumi CLI (STACKWARDEN_E2E=required)", () => {
    expect.fail("STACKWARDEN_E2E=required but no Pulumi CLI was found: run `npm run pulumi:install`");
  });
}

describe.skipIf(!cli)("the installed policy pack", () => {
  it("`pulumi preview --policy-pack node_modules/stackwarden/policies` blocks a stack that disables TDE", async () => {
    const home = join(installed.dir, ".pulumi-home");
    const backend = join(installed.dir, ".pulumi-backend");
    for (const d of [home, backend]) mkdirSync(d, { recursive: true });
    // The user's Pulumi project runs the program the package ships (README, "Install into your own repository").
    writeFileSync(
      join(installed.dir, "Pulumi.yaml"),
      "name: estate\nruntime:\n  name: nodejs\n  options:\n    typescript: false\nmain: node_modules/stackwarden/stacks/index.js\nstackConfigDir: stacks\n",
    );
    const sub = "00000000-0000-0000-0000-000000000000";
    const db = (database: string, tde: string) => ({
      resourceGroup: "rg-data",
      server: "sql-prod-1",
      database,
      transparentDataEncryption: tde,
    });
    writeFileSync(
      join(installed.dir, "stacks", "Pulumi.gate.yaml"),
      stringify({
        config: { "stackwarden:subscriptionId": sub, "stackwarden:databases": [db("orders", "Enabled"), db("customers", "Disabled")] },
      }),
    );
    const env = isolatedEnv({
      PATH: [cli!.binDir, process.env.PATH ?? ""].join(":"),
      PULUMI_HOME: home,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: "stackwarden-e2e",
      STACKWARDEN_EMULATOR: emulatorUrl,
      NO_COLOR: "1",
    });
    const pulumi = (args: string[]) => inUserDir(cli!.command, [...args, "--non-interactive", "--color", "never"], env);
    const init = await pulumi(["stack", "init", "gate"]);
    expect(init.code, explain(init)).toBe(0);
    const preview = await pulumi(["preview", "--stack", "gate", "--policy-pack", "node_modules/stackwarden/policies"]);
    expect(preview.code, explain(preview)).not.toBe(0);
    expect(preview.stdout).toMatch(/\[mandatory\]\s+sql-tde-enabled\s+\(\S+: tde-rg-data-sql-prod-1-customers\)/);
    expect(preview.stdout).not.toMatch(/sql-tde-enabled\s+\(\S+: tde-rg-data-sql-prod-1-orders\)/);
  });
});
