import { startAzurite } from "../src/platform/programs/azurite-server";
import { campaignArgs } from "./campaign-args";
import { KILL_DATABASES, runKillCampaign } from "./kill-campaign";
import { REPLICA_DATABASES, runReplicaKillCampaign } from "./replica-kill-campaign";

/**
 * `npm run chaos:kill -- --rounds N --seed S [--parallel P]`: the kill campaign (see
 * kill-campaign.ts). Exits 1 when a round did not converge.
 */
async function run(): Promise<void> {
  const args = campaignArgs(
    process.argv.slice(2),
    { rounds: 100, seed: 1, parallel: 2, replicas: 0 },
    "usage: npm run chaos:kill -- [--rounds N] [--seed S] [--parallel P] [--replicas 1]",
  );
  if (args.replicas) return runReplicas(args);
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

/** `--replicas 1`: watcher replicas and a racing apply on shared state, the leader killed (replica-kill-campaign.ts). */
async function runReplicas(args: { rounds: number; seed: number; parallel: number }): Promise<void> {
  const azurite = await startAzurite();
  try {
    const report = await runReplicaKillCampaign({
      seed: args.seed,
      rounds: args.rounds,
      parallel: args.parallel,
      azurite: azurite.accountUrl,
      onRound: (r, done) => {
        if (!r.converged)
          process.stdout.write(
            `seed ${r.seed} (leader killed ${r.at} ms after the change): did NOT converge: ${r.failure}${r.log ? ` (log: ${r.log})` : ""}\n`,
          );
        if (done % 5 === 0 || done === args.rounds) process.stdout.write(`kill (replicas): ${done}/${args.rounds} rounds done\n`);
      },
    });
    const healed = report.results
      .filter((r) => r.converged)
      .map((r) => r.healedMs)
      .sort((a, b) => a - b);
    const pct = (p: number) => (healed.length ? healed[Math.min(healed.length - 1, Math.floor(p * healed.length))] : 0);
    process.stdout.write(
      [
        `kill (replicas): ${report.converged}/${report.results.length} converged in ${(report.ms / 1000).toFixed(1)} s (seeds ${args.seed}..${args.seed + args.rounds - 1}, ${REPLICA_DATABASES} databases, two replicas and a racing apply each)`,
        report.failingSeeds.length
          ? `  drifted databases: ${report.results.reduce((n, r) => n + r.drifted, 0)}; the rounds that converged PUT each back exactly once, verified their chain and delivered every event`
          : `  drifted databases: ${report.results.reduce((n, r) => n + r.drifted, 0)}, each PUT back exactly once; every chain verified; every event enqueued delivered, none dead-lettered`,
        `  from the leader's kill -9 to every database repaired: p50 ${(pct(0.5) / 1000).toFixed(1)} s, p99 ${(pct(0.99) / 1000).toFixed(1)} s`,
        report.failingSeeds.length ? `  failing seeds: ${report.failingSeeds.join(", ")}` : "  failing seeds: none",
      ].join("\n") + "\n",
    );
    process.exitCode = report.failingSeeds.length ? 1 : 0;
  } finally {
    await azurite.stop();
  }
}

run().catch((e: unknown) => {
  process.stderr.write(`kill campaign failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
