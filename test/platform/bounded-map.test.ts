import { describe, expect, it } from "vitest";
import { interleavedOrder, mapBoundedAcross } from "../../src/platform/bounded-map";

describe("interleavedOrder", () => {
  it("takes the groups in turn, each in its own order, every index once", () => {
    const items = ["a1", "a2", "a3", "b1", "c1", "c2"];
    expect(interleavedOrder(items, (s) => s[0]).map((i) => items[i])).toEqual(["a1", "b1", "c1", "a2", "c2", "a3"]);
    expect(interleavedOrder([], (s: string) => s)).toEqual([]);
  });
});

describe("mapBoundedAcross", () => {
  it("keeps the input order in its results, and starts the calls in turn across the groups", async () => {
    // 3 subscriptions of 4 databases each, listed subscription by subscription.
    const items = Array.from({ length: 12 }, (_, i) => ({ sub: `s${Math.floor(i / 4)}`, n: i }));
    const started: string[] = [];
    let inFlight = 0;
    let most = 0;
    const results = await mapBoundedAcross(
      items,
      3,
      (x) => x.sub,
      async (x, i) => {
        started.push(x.sub);
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return `${i}:${x.n}`;
      },
    );
    expect(results).toEqual(items.map((x, i) => `${i}:${x.n}`));
    // The first three calls reach three subscriptions, not the first subscription's first three databases.
    expect(started.slice(0, 3)).toEqual(["s0", "s1", "s2"]);
    expect(most).toBeLessThanOrEqual(3);
  });

  it("rethrows the first failure", async () => {
    await expect(
      mapBoundedAcross([1, 2, 3], 2, String, async (x) => {
        if (x === 2) throw new Error("no 2");
        return x;
      }),
    ).rejects.toThrow("no 2");
  });
});
