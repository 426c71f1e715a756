import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EmulatorReply } from "../../../src/emulator/kit/emulator-app";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { sqlLocal } from "../../../src/emulator/services/sql/sql-local";
import { collectBatchInventory } from "../../../src/domain/inventory/batch-inventory";
import { batchExperiment, batchJobs } from "../../../src/domain/facts/batch-objects";
import type { FactClients } from "../../../src/domain/facts/fact-clients";
import { readDataSource } from "../../../src/interfaces/pulumi/data-source-resource";
import { BatchAiClient } from "../../../src/services/batchai/client";
import { ArmOperations } from "../../../src/platform/arm/arm-operations";
import { ARM_READS } from "../../../src/services/arm-reads";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { memoryLogger } from "../../services/batchai/batchai-harness";
import { runCli, stackDir } from "../../interfaces/cli/cli-harness";

/**
 * What real services answer now and then: resources without an id, ids of an unexpected shape,
 * items that are not objects, lists that fail. Each stays one warning or one error; nothing else
 * is lost.
 */
const SUB = "00000000-0000-0000-0000-000000000000";
const NS = "Microsoft.BatchAI";
const ws = (rg: string, name: string) => `/subscriptions/${SUB}/resourceGroups/${rg}/providers/${NS}/workspaces/${name}`;
const ok = (value: unknown[]): EmulatorReply => ({ status: 200, body: { value } });

/** A Batch AI estate drawn from odd answers: three workspaces, one fine, one without id, one with a relative id. */
const oddBatch: LocalService = {
  name: "oddbatch",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    const v = ["2018-05-01"];
    const wsBase = `/subscriptions/:sub/resourceGroups/:rg/providers/${NS}/workspaces/:ws`;
    ctx.arm("GET", `/providers/${NS}/operations`, v, () => ok([{ name: "Microsoft.BatchAI/workspaces/read" }]));
    ctx.arm("GET", `/subscriptions/:sub/providers/${NS}/workspaces`, v, () =>
      ok([
        { id: ws("rg-a", "ws-ok"), name: "ws-ok", type: `${NS}/workspaces` },
        { name: "ws-noid", type: `${NS}/workspaces` },
        { id: "workspaces/ws-relative", name: "ws-relative" },
        null,
      ]),
    );
    ctx.arm("GET", `/subscriptions/:sub/resourceGroups/:rg/providers/${NS}/workspaces`, v, (req) =>
      ok([{ name: `ws-in-${req.params.rg}`, type: `${NS}/workspaces` }]),
    );
    ctx.arm("GET", `${wsBase}/experiments`, v, (req) =>
      ok([{ id: `${ws(req.params.rg, req.params.ws)}/experiments/exp-ok`, name: "exp-ok" }, { name: "exp-noid" }, "not-an-experiment"]),
    );
    ctx.arm("GET", `${wsBase}/experiments/:exp/jobs`, v, (req): EmulatorReply => {
      if (req.params.exp === "exp-noid")
        return { status: 403, body: { error: { code: "AuthorizationFailed", message: "no read access to these jobs" } } };
      return ok([
        { id: `${ws(req.params.rg, req.params.ws)}/experiments/${req.params.exp}/jobs/j1`, name: "j1" },
        { name: "j-noid", properties: { executionState: "running" } },
      ]);
    });
    ctx.arm("GET", `${wsBase}/clusters`, v, () => ok([]));
    ctx.arm("GET", `${wsBase}/fileServers`, v, () => ok([]));
  },
};

let t: TestEmulator;
beforeAll(async () => {
  t = await startTestEmulator({
    services: [imdsLocal as LocalService, sqlLocal as LocalService, oddBatch],
    seed: seedFromYaml(`
sql:
  scanDurationMs: 0
  servers:
    - name: s1
      resourceGroup: rg
      databases:
        - { name: orders, transparentDataEncryption: Disabled }
        - { name: billing, transparentDataEncryption: Enabled }
`),
  });
});
afterAll(() => t.close());

