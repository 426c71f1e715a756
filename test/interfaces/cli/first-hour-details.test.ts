import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ESTATE } from "../../../src/emulator/default-estate";
import type { EmulatorReply } from "../../../src/emulator/kit/emulator-app";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { loadSeedFile } from "../../../src/emulator/seed";
import { LOCAL_SERVICES } from "../../../src/emulator/services";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { collectBatchInventory } from "../../../src/domain/inventory/batch-inventory";
import type { CommandIO } from "../../../src/interfaces/cli/command-io";
import { main } from "../../../src/interfaces/cli/main";
import { PROJECT_ROOT } from "../../../src/platform/version";
import { BatchAiClient } from "../../../src/services/batchai/client";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { memoryLogger } from "../../services/batchai/batchai-harness";
import { allDocs } from "../../helpers/readme-blocks";

// The smaller things a newcomer trips on in the first hour (issue 25, item 8), each as a user meets it.

/** The README and the docs/ pages its depth moved to (the watcher's table, the quick checks). */
const README = allDocs();

async function run(
  argv: string[],
  env: Record<string, string> = {},
  cwd = PROJECT_ROOT,
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CommandIO = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    isTTY: false,
    cwd,
    exitCode: 0,
    env: { PATH: process.env.PATH, ...env },
  };
  const code = await main(argv, io);
  return { code, out: out.join("\n"), err: err.join("\n") };
}

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({ seed: loadSeedFile(DEFAULT_ESTATE, LOCAL_SERVICES) });
});
afterAll(() => t?.close());

