import { describe, expect, it } from "vitest";
import { StoreSilence } from "../../../src/platform/state/blob/store-silence";

// When a try that got no answer in time may be tried again: a stray stall yes, a silent store no.
describe("the store's silence", () => {
  it("the first unanswered try is retried; one begun after the store was already silent is not", () => {
    const s = new StoreSilence();
    expect(s.mayRetryUnanswered(100)).toBe(true);
    expect(s.mayRetryUnanswered(200)).toBe(false);
    // A try begun before the silence was known (concurrent with the first) still counts as a first.
    expect(s.mayRetryUnanswered(50)).toBe(true);
    expect(s.mayRetryUnanswered(60)).toBe(false);
  });

  it("any answer ends the silence; an answer after a try began makes its stall a stray one", () => {
    const s = new StoreSilence();
    expect(s.mayRetryUnanswered(100)).toBe(true);
    s.answered(300);
    expect(s.mayRetryUnanswered(250)).toBe(true);
    expect(s.mayRetryUnanswered(400)).toBe(true);
    expect(s.mayRetryUnanswered(500)).toBe(false);
  });
});
