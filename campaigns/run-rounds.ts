/**
 * Runs `rounds` rounds of a campaign from `seed`, `parallel` at a time, and reports which seeds did
 * not converge: the scheduling every kill campaign shares.
 */
export async function runRounds<R extends { seed: number; converged: boolean }>(
  opts: { seed: number; rounds: number; parallel?: number; onRound?: (r: R, done: number) => void },
  round: (seed: number) => Promise<R>,
): Promise<{ results: R[]; converged: number; failingSeeds: number[]; ms: number }> {
  const started = Date.now();
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < opts.rounds) {
      const r = await round(opts.seed + next++);
      results.push(r);
      opts.onRound?.(r, results.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.parallel ?? 2, opts.rounds)) }, worker));
  results.sort((a, b) => a.seed - b.seed);
  const failingSeeds = results.filter((r) => !r.converged).map((r) => r.seed);
  return { results, converged: results.length - failingSeeds.length, failingSeeds, ms: Date.now() - started };
}
