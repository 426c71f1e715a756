import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChaosCampaign, storageFaults, storageRandom } from "../../campaigns/chaos-campaign";
import { runSilentStoreCampaign, SILENT_BOUND_MS, SILENT_WIND_DOWN_MS, summarizeSilentStore } from "../../campaigns/silent-store-campaign";
import { startTestAzurite } from "../helpers/azurite";

/**
 * A slice of the fault campaign with shared state on Blob Storage (`npm run chaos -- --storage 1`
 * runs it at any size): locks and the audit trail on Azurite behind a proxy that answers 500/503,
 * holds requests past the client's timeout, refuses lease renewals, and in one run keeps the store
 * down for 30 s. Every run converges, and its one audit chain, read straight from Azurite, verifies
 * and ends with the converging apply. And a store that accepts and never answers: the apply cut off
 * from it says SW_LOCK_LOST or SW_STATE_UNAVAILABLE within half a lease and one try (and ends after
 * winding down what it had under way), sends nothing after its lease could have lapsed, and the
 * apply that takes over converges with one chain that names every change.
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

  it("a store that accepts and never answers: the apply cut off says so within lease/2 + one try; no double apply; the chain verifies", async () => {
    const report = await runSilentStoreCampaign({ seed: 9100, runs: 3, parallel: 3, storage: azurite.accountUrl });
    const summary = summarizeSilentStore(report);
    console.log(summary);
    expect(
      report.runs.filter((r) => !r.ok).map((r) => `seed ${r.seed}: ${r.failure}`),
      summary,
    ).toEqual([]);
    for (const r of report.runs) {
      expect(r.lineMs, summary).toBeLessThanOrEqual(SILENT_BOUND_MS);
      expect(r.endMs, summary).toBeLessThanOrEqual(SILENT_BOUND_MS + SILENT_WIND_DOWN_MS);
      expect(r.doubleApplies).toBe(0);
      expect(r.chainIntact).toBe(true);
    }
  }, 240_000);
});
