import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChaosCampaign, storageFaults, storageRandom } from "../../campaigns/chaos-campaign";
import { startTestAzurite } from "../helpers/azurite";

/**
 * A slice of the fault campaign with shared state on Blob Storage (`npm run chaos -- --storage 1`
 * runs it at any size): locks and the audit trail on Azurite behind a proxy that answers 500/503,
 * holds requests past the client's timeout, refuses lease renewals, and in one run keeps the store
 * down for 30 s. Every run converges, and its one audit chain, read straight from Azurite, verifies
 * and ends with the converging apply.
 */
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
beforeAll(async () => {
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

describe("the chaos campaign with storage faults", () => {
  it("every run converges with an intact chain, the one with the store down for 30 s among them", async () => {
    const down = Array.from({ length: 200 }, (_, i) => 7000 + i).find((s) => storageFaults(storageRandom(s)).down)!;
    expect(down).toBeDefined();
    const report = await runChaosCampaign({ seed: down, runs: 5, parallel: 5, storage: azurite.accountUrl });
    const failures = report.results.filter((r) => !r.converged).map((r) => `seed ${r.seed}: ${r.failure}`);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.results.filter((r) => r.storeDown).map((r) => r.seed)).toContain(down);
    expect(report.results.reduce((n, r) => n + (r.storageFaults ?? 0), 0)).toBeGreaterThan(5);
  }, 300_000);
});