describe("--help states the exit codes", () => {
  for (const name of ["inventory", "whoami", "where", "geocode", "start", "emulator"]) {
    it(name, async () => {
      const r = await run([name, "--help"]);
      expect(r.code).toBe(0);
      expect(r.out.replace(/\s+/g, " ")).toMatch(/\((exit 0[,;]|runs until SIGINT or SIGTERM, then exits 0)/);
    });
  }
});

describe("README and --help agree", () => {
  it("scan FILE… needs --rules, as the README's command line shows it", async () => {
    expect(README).toMatch(/npx stackwarden scan {6}FILE… --rules PATH…/);
    const r = await run(["scan", "stacks/dev/jobs/resnet50/train.py"], { STACKWARDEN_EMULATOR: t.url });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/give --rules PATH/);
  });

  it("watch's defaults: each default the README's table gives is the one --help shows", async () => {
    const help = (await run(["watch", "--help"])).out.replace(/\s+/g, " ");
    const table = [...README.matchAll(/^\| `(--[a-z-]+) [A-Z:]+` \| `([^`]+)` \|/gm)].map((m) => [m[1], m[2]] as const);
    expect(table.map(([flag]) => flag)).toEqual(expect.arrayContaining(["--interval", "--grace", "--lock-timeout"]));
    for (const [flag, value] of table) {
      const shown = new RegExp(`${flag} <[a-z:]+> [^-]*?(\\(default: ${value}\\)|default ${value}\\))`);
      expect(help, `${flag}: README says ${value}`).toMatch(shown);
    }
  });

  it("cron schedules: 5 fields, or 6 with seconds, as the README says; 7 is refused in those words", async () => {
    expect(README).toContain("(5 fields, or 6 with seconds; via `croner`)");
    const r = await run(["watch", "--stack", "dev", "--schedule", "0 0 * * * * 2030"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/7 field\(s\); give 5 \(minute hour day month weekday\) or 6 \(seconds first\)/);
  });

  it("a quick test subset is documented, and names test folders that exist", () => {
    const block = /Quick checks[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1];
    expect(block, "README: a 'Quick checks' sh block under Tests").toBeDefined();
    const paths = [...block!.matchAll(/\btest\/[\w/.-]+/g)].map((m) => m[0]);
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(existsSync(join(PROJECT_ROOT, p)), p).toBe(true);
  });
});

describe("stacks warns on a stack file it cannot read, and still lists it", () => {
  it("broken YAML and a bad engine: a warning each at file:line:column, listed as native with the problem in JSON", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sw-stacks-"));
    mkdirSync(join(dir, "stacks"));
    writeFileSync(join(dir, "stacks", "Pulumi.good.yaml"), "config:\n  stackwarden:engine: pulumi\n");
    writeFileSync(join(dir, "stacks", "Pulumi.broken.yaml"), "config:\n  stackwarden:subscriptionId: [\n");
    writeFileSync(join(dir, "stacks", "Pulumi.odd.yaml"), "config:\n  stackwarden:engine: terraform\n");
    const r = await run(["stacks", "--output", "json"], {}, dir);
    expect(r.code).toBe(0);
    const listed = (JSON.parse(r.out) as { include: { stack: string; engine: string; problem?: string }[] }).include;
    expect(listed.map((s) => [s.stack, s.engine, !!s.problem])).toEqual([
      ["broken", "native", true],
      ["good", "pulumi", false],
      ["odd", "native", true],
    ]);
    const warnings = r.err.split("\n");
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^stackwarden stacks: warning: stacks\/Pulumi\.broken\.yaml:\d+:\d+: invalid YAML: .*; listed as native/);
    expect(warnings[1]).toMatch(
      /^stackwarden stacks: warning: stacks\/Pulumi\.odd\.yaml:2:23: stackwarden:engine must be native or pulumi; listed as native/,
    );
  });
});

describe("an unknown key gets the key it was likely meant to be", () => {
  it("stackwarden:elasticPool: did you mean stackwarden:elasticPools? (and inside an entry too)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sw-typo-"));
    writeFileSync(
      join(dir, "Pulumi.typo.yaml"),
      "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:elasticPool: []\n",
    );
    writeFileSync(
      join(dir, "Pulumi.inner.yaml"),
      "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:databases:\n    - { resourceGroup: rg, server: s, databse: d, transparentDataEncryption: Enabled }\n",
    );
    writeFileSync(
      join(dir, "Pulumi.far.yaml"),
      "config:\n  stackwarden:subscriptionId: 00000000-0000-0000-0000-000000000000\n  stackwarden:zzz: 1\n",
    );
    const typo = await run(["plan", "--config", "Pulumi.typo.yaml"], {}, dir);
    expect(typo.err).toBe(
      'stackwarden: SW_CONFIG_INVALID: Pulumi.typo.yaml:3:3: config.stackwarden:elasticPool: unknown key; did you mean "stackwarden:elasticPools"?',
    );
    const inner = await run(["plan", "--config", "Pulumi.inner.yaml"], {}, dir);
    expect(inner.err).toMatch(/databases\[0\]\.databse: unknown key; did you mean "database"\?$/);
    const far = await run(["plan", "--config", "Pulumi.far.yaml"], {}, dir);
    expect(far.err).toMatch(/config\.stackwarden:zzz: unknown key$/);
  });
});

describe("output that reads well", () => {
  it("a geocode that finds nothing says so once", async () => {
    const r = await run(["geocode", "zzzzqqq"], { STACKWARDEN_EMULATOR: t.url });
    expect(r.code).toBe(1);
    expect(r.err.split("zzzzqqq")).toHaveLength(2);
    expect(r.err).toBe('stackwarden geocode: SW_RESOURCE_NOT_FOUND: no place found for "zzzzqqq"');
  });

  it("the inventory table's counts are right-aligned in one column", async () => {
    const r = await run(["inventory", "--stack", "dev", "--output", "table"], { STACKWARDEN_EMULATOR: t.url });
    expect(r.code, r.err).toBe(0);
    const rows = r.out.split("\n").slice(1);
    expect(rows.length).toBeGreaterThan(10);
    const ends = new Set(rows.map((l) => l.length));
    expect(ends.size, r.out).toBe(1);
    for (const l of rows) expect(l).toMatch(/^ {2}\S+ +\d+$/);
  });
});

describe("a Batch AI workspace whose id is odd but names its resource group", () => {
  const SUB = "00000000-0000-0000-0000-000000000000";
  const NS = "Microsoft.BatchAI";
  const wsId = (rg: string, name: string) => `/subscriptions/${SUB}/resourceGroups/${rg}/providers/${NS}/workspaces/${name}`;
  const ok = (value: unknown[]): EmulatorReply => ({ status: 200, body: { value } });
  // As Azure's own Workspaces_List example answers: `…/providers/Microsoft.BatchAI/workspace/…`, singular.
  const singular: LocalService = {
    name: "singular-workspace",
    seedSchema: { type: "object" },
    initialState: () => ({}),
    mount(ctx) {
      const v = ["2018-05-01"];
      const base = `/subscriptions/:sub/resourceGroups/:rg/providers/${NS}/workspaces/:ws`;
      ctx.arm("GET", `/providers/${NS}/operations`, v, () => ok([]));
      ctx.arm("GET", `/subscriptions/:sub/providers/${NS}/workspaces`, v, () =>
        ok([
          {
            id: `/subscriptions/${SUB}/resourceGroups/demo_resource_group/providers/${NS}/workspace/demo_workspace`,
            name: "demo_workspace",
          },
        ]),
      );
      ctx.arm("GET", `${base}/clusters`, v, (req) => ok([{ id: `${wsId(req.params.rg, req.params.ws)}/clusters/c1`, name: "c1" }]));
      ctx.arm("GET", `${base}/fileServers`, v, (req) => ok([{ id: `${wsId(req.params.rg, req.params.ws)}/fileServers/f1`, name: "f1" }]));
      ctx.arm("GET", `${base}/experiments`, v, (req) => ok([{ id: `${wsId(req.params.rg, req.params.ws)}/experiments/e1`, name: "e1" }]));
      ctx.arm("GET", `${base}/experiments/:exp/jobs`, v, (req) =>
        ok([{ id: `${wsId(req.params.rg, req.params.ws)}/experiments/${req.params.exp}/jobs/j1`, name: "j1" }]),
      );
    },
  };

  it("is kept, and its clusters, experiments, file servers and jobs are read in the resource group its id names", async () => {
    const emu = await startTestEmulator({ services: [imdsLocal as LocalService, singular], seed: {} });
    try {
      const client = new BatchAiClient({ endpoint: emu.url, credential: emu.credential, retry: FAST_RETRY, logger: memoryLogger() });
      const inv = await collectBatchInventory(client, { subscriptionId: SUB, locations: [] });
      expect(inv.workspaces.map((w) => w.name)).toEqual(["demo_workspace"]);
      const rg = wsId("demo_resource_group", "demo_workspace");
      expect(inv.clusters.map((c) => c.id)).toEqual([`${rg}/clusters/c1`]);
      expect(inv.fileServers.map((f) => f.id)).toEqual([`${rg}/fileServers/f1`]);
      expect(inv.experiments.map((e) => e.id)).toEqual([`${rg}/experiments/e1`]);
      expect(inv.jobs.map((j) => j.id)).toEqual([`${rg}/experiments/e1/jobs/j1`]);
      expect(inv.errors).toEqual([]);
      expect(inv.warnings.map((w) => w.message).join("\n")).toMatch(
        /its children are read by its name in resource group demo_resource_group/,
      );
    } finally {
      await emu.close();
    }
  });
});
