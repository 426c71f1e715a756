/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping input order in the
 * result. The first rejection stops new calls from starting and is rethrown once running ones settle.
 */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (!failure && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i], i);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}

/**
 * Like mapBounded, but every item runs to completion and each outcome is reported, so one
 * failure does not hide the others (used where partial progress must be shown).
 */
export async function settleBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  return mapBounded(items, limit, (item, i) =>
    fn(item, i).then(
      (value): PromiseSettledResult<R> => ({ status: "fulfilled", value }),
      (reason: unknown): PromiseSettledResult<R> => ({ status: "rejected", reason }),
    ),
  );
}
