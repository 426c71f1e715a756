import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReplicaKillCampaign } from "../../campaigns/replica-kill-campaign";
import { requireCompiledCli } from "../helpers/cli-process";
import { startTestAzurite } from "../helpers/azurite";

/**
 * A slice of the replica kill campaign (`npm run chaos:kill -- --replicas 1` runs it at any size):
 * two watcher replicas and a racing apply on one Azurite state URL, the leader killed after an
 * out-of-band change. Every round: each drifted database PUT back exactly once, the chain intact
 * and complete, every event delivered.
 */
let azurite: Awaited<ReturnType<typeof startTestAzurite>>;
beforeAll(async () => {
  requireCompiledCli();
  azurite = await startTestAzurite();
});
afterAll(() => azurite?.stop());

describe("the replica kill campaign, 2 rounds", () => {
  it("every round converges with one PUT per drifted database, an intact chain and no event lost", async () => {
    const report = await runReplicaKillCampaign({ seed: 900, rounds: 2, parallel: 2, azurite: azurite.accountUrl });
    const failures = report.results.filter((r) => !r.converged).map((r) => `seed ${r.seed}: ${r.failure}`);
    expect(failures, failures.join("\n\n")).toEqual([]);
    expect(report.results.reduce((n, r) => n + r.drifted, 0)).toBeGreaterThan(0);
  }, 300_000);
});
