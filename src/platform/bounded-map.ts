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

/**
 * The indices of `items` taken in turn from each group (`keyOf`), each group in its own order: the
 * first of every group, then the second of every group, and so on.
 */
export function interleavedOrder<T>(items: readonly T[], keyOf: (item: T) => string): number[] {
  const groups = new Map<string, number[]>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const lists = [...groups.values()];
  const order: number[] = [];
  for (let round = 0; order.length < items.length; round++) for (const g of lists) if (round < g.length) order.push(g[round]);
  return order;
}

/**
 * Like mapBounded (results in input order), but the calls start in turn across the groups `keyOf`
 * names. Reads of many subscriptions then draw on every subscription's throttling budget at once,
 * instead of draining one subscription's bucket while the others' sit full (in stack order, 10,000
 * databases of 20 subscriptions took 20 refills one after another).
 */
export async function mapBoundedAcross<T, R>(
  items: readonly T[],
  limit: number,
  keyOf: (item: T) => string,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const order = interleavedOrder(items, keyOf);
  // fn's own promise is awaited by mapBounded: no async wrapper per item (one promise and its ticks less).
  const inTurn = await mapBounded(order, limit, (i) => fn(items[i], i));
  const results = new Array<R>(items.length);
  for (let k = 0; k < order.length; k++) results[order[k]] = inTurn[k];
  return results;
}
