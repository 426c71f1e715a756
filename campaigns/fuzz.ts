import { campaignArgs } from "./campaign-args";
import { runStackFuzz } from "./stack-fuzz";

/** `npm run fuzz -- --cases N --seed S`: property-based fuzzing of stack files (see stack-fuzz.ts). Exits 1 on a failing case. */
async function run(): Promise<void> {
  const args = campaignArgs(process.argv.slice(2), { cases: 10_000, seed: 1 }, "usage: npm run fuzz -- [--cases N] [--seed S]");
  const report = await runStackFuzz(args);
  if (report.failure) {
    process.stdout.write(`fuzz: FAILED after ${report.cases} case(s) (seed ${report.seed}):\n${report.failure}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(
    `fuzz: ${report.cases}/${report.cases} cases clean in ${(report.ms / 1000).toFixed(1)} s (seed ${report.seed}): each broken stack file got exit 1, one stderr line with file:line:column, and no API call\n`,
  );
}

run().catch((e: unknown) => {
  process.stderr.write(`fuzz campaign failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