const batch = () =>
  new BatchAiClient({ endpoint: t.url, credential: t.credential, retry: { ...FAST_RETRY, maxAttempts: 2 }, logger: memoryLogger() });

describe("the Batch AI inventory reads tolerantly", () => {
  it("keeps odd workspaces, experiments and jobs as they came; a failed list is one error; the rest is read", async () => {
    const inv = await collectBatchInventory(batch(), { subscriptionId: SUB, locations: [] });
    // All three workspaces, as the API returned them (the null item is skipped by the client).
    expect(inv.workspaces.map((w) => w.name).sort()).toEqual(["ws-noid", "ws-ok", "ws-relative"]);
    expect(inv.workspaces.find((w) => w.name === "ws-noid")).toEqual({ name: "ws-noid", type: `${NS}/workspaces` });
    // Only ws-ok could be descended into; its id-less experiment was still read by name.
    expect(inv.experiments.map((e) => e.name).sort()).toEqual(["exp-noid", "exp-ok"]);
    expect(inv.jobs.map((j) => j.name).sort()).toEqual(["j-noid", "j1"]);
    expect(inv.errors).toEqual([
      expect.objectContaining({
        resource: "jobs of rg-a/ws-ok/exp-noid",
        id: `${ws("rg-a", "ws-ok")}/experiments/exp-noid/jobs`,
        operation: "Jobs_ListByExperiment",
        status: 403,
        code: "AuthorizationFailed",
        message: "no read access to these jobs",
      }),
    ]);
    const warnings = inv.warnings.map((w) => `${w.resource}: ${w.message}`).join("\n");
    expect(warnings).toMatch(/workspaces of subscription .*'ws-noid' has no id .*could not be read/);
    expect(warnings).toMatch(/'ws-relative' has the id 'workspaces\/ws-relative', which is not an ARM resource id.*could not be read/);
    expect(warnings).toMatch(/experiments of rg-a\/ws-ok: the item named 'exp-noid' has no id/);
    expect(warnings).toMatch(/jobs of rg-a\/ws-ok\/exp-ok: the item named 'j-noid' has no id/);
    expect(inv.operations).toHaveLength(1);
  });

  it("a workspace without id listed by resource group is descended into by its name", async () => {
    const inv = await collectBatchInventory(batch(), { subscriptionId: SUB, resourceGroups: ["rg-b"], locations: [] });
    expect(inv.workspaces).toEqual([{ name: "ws-in-rg-b", type: `${NS}/workspaces` }]);
    expect(inv.experiments.map((e) => e.name).sort()).toEqual(["exp-noid", "exp-ok"]);
    expect(inv.jobs.map((j) => j.id ?? j.name)).toEqual([`${ws("rg-b", "ws-in-rg-b")}/experiments/exp-ok/jobs/j1`, "j-noid"]);
    expect(inv.warnings.map((w) => w.message).join("\n")).toMatch(/its children are read by its name in resource group rg-b/);
  });

  it("a data source over a list with an odd item still reads: the item is kept", async () => {
    const reads = new ArmOperations({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY, logger: memoryLogger() }, ARM_READS);
    const jobs = await readDataSource({ reads } as unknown as FactClients, batchJobs, {
      subscriptionId: SUB,
      resourceGroup: "rg-a",
      workspace: "ws-ok",
      experiment: "exp-ok",
    });
    expect((jobs.outs.jobs as { name: string }[]).map((j) => j.name)).toEqual(["j1", "j-noid"]);
    const wsRead = await readDataSource({ reads } as unknown as FactClients, batchExperiment, {
      subscriptionId: SUB,
      resourceGroup: "rg-a",
      workspace: "ws-ok",
      experiment: "exp-ok",
    }).catch((e: unknown) => e);
    // The odd service has no single-experiment route: that read fails on its own, as a 404 naming it.
    expect(String(wsRead)).toMatch(/experiment 'exp-ok'/);
  });
});

