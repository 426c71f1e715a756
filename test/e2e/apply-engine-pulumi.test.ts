import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumiSdkVersion } from "../../src/platform/programs/pulumi-engine";
import { SqlClient } from "../../src/services/sql/client";
import type { DatabaseRef } from "../../src/services/sql/types";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../helpers/emulator";
import { runCliProcess } from "../helpers/cli-process";
import { PulumiProject, REPO_ROOT, e2eCli, explain, isolatedEnv } from "../helpers/pulumi-cli";

// `stackwarden apply --engine pulumi`: without a CLI (one line, the install hint, exit 1; also when
// the CLI cannot be started: ENOENT), and with one (the stack converges through the Automation API,
// the CLI found in the pulumi:install cache, the default file://~/.pulumi-local backend).

const cli = e2eCli();
const SUB = "00000000-0000-0000-0000-000000000000";
const scratch = mkdtempSync(join(tmpdir(), "stackwarden-engine-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stackwarden = (args: string[], env: NodeJS.ProcessEnv, cwd = REPO_ROOT) => runCliProcess(args, { cwd, env, timeoutMs: 240_000 });

describe("apply --engine pulumi without a Pulumi CLI", () => {
  const emptyDir = join(scratch, "empty");
  mkdirSync(emptyDir, { recursive: true });
  const base = isolatedEnv({
    STACKWARDEN_CACHE_DIR: emptyDir,
    PULUMI_BACKEND_URL: `file://${join(scratch, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "unused",
    // Nothing may be called: an endpoint that refuses connections.
    STACKWARDEN_ARM_ENDPOINT: "http://127.0.0.1:9",
    // The lock and the audit trail of these applies, outside the repository.
    STACKWARDEN_LOCK_DIR: join(scratch, "locks"),
    STACKWARDEN_AUDIT_DIR: join(scratch, "audit"),
    STACKWARDEN_IMDS_ENDPOINT: "http://127.0.0.1:9/metadata",
  });

  it("none on PATH or in the cache: one line with the install hint, exit 1", async () => {
    const r = await stackwarden(["apply", "--engine", "pulumi", "--stack", "dev", "--yes"], { ...base, PATH: emptyDir });
    expect(r.code, explain(r)).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      `stackwarden apply: SW_TOOL_MISSING: no Pulumi CLI found (not on PATH, not in ${join(emptyDir, `pulumi-v${pulumiSdkVersion()}`, "bin")}): run \`npm run pulumi:install\` to build it, then retry`,
    ]);
  });

  it("a `pulumi` that cannot be started (ENOENT): the same one line", async () => {
    const bin = join(scratch, "broken-bin");
    mkdirSync(bin, { recursive: true });
    // execve fails with ENOENT when the interpreter is missing, as for a CLI removed after lookup.
    writeFileSync(join(bin, "pulumi"), "#!/nonexistent/stackwarden-test-interpreter\n");
    chmodSync(join(bin, "pulumi"), 0o755);
    const r = await stackwarden(["apply", "--engine", "pulumi", "--stack", "dev", "--yes"], { ...base, PATH: bin });
    expect(r.code, explain(r)).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^stackwarden apply: SW_TOOL_MISSING: no Pulumi CLI found .*run `npm run pulumi:install`/);
  });

  it("--config instead of --stack is refused in one line", async () => {
    const r = await stackwarden(["apply", "--engine", "pulumi", "--config", join(REPO_ROOT, "stacks", "Pulumi.dev.yaml"), "--yes"], {
      ...base,
      PATH: emptyDir,
    });
    expect(r.code, explain(r)).toBe(1);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      "stackwarden: SW_USAGE: --engine pulumi needs --stack NAME (a stack of the Pulumi project), not --config",
    ]);
  });
});

