import { describe, expect, it } from "vitest";
import { KeyGate, type KeyPolicy } from "../../../../src/emulator/services/geocoding/api-keys";
import { pageWindow } from "../../../../src/emulator/services/geocoding/paging";

const OPEN: KeyPolicy = { requireKey: false, apiKeys: [] };

describe("the geocoding key gate", () => {
  it("lets anyone in by default, with or without a key", () => {
    const gate = new KeyGate();
    expect(gate.check(OPEN, undefined, "127.0.0.1", 0)).toBeUndefined();
    expect(gate.check(OPEN, "anything", "127.0.0.1", 0)).toBeUndefined();
  });

  it("refuses a missing key with 401 when a key is required", () => {
    const r = new KeyGate().check({ ...OPEN, requireKey: true }, undefined, "127.0.0.1", 0);
    expect(r).toMatchObject({ status: 401, body: { error: expect.stringMatching(/api_key parameter is missing/) } });
  });

  it("with listed keys, refuses a missing or unknown key with 401 and never echoes it", () => {
    const policy: KeyPolicy = { requireKey: false, apiKeys: [{ key: "good-key-1234" }] };
    const gate = new KeyGate();
    expect(gate.check(policy, undefined, "127.0.0.1", 0)?.status).toBe(401);
    const wrong = gate.check(policy, "wrong-key-9876", "127.0.0.1", 0);
    expect(wrong?.status).toBe(401);
    expect(JSON.stringify(wrong)).not.toContain("wrong-key-9876");
    expect(gate.check(policy, "good-key-1234", "127.0.0.1", 0)).toBeUndefined();
  });

  it("refuses a key used from an address it is not allowed from with 403 (IPv4-mapped addresses included)", () => {
    const policy: KeyPolicy = { requireKey: true, apiKeys: [{ key: "k-office", allowedIps: ["10.1.2.3"] }] };
    const gate = new KeyGate();
    expect(gate.check(policy, "k-office", "::ffff:127.0.0.1", 0)).toMatchObject({
      status: 403,
      body: { error: expect.stringMatching(/auth will change nothing.*127\.0\.0\.1/) },
    });
    expect(gate.check(policy, "k-office", "::ffff:10.1.2.3", 0)).toBeUndefined();
  });

  it("counts a key's requests in a window and answers 429 with Retry-After until it ends", () => {
    const policy: KeyPolicy = { requireKey: false, apiKeys: [{ key: "k", quota: { requests: 2, perSeconds: 10 } }] };
    const gate = new KeyGate();
    expect(gate.check(policy, "k", "a", 1_000)).toBeUndefined();
    expect(gate.check(policy, "k", "a", 2_000)).toBeUndefined();
    const third = gate.check(policy, "k", "a", 3_500);
    expect(third).toMatchObject({ status: 429, headers: { "retry-after": "8" } });
    expect(gate.check(policy, "k", "a", 10_999)?.headers).toEqual({ "retry-after": "1" });
    expect(gate.check(policy, "k", "a", 11_000)).toBeUndefined();
  });

  it("gives keys not listed, and callers without one (per address), the default quota", () => {
    const policy: KeyPolicy = { requireKey: false, apiKeys: [], quota: { requests: 1, perSeconds: 60 } };
    const gate = new KeyGate();
    expect(gate.check(policy, "x", "a", 0)).toBeUndefined();
    expect(gate.check(policy, "x", "a", 1)?.status).toBe(429);
    expect(gate.check(policy, "y", "a", 1)).toBeUndefined();
    expect(gate.check(policy, undefined, "10.0.0.1", 1)).toBeUndefined();
    expect(gate.check(policy, undefined, "10.0.0.1", 2)?.status).toBe(429);
    expect(gate.check(policy, undefined, "10.0.0.2", 2)).toBeUndefined();
  });
});

describe("the spec's paging", () => {
  it.each([
    [null, null, 0, 10],
    ["1", "10", 0, 10],
    ["11", "20", 10, 10],
    ["3", "5", 2, 3],
    ["1", "50", 0, 10],
    ["0", null, 0, 10],
    ["-4", "2", 0, 2],
    ["5", "2", 4, 10],
    ["x", "y", 0, 10],
  ])("from=%s to=%s is offset %i, at most %i", (from, to, offset, limit) => {
    expect(pageWindow(from, to)).toEqual({ offset, limit });
  });
});