const STACK = `config:
  stackwarden:subscriptionId: ${SUB}
  stackwarden:databases:
    - { resourceGroup: rg, server: s1, database: orders, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: ghost, transparentDataEncryption: Enabled }
    - { resourceGroup: rg, server: s1, database: billing, transparentDataEncryption: Enabled }
  stackwarden:batch:
    locations: []
`;

describe("inventory and plan with a database the cloud does not have", () => {
  let dir: string;
  beforeAll(() => {
    dir = stackDir({ "stack.yaml": STACK });
  });

  it("inventory --output json prints everything it read, lists the failed reads under errors, and exits 1", async () => {
    const r = await runCli(["inventory", "--config", "stack.yaml", "--output", "json"], t.url, dir);
    expect(r.code, r.err).toBe(1);
    const doc = JSON.parse(r.out) as {
      sql: { transparentDataEncryptions: { id: string }[] };
      batch: { workspaces: unknown[]; jobs: unknown[] };
      errors: { resource: string; status: number; code: string; location?: string }[];
      warnings: unknown[];
    };
    expect(doc.sql.transparentDataEncryptions.map((x) => x.id.split("/")[10])).toEqual(["orders", "billing"]);
    expect(doc.batch.workspaces).toHaveLength(3);
    const ghost = doc.errors.filter((e) => e.resource.endsWith("rg/s1/ghost"));
    expect(ghost).toHaveLength(3); // its TDE, its scans and its advisors
    for (const e of ghost) expect(e).toMatchObject({ status: 404, code: "ResourceNotFound", location: "stack.yaml:5:7" });
    expect(doc.errors.some((e) => e.resource === "jobs of rg-a/ws-ok/exp-noid")).toBe(true);
    expect(r.err).toMatch(
      /^inventory: error: SW_RESOURCE_NOT_FOUND: stack\.yaml:5:7: transparentDataEncryption of rg\/s1\/ghost: HTTP 404 ResourceNotFound: /m,
    );
  });

  it("plan names the missing database at its stack-file line, plans the others, and exits 1", async () => {
    const r = await runCli(["plan", "--config", "stack.yaml"], t.url, dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("1 change, 1 unchanged, 1 database could not be read");
    expect(r.out).toContain("~ rg/s1/orders");
    expect(r.err.trim().split("\n")).toEqual([
      expect.stringMatching(
        /^stackwarden plan: SW_RESOURCE_NOT_FOUND: stack\.yaml:5:7: database rg\/s1\/ghost: the cloud has no such database \(/,
      ),
    ]);
    const json = await runCli(["plan", "--config", "stack.yaml", "--output", "json"], t.url, dir);
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.out) as { changes: { database: string }[]; errors: Record<string, unknown>[]; summary: { errors: number } };
    expect(doc.changes.map((c) => c.database)).toEqual(["orders"]);
    expect(doc.summary.errors).toBe(1);
    expect(doc.errors[0]).toMatchObject({
      database: "ghost",
      file: "stack.yaml",
      line: 5,
      column: 7,
      status: 404,
      code: "ResourceNotFound",
    });
  });

  it("apply changes the databases it can read, then exits 1 for the one it cannot", async () => {
    const r = await runCli(["apply", "--config", "stack.yaml", "--yes", "--poll-interval", "50"], t.url, dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("Apply: 1 of 1 change(s) converged.");
    expect(r.err).toMatch(
      /stackwarden apply: SW_RESOURCE_NOT_FOUND: stack\.yaml:5:7: database rg\/s1\/ghost: the cloud has no such database/,
    );
    const again = await runCli(["plan", "--config", "stack.yaml"], t.url, dir);
    expect(again.out).toContain("no changes, 2 unchanged, 1 database could not be read");
  });
});
