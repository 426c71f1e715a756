import { startAzurite } from "../src/platform/programs/azurite-server";
import { campaignArgs } from "./campaign-args";
import { runChaosCampaign, summarizeChaos } from "./chaos-campaign";
import { runSilentStoreCampaign, summarizeSilentStore } from "./silent-store-campaign";

/**
 * `npm run chaos -- --runs N --seed S [--parallel P] [--storage 1] [--silent 1]`: the fault campaign
 * (see chaos-campaign.ts). With `--storage 1`, each run keeps its locks and audit trail on Blob
 * Storage (Azurite, started here) behind a proxy that injects storage faults. With `--silent 1`,
 * the silent-store campaign instead (silent-store-campaign.ts): a store that accepts and never
 * answers, cut from an apply mid-way. Prints progress, the failing seeds with what went wrong, and
 * a summary; exits 1 when a run did not converge (or did not hold).
 */
async function run(): Promise<void> {
  const args = campaignArgs(
    process.argv.slice(2),
    { runs: 100, seed: 1, parallel: 4, storage: 0, silent: 0 },
    "usage: npm run chaos -- [--runs N] [--seed S] [--parallel P] [--storage 1] [--silent 1]",
  );
  const azurite = args.storage || args.silent ? await startAzurite() : undefined;
  try {
    if (azurite && args.silent) {
      const report = await runSilentStoreCampaign({
        seed: args.seed,
        runs: args.runs,
        parallel: args.parallel,
        storage: azurite.accountUrl,
        onRun: (r, done) => process.stdout.write(`seed ${r.seed}: ${r.ok ? "held" : "did NOT hold"} (${done}/${args.runs})\n`),
      });
      process.stdout.write(`${summarizeSilentStore(report)}\n`);
      process.exitCode = report.runs.every((r) => r.ok) ? 0 : 1;
      return;
    }
    const report = await runChaosCampaign({
      seed: args.seed,
      runs: args.runs,
      parallel: args.parallel,
      storage: azurite?.accountUrl,
      onRun: (r, done) => {
        if (!r.converged) process.stdout.write(`seed ${r.seed}: did NOT converge: ${r.failure}\n`);
        // Every 10 runs: a run whose store is down for 30 s is quiet, and 50 runs without a line looked like a stall.
        if (done % 10 === 0 || done === args.runs) process.stdout.write(`chaos: ${done}/${args.runs} runs done\n`);
      },
    });
    process.stdout.write(`${summarizeChaos(report, args.seed)}\n`);
    process.exitCode = report.failingSeeds.length ? 1 : 0;
  } finally {
    await azurite?.stop();
  }
}

run().catch((e: unknown) => {
  process.stderr.write(`chaos campaign failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
