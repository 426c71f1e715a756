import { afterEach, describe, expect, it } from "vitest";
import type { SeedDocument } from "../../../src/emulator/seed";
import type { WorkspaceRef } from "../../../src/services/batchai/types";
import { seedFromYaml } from "../../helpers/emulator";
import { SUB, type BatchEmulator, ids, startBatchEmulator } from "./batchai-harness";

/** One workspace with 310 jobs in one experiment, 45 experiments, 25 clusters and 23 file servers. */
const BIG: SeedDocument = seedFromYaml(`
batchai:
  workspaces:
    - resourceGroup: rg-big
      name: ws-big
      location: eastus
      clusters: [${Array.from({ length: 25 }, (_, i) => `{ name: c${i} }`).join(", ")}]
      fileServers: [${Array.from({ length: 23 }, (_, i) => `{ name: fs${i} }`).join(", ")}]
      experiments: { count: 45, jobsPerExperiment: 2 }
    - resourceGroup: rg-big
      name: ws-jobs
      location: eastus
      experiments:
        - name: sweep
          jobs: { count: 310 }
  generate: { workspaces: 57, resourceGroups: [rg-gen], clustersPerWorkspace: 0, fileServersPerWorkspace: 0 }
`);
const BIG_WS: WorkspaceRef = { subscriptionId: SUB, resourceGroup: "rg-big", workspace: "ws-big" };
const JOBS_WS: WorkspaceRef = { subscriptionId: SUB, resourceGroup: "rg-big", workspace: "ws-jobs" };
const JOBS_ROUTE =
  "GET /subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.BatchAI/workspaces/{workspaceName}/experiments/{experimentName}/jobs";

let t: BatchEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

function expectEachOnce(list: readonly { id?: string }[], count: number): void {
  const all = ids(list);
  expect(all).toHaveLength(count);
  expect(new Set(all.map((i) => i.toLowerCase())).size).toBe(count);
}

describe("paging", () => {
  it.each([3, 20])("page size %i: every list is complete, each item exactly once, in ceil(n/size) requests", async (size) => {
    t = await startBatchEmulator(BIG, { settings: { pageSize: size } });
    const c = t.client();
    const before = t.emu.stats.byRoute[JOBS_ROUTE] ?? 0;
    const jobs = await c.listJobs(JOBS_WS, "sweep");
    expectEachOnce(jobs, 310);
    expect(jobs.map((j) => j.name)).toEqual(Array.from({ length: 310 }, (_, i) => `job-${String(i + 1).padStart(4, "0")}`));
    expect(t.emu.stats.byRoute[JOBS_ROUTE] - before).toBe(Math.ceil(310 / size));
    expectEachOnce(await c.listWorkspaces(SUB), 59);
    expectEachOnce(await c.listWorkspacesByResourceGroup(SUB, "rg-gen"), 57);
    expectEachOnce(await c.listExperiments(BIG_WS), 45);
    expectEachOnce(await c.listClusters(BIG_WS), 25);
    expectEachOnce(await c.listFileServers(BIG_WS), 23);
    const ops = await c.listOperations();
    expect(new Set(ops.map((o) => o.name)).size).toBe(ops.length);
  });

  it("the page size can change at run time", async () => {
    t = await startBatchEmulator(BIG, { settings: { pageSize: 100 } });
    const c = t.client();
    const before = t.emu.stats.byRoute[JOBS_ROUTE] ?? 0;
    expectEachOnce(await c.listJobs(JOBS_WS, "sweep"), 310);
    expect(t.emu.stats.byRoute[JOBS_ROUTE] - before).toBe(4);
    t.emu.settings.pageSize = 7;
    expectEachOnce(await c.listJobs(JOBS_WS, "sweep"), 310);
    expect(t.emu.stats.byRoute[JOBS_ROUTE] - before).toBe(4 + 45);
  });

  it("jobPages makes one request per step, holds one page at a time and ends after the last", async () => {
    t = await startBatchEmulator(BIG, { settings: { pageSize: 50 } });
    const pages = t.client().jobPages(JOBS_WS, "sweep");
    const sizes: number[] = [];
    const requests: number[] = [];
    for (let step = await pages.next(); !step.done; step = await pages.next()) {
      sizes.push(step.value.length);
      requests.push(t.emu.stats.byRoute[JOBS_ROUTE]);
      for (const j of step.value) expect(j.id).toMatch(/\/jobs\/job-\d{4}$/);
    }
    expect(sizes).toEqual([50, 50, 50, 50, 50, 50, 10]);
    expect(requests).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(t.emu.stats.byRoute[JOBS_ROUTE]).toBe(7);
  });
});

describe("faults in the middle of paging", () => {
  it("503s at a rate on the jobs path are retried and the listing is still complete", async () => {
    const jobsPath = `/subscriptions/${SUB}/resourceGroups/rg-big/providers/Microsoft.BatchAI/workspaces/ws-jobs/experiments/sweep/jobs`;
    t = await startBatchEmulator(BIG, {
      settings: { pageSize: 20 },
      faults: { seed: 7, rules: [{ match: jobsPath, status: 503, rate: 0.3 }] },
    });
    const jobs = await t.client().listJobs(JOBS_WS, "sweep");
    expectEachOnce(jobs, 310);
    expect(t.emu.faults.injectedCount).toBeGreaterThan(0);
    expect(t.emu.stats.byRoute[JOBS_ROUTE]).toBe(Math.ceil(310 / 20) + t.emu.faults.injectedCount);
  });

  it("a burst of 500s with Retry-After on one page is waited out", async () => {
    t = await startBatchEmulator(BIG, { settings: { pageSize: 20 } });
    const c = t.client();
    const pages = c.jobPages(JOBS_WS, "sweep");
    const first: string[] = [];
    for (const j of (await pages.next()).value!) first.push(j.name!);
    // From the second page on, the next three requests fail.
    t.emu.faults.configure({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 0,
      rules: [{ match: "/subscriptions/", status: 500, count: 3, retryAfterMs: 5 }],
    });
    for await (const page of pages) for (const j of page) first.push(j.name!);
    expect(first).toHaveLength(310);
    expect(new Set(first).size).toBe(310);
    expect(t.emu.faults.injectedCount).toBe(3);
  });

  it("dropped connections mid-listing are retried too", async () => {
    t = await startBatchEmulator(BIG, {
      settings: { pageSize: 20 },
      faults: { seed: 3, rules: [{ match: "/subscriptions/", drop: true, rate: 0.2 }] },
    });
    expectEachOnce(await t.client().listJobs(JOBS_WS, "sweep"), 310);
    expect(t.emu.faults.injectedCount).toBeGreaterThan(0);
  });
});
