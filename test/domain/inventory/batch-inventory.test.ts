import { afterEach, describe, expect, it, vi } from "vitest";
import { collectBatchInventory, type BatchInventory } from "../../../src/domain/inventory/batch-inventory";
import { BatchAiClient } from "../../../src/services/batchai/client";
import { SUB, type BatchEmulator, fixtureSeed, startBatchEmulator } from "../../services/batchai/batchai-harness";

const SEED_600 = fixtureSeed("600-jobs.yaml");
const SCOPE = { subscriptionId: SUB, locations: ["eastus"] };

let running: BatchEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.map((t) => t.close()));
  running = [];
});

async function emulator(...args: Parameters<typeof startBatchEmulator>): Promise<BatchEmulator> {
  const t = await startBatchEmulator(...args);
  running.push(t);
  return t;
}

function expectUniqueIds(list: readonly { id?: string }[], n: number): void {
  expect(list).toHaveLength(n);
  expect(new Set(list.map((r) => r.id!.toLowerCase())).size).toBe(n);
}

/** Counts the page requests in flight (each step of a `…Pages` iterator is one), to check the concurrency bound. */
function instrumented(client: BatchAiClient): { client: BatchAiClient; peak: () => number; pages: () => number } {
  let inFlight = 0,
    peak = 0,
    pages = 0;
  const proxy = new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== "function" || (!String(prop).endsWith("Pages") && !String(prop).endsWith("PagesByResourceGroup"))) return v;
      return (...args: unknown[]) => {
        const it = (v as (...a: unknown[]) => AsyncGenerator<unknown[]>).apply(target, args);
        return {
          next: async () => {
            inFlight += 1;
            peak = Math.max(peak, inFlight);
            try {
              const step = await it.next();
              if (!step.done) pages += 1;
              return step;
            } finally {
              inFlight -= 1;
            }
          },
          [Symbol.asyncIterator]() {
            return this;
          },
        };
      };
    },
  });
  return { client: proxy, peak: () => peak, pages: () => pages };
}

