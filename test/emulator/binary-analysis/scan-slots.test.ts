import { describe, expect, it } from "vitest";
import { ScanSlots } from "../../../src/emulator/services/binary-analysis/scan-slots";

describe("scan slots", () => {
  it("never runs more than the limit at once, and runs the waiting ones in order", async () => {
    const slots = new ScanSlots(2);
    const gates: (() => void)[] = [];
    const started: number[] = [];
    let peak = 0;
    const runs = Array.from({ length: 5 }, (_, i) =>
      slots.run(
        () =>
          new Promise<number>((resolve) => {
            started.push(i);
            peak = Math.max(peak, slots.active);
            gates[i] = () => resolve(i);
          }),
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    for (let i = 0; i < 5; i++) {
      while (!gates[i]) await new Promise((r) => setImmediate(r));
      gates[i]();
    }
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(slots.active).toBe(0);
  });

  it("drops a waiting scan whose client went away, without taking a slot", async () => {
    const slots = new ScanSlots(1);
    let release!: () => void;
    const first = slots.run(() => new Promise<void>((r) => (release = r)));
    const controller = new AbortController();
    const second = slots.run(async () => "ran", controller.signal);
    controller.abort(new Error("client gone"));
    await expect(second).rejects.toThrow("client gone");
    release();
    await first;
    expect(await slots.run(async () => "third")).toBe("third");
    expect(slots.active).toBe(0);
  });

  it("holds at most the byte budget of files at once; a larger file runs alone", async () => {
    const slots = new ScanSlots(4, 100);
    const gates = new Map<string, () => void>();
    const started: string[] = [];
    const task = (name: string, bytes: number) =>
      slots.run(
        () =>
          new Promise<void>((resolve) => {
            started.push(name);
            gates.set(name, resolve);
          }),
        undefined,
        bytes,
      );
    const settle = () => new Promise((r) => setImmediate(r));
    const a = task("a60", 60);
    const b = task("b60", 60);
    const c = task("c30", 30);
    await settle();
    // b does not fit beside a; c waits behind b (arrival order).
    expect(started).toEqual(["a60"]);
    expect(slots.activeBytes).toBe(60);
    gates.get("a60")!();
    await a;
    await settle();
    expect(started).toEqual(["a60", "b60", "c30"]);
    expect(slots.activeBytes).toBe(90);
    const big = task("big500", 500);
    await settle();
    expect(started).not.toContain("big500");
    gates.get("b60")!();
    gates.get("c30")!();
    await Promise.all([b, c]);
    await settle();
    expect(started).toContain("big500");
    expect(slots.activeBytes).toBe(100);
    gates.get("big500")!();
    await big;
    expect([slots.active, slots.activeBytes]).toEqual([0, 0]);
  });
});
