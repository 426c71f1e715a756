import { describe, expect, it } from "vitest";
import { chaosFaults, runChaosCampaign } from "../../campaigns/chaos-campaign";
import { prng } from "../../campaigns/campaign-estate";

/**
 * A 50-run slice of the fault campaign (`npm run chaos` runs it at any size): every run, under its
 * seed's faults and restarts, must converge, with plan exiting 0 and the state matching the stack.
 */
describe("the chaos campaign, 50 runs", () => {
  it("every run converges", async () => {
    const report = await runChaosCampaign({ seed: 5000, runs: 50, parallel: 10 });
    const failures = report.results.filter((r) => !r.converged).map((r) => `seed ${r.seed}: ${r.failure}`);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.converged).toBe(50);
    // The campaign is not vacuous: faults were injected and the emulator restarted.
    expect(report.results.reduce((n, r) => n + r.faultsInjected, 0)).toBeGreaterThan(100);
    expect(report.results.some((r) => r.restarts > 0)).toBe(true);
    expect(report.results.some((r) => r.applies > 1)).toBe(true);
  }, 300_000);

  it("a run's faults are decided by its seed, and cover every kind", () => {
    expect(chaosFaults(prng(7))).toEqual(chaosFaults(prng(7)));
    const kinds = new Set<string>();
    for (let s = 1; s < 40; s++) {
      for (const r of chaosFaults(prng(s)).rules) {
        kinds.add(r.scan ? `scan-${r.scan}` : r.drop ? "drop" : r.truncate ? "truncate" : r.delayMs ? "delay" : String(r.status));
      }
    }
    expect([...kinds].sort()).toEqual(["429", "503", "delay", "drop", "scan-fail", "scan-stall", "truncate"]);
  });
});
