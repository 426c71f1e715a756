import { campaignArgs } from "./campaign-args";
import { KILL_DATABASES, runKillCampaign } from "./kill-campaign";

/**
 * `npm run chaos:kill -- --rounds N --seed S [--parallel P]`: the kill campaign (see
 * kill-campaign.ts). Exits 1 when a round did not converge.
 */
async function run(): Promise<void> {
  const args = campaignArgs(
    process.argv.slice(2),
    { rounds: 100, seed: 1, parallel: 2 },
    "usage: npm run chaos:kill -- [--rounds N] [--seed S] [--parallel P]",
  );
  const report = await runKillCampaign({
    seed: args.seed,
    rounds: args.rounds,
    parallel: args.parallel,
    onRound: (r, done) => {
      if (!r.converged) process.stdout.write(`seed ${r.seed} (kill -9 of ${r.killed} at ${r.at} ms): did NOT converge: ${r.failure}\n`);
      if (done % 10 === 0 || done === args.rounds) process.stdout.write(`kill: ${done}/${args.rounds} rounds done\n`);
    },
  });
  const by = (k: string) => report.results.filter((r) => r.killed === k).length;
  process.stdout.write(
    [
      `kill: ${report.converged}/${report.results.length} converged in ${(report.ms / 1000).toFixed(1)} s (seeds ${args.seed}..${args.seed + args.rounds - 1}, ${KILL_DATABASES} databases each)`,
      `  kill -9 of apply: ${by("apply")}, of the emulator: ${by("emulator")}, of both: ${by("both")}; each followed by a rerun of apply, plan, and a load of the state file`,
      report.failingSeeds.length ? `  failing seeds: ${report.failingSeeds.join(", ")}` : "  failing seeds: none",
    ].join("\n") + "\n",
  );
  process.exitCode = report.failingSeeds.length ? 1 : 0;
}

run().catch((e: unknown) => {
  process.stderr.write(`kill campaign failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