describe.skipIf(!cli)("apply --engine pulumi with the Pulumi CLI (Automation API)", () => {
  const SEED = `
sql:
  subscriptionId: ${SUB}
  scanDurationMs: 150
  servers:
    - name: sql-engine
      resourceGroup: rg-engine
      location: East US
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
        - { name: ledger, transparentDataEncryption: Enabled }
`;
  const ref = (database: string): DatabaseRef => ({ subscriptionId: SUB, resourceGroup: "rg-engine", server: "sql-engine", database });
  let t: TestEmulator;
  let sql: SqlClient;
  let project: PulumiProject;
  let env: NodeJS.ProcessEnv;
  let home: string;
  const tde = async (database: string) => (await sql.getTransparentDataEncryption(ref(database))).properties?.status;

  beforeAll(async () => {
    t = await startTestEmulator({ seed: seedFromYaml(SEED) });
    sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
    project = new PulumiProject({ cli: cli!, emulatorUrl: t.url });
    project.writeStackConfig("engine", {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": ["orders", "ledger"].map((d) => ({
        resourceGroup: "rg-engine",
        server: "sql-engine",
        database: d,
        transparentDataEncryption: "Enabled",
      })),
    });
    // The CLI only in a pulumi:install-style cache (symlinks to the one found), not on PATH.
    const cache = join(scratch, "cache");
    const cacheBin = join(cache, `pulumi-v${pulumiSdkVersion()}`, "bin");
    mkdirSync(cacheBin, { recursive: true });
    for (const f of readdirSync(cli!.binDir)) symlinkSync(join(cli!.binDir, f), join(cacheBin, f));
    const pathWithoutPulumi = (process.env.PATH ?? "")
      .split(delimiter)
      .filter((d) => d && !existsSync(join(d, "pulumi")))
      .join(delimiter);
    home = join(scratch, "home");
    mkdirSync(home, { recursive: true });
    env = { ...project.env, PATH: pathWithoutPulumi, STACKWARDEN_CACHE_DIR: cache, HOME: home };
    delete env.PULUMI_BACKEND_URL; // the default: file://~/.pulumi-local, ~ being $HOME
  });

  afterAll(async () => {
    project?.cleanup();
    await t?.close();
  });

  it("converges the stack, streaming Pulumi's output, into file://~/.pulumi-local", async () => {
    expect(await tde("orders")).toBe("Disabled");
    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", "engine", "--yes"], env);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toContain(
      `Pulumi engine: stack engine in ${project.dir}, backend file://${home}/.pulumi-local, CLI ${join(scratch, "cache")}`,
    );
    expect(r.stdout).toContain(`policy pack ${join(project.dir, "policies")}`);
    expect(r.stdout).toMatch(/\+\s+pulumi-nodejs:dynamic\/sql:TransparentDataEncryption tde-rg-engine-sql-engine-orders created/);
    // The stack's resources, the server's TDE protector data source among them, and each database's
    // own resource (sql:Database: whether it carries a TDE protector of its own).
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("Apply (pulumi): succeeded, 10 create.");
    expect(await tde("orders")).toBe("Enabled");
    expect(existsSync(join(home, ".pulumi-local", ".pulumi", "stacks", "stackwarden", "engine.json"))).toBe(true);
  });

  it("refreshes first: an out-of-band change is repaired by the next apply", async () => {
    await sql.putTransparentDataEncryption(ref("ledger"), "Disabled");
    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", "engine", "--yes"], env);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/~\s+pulumi-nodejs:dynamic\/sql:TransparentDataEncryption tde-rg-engine-sql-engine-ledger updated/);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("Apply (pulumi): succeeded, 1 update.");
    expect(await tde("ledger")).toBe("Enabled");
    // Each apply took the stack lock (released) and left one audit entry; this one names the update.
    expect(existsSync(join(project.dir, ".stackwarden", "locks", "engine.lock"))).toBe(false);
    const trail = readFileSync(join(project.dir, ".stackwarden", "audit", "engine.jsonl"), "utf8")
      .trimEnd()
      .split("\n");
    expect(trail).toHaveLength(2);
    const entry = JSON.parse(trail[1]) as { seq: number; command: string; exitCode: number; what: unknown[] };
    expect(entry).toMatchObject({ seq: 2, command: "apply --engine pulumi", exitCode: 0 });
    expect(entry.what).toEqual([
      {
        resource: `/subscriptions/${SUB}/resourceGroups/rg-engine/providers/Microsoft.Sql/servers/sql-engine/databases/ledger`,
        before: "Disabled",
        after: "Enabled",
        op: "update",
        outcome: "update",
      },
    ]);
  });

  it("the compliance pack gates it: a stack that wants TDE Disabled fails on sql-tde-enabled and changes nothing", async () => {
    project.writeStackConfig("decrypt", {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": [
        { resourceGroup: "rg-engine", server: "sql-engine", database: "ledger", transparentDataEncryption: "Disabled" },
      ],
    });
    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", "decrypt", "--yes"], env);
    expect(r.code, explain(r)).toBe(1);
    expect(r.output).toMatch(
      /\[mandatory\]\s+sql-tde-enabled\s+\(pulumi-nodejs:dynamic\/sql:TransparentDataEncryption: tde-rg-engine-sql-engine-ledger\)/,
    );
    // The failure is the last line, unless a data source of the stack was created before the pack
    // stopped the update (steps run in parallel: a race): then the audit entry of that change follows it.
    const lines = r.stderr.trimEnd().split("\n");
    const last = lines.at(-1)!.startsWith("stackwarden apply --engine pulumi: audit entry") ? lines.at(-2) : lines.at(-1);
    expect(last).toMatch(/^stackwarden apply: SW_ENGINE_FAILED: pulumi up failed: .+/);
    expect(await tde("ledger")).toBe("Enabled");
  });

  it("a failing up (a database the server does not have): exit 1, Pulumi's diagnostics, then one summary line", async () => {
    project.writeStackConfig("broken", {
      "stackwarden:subscriptionId": SUB,
      "stackwarden:databases": [
        { resourceGroup: "rg-engine", server: "sql-engine", database: "nowhere", transparentDataEncryption: "Enabled" },
      ],
    });
    const r = await project.stackwarden(["apply", "--engine", "pulumi", "--stack", "broken", "--yes"], env);
    expect(r.code, explain(r)).toBe(1);
    expect(r.output).toMatch(/nowhere/);
    const last = r.stderr.trimEnd().split("\n").at(-1);
    expect(last, r.output).toMatch(/^stackwarden apply: SW_ENGINE_FAILED: pulumi up failed: .+/);
  });
});