describe("collectBatchInventory", () => {
  it("3 workspaces × 4 experiments × 50 jobs, page size 20: every resource exactly once", async () => {
    const t = await emulator(SEED_600);
    expect(t.emu.settings.pageSize).toBe(20);
    const progress: [number, number, string][] = [];
    const inv = await collectBatchInventory(t.client(), SCOPE, { onProgress: (d, n, w) => progress.push([d, n, w]) });
    expectUniqueIds(inv.workspaces, 3);
    expectUniqueIds(inv.experiments, 12);
    expectUniqueIds(inv.jobs, 600);
    expectUniqueIds(inv.clusters, 6);
    expectUniqueIds(inv.fileServers, 3);
    expect(inv.usages.map((u) => u.name?.value)).toEqual(["clusters", "cores"]);
    expect(Object.keys(inv.usagesByLocation)).toEqual(["eastus"]);
    expect(inv.operations.length).toBeGreaterThan(10);
    // Sorted by id, so the output does not depend on the order reads finished in.
    const jobIds = inv.jobs.map((j) => j.id!.toLowerCase());
    expect(jobIds).toEqual([...jobIds].sort());
    // Progress counts pages: the workspace list, 3×3 lists per workspace, 12 job lists of 3 pages
    // (50 jobs, 20 a page), 2 pages of operations (21), one location of usages.
    expect(progress).toHaveLength(1 + 9 + 12 * 3 + 2 + 1);
    expect(progress.filter(([, , w]) => w.endsWith("(page 3)") && w.startsWith("jobs of "))).toHaveLength(12);
    expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
    expect(progress.map(([d]) => d)).toEqual(progress.map((_, i) => i + 1));
  });

  it("with 10% injected 503s (fixed fault seed) the output is identical", async () => {
    const clean = await emulator(SEED_600);
    const faulty = await emulator(SEED_600, { faults: { seed: 42, rules: [{ status: 503, rate: 0.1 }] } });
    const a = await collectBatchInventory(clean.client(), SCOPE);
    const b = await collectBatchInventory(faulty.client(), SCOPE, { concurrency: 5 });
    expect(faulty.emu.faults.injectedCount).toBeGreaterThan(5);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    // And two clean runs agree, whatever the concurrency.
    expect(JSON.stringify(await collectBatchInventory(clean.client(), SCOPE, { concurrency: 1 }))).toBe(JSON.stringify(a));
  });

  it("resourceGroups limits discovery to those groups", async () => {
    const t = await emulator(SEED_600);
    const inv = await collectBatchInventory(t.client(), { ...SCOPE, resourceGroups: ["RG-BATCH-B"] });
    expect(inv.workspaces.map((w) => w.name)).toEqual(["ws-02"]);
    expectUniqueIds(inv.jobs, 200);
    for (const r of [...inv.clusters, ...inv.experiments, ...inv.fileServers, ...inv.jobs])
      expect(r.id).toContain("/resourceGroups/rg-batch-b/");
    const routes = Object.keys(t.emu.stats.byRoute);
    expect(routes.some((r) => r.endsWith("/providers/Microsoft.BatchAI/workspaces") && !r.includes("resourceGroups"))).toBe(false);
  });

  it("a resource group that does not exist is one error, with ARM's answer; the other group is read in full", async () => {
    const t = await emulator(SEED_600);
    const inv = await collectBatchInventory(t.client(), { ...SCOPE, resourceGroups: ["rg-batch-a", "rg-gone"] });
    expect(inv.errors).toHaveLength(1);
    expect(inv.errors[0]).toMatchObject({
      resource: "workspaces of resource group rg-gone",
      id: `/subscriptions/${SUB}/resourceGroups/rg-gone/providers/Microsoft.BatchAI/workspaces`,
      operation: "Workspaces_ListByResourceGroup",
      status: 404,
      code: "ResourceGroupNotFound",
    });
    expect(inv.errors[0].message).toContain("rg-gone");
    expect(inv.workspaces.map((w) => w.name)).toEqual(["ws-01", "ws-03"]);
    expectUniqueIds(inv.jobs, 400);
    expect(inv.warnings).toEqual([]);
  });

  it("keeps at most `concurrency` reads in flight", async () => {
    const t = await emulator(SEED_600, { faults: { latencyMs: 3 } });
    for (const concurrency of [1, 3, 8]) {
      const probe = instrumented(t.client());
      const inv = await collectBatchInventory(probe.client, SCOPE, { concurrency });
      expect(inv.jobs).toHaveLength(600);
      expect(probe.peak()).toBeLessThanOrEqual(concurrency);
      if (concurrency > 1) expect(probe.peak()).toBe(concurrency);
      expect(probe.pages()).toBe(49);
    }
  });

  it("the estate fixture: every kind, usages of two locations, an empty experiment", async () => {
    const t = await emulator(fixtureSeed("estate.yaml"), { settings: { pageSize: 3 } });
    const inv: BatchInventory = await collectBatchInventory(t.client(), {
      subscriptionId: SUB,
      locations: ["westeurope", "eastus", "EastUS"],
    });
    expect(inv.workspaces.map((w) => w.name)).toEqual(["ws-nlp", "ws-vision", "ws-sandbox"]);
    expect(inv.jobs).toHaveLength(5 + 7 + 2 * 5);
    expect(Object.keys(inv.usagesByLocation)).toEqual(["eastus", "westeurope"]);
    expect(inv.usages).toHaveLength(6);
    expect(inv.usagesByLocation.eastus.find((u) => u.name?.value === "cores")).toMatchObject({ currentValue: 92, limit: 100 });
  });

  it("an aborted signal stops it", async () => {
    const t = await emulator(SEED_600, { faults: { latencyMs: 20 } });
    const ac = new AbortController();
    const pending = collectBatchInventory(t.client(), SCOPE, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error("stop")), 30);
    await expect(pending).rejects.toThrow();
  });

  it("refuses a concurrency that is not a positive integer", async () => {
    const t = await emulator(SEED_600);
    await expect(collectBatchInventory(t.client(), SCOPE, { concurrency: 0 })).rejects.toThrow(RangeError);
  });
});

describe("the schedule, in virtual time", () => {
  /**
   * A client whose every page takes exactly L ms of (fake) time and no CPU: the makespan then
   * measures the schedule alone, without the noise of a shared machine. Estate of the bench:
   * 5 workspaces × 10 experiments × 200 jobs, 2 clusters and 1 file server each, page size 20, as in the bench.
   */
  function virtualClient(latencyMs: number) {
    const pageSize = 20;
    let requests = 0;
    // The global setTimeout, not node:timers/promises: vitest's fake timers drive this virtual clock and fake only the global.
    const sleep = () => new Promise((r) => setTimeout(r, latencyMs));
    async function* pages<T>(items: T[]): AsyncGenerator<T[]> {
      for (let i = 0; i < Math.max(1, Math.ceil(items.length / pageSize)); i++) {
        requests += 1;
        await sleep();
        yield items.slice(i * pageSize, (i + 1) * pageSize);
      }
    }
    const wsId = (w: number) => `/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.BatchAI/workspaces/ws-${w}`;
    const range = (n: number) => Array.from({ length: n }, (_, i) => i);
    const client = {
      operationPages: () => pages(range(21).map((i) => ({ name: `op-${i}` }))),
      usagePages: () => pages([{ name: { value: "cores" } }]),
      workspacePages: () => pages(range(5).map((w) => ({ id: wsId(w) }))),
      clusterPages: (ref: { workspace: string }) =>
        pages(range(2).map((c) => ({ id: `${wsId(Number(ref.workspace.slice(3)))}/clusters/c${c}` }))),
      fileServerPages: (ref: { workspace: string }) => pages([{ id: `${wsId(Number(ref.workspace.slice(3)))}/fileServers/fs` }]),
      experimentPages: (ref: { workspace: string }) =>
        pages(range(10).map((e) => ({ id: `${wsId(Number(ref.workspace.slice(3)))}/experiments/e${e}` }))),
      jobPages: (ref: { workspace: string }, exp: string) =>
        pages(range(200).map((j) => ({ id: `${wsId(Number(ref.workspace.slice(3)))}/experiments/${exp}/jobs/j${j}` }))),
    };
    return { client: client as unknown as BatchAiClient, requests: () => requests };
  }

  it.each([1, 4, 8, 16])(
    "concurrency %i: the makespan is the floor (latency × max(critical path, requests / concurrency, discovery + dependent / concurrency))",
    async (concurrency) => {
      vi.useFakeTimers();
      try {
        const L = 10;
        const v = virtualClient(L);
        const start = Date.now();
        let done = false;
        const run = collectBatchInventory(v.client, { subscriptionId: SUB, locations: ["eastus", "westus2"] }, { concurrency }).finally(
          () => {
            done = true;
          },
        );
        while (!done) await vi.advanceTimersByTimeAsync(L);
        const inv = await run;
        const makespan = Date.now() - start;
        expect(inv.jobs).toHaveLength(10_000);
        const requests = v.requests();
        const dependent = requests - 1 - 1 - 2; // all but the workspace list, operations and two usages
        const floor = L * Math.max(1 + 1 + 2, Math.ceil(requests / concurrency), 1 + Math.ceil(dependent / concurrency));
        expect(requests).toBe(520);
        // Pages take turns, so the 50 ten-page job chains finish together and no slot idles at the end:
        // the makespan is the floor itself (holding a slot for a whole list made it 1.1× at 8).
        expect(makespan).toBe(floor);
      } finally {
        vi.useRealTimers();
      }
    },
  );
});
