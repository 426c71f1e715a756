import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FaultInjector, type FaultConfig, type FaultDecision } from "../../src/emulator/fault-injector";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";

const CONFIG: FaultConfig = {
  seed: 42,
  latencyMs: 0,
  maxConsecutive: 0,
  rules: [
    { match: "/metadata/identity", status: 429, rate: 0.3, retryAfterMs: 20 },
    { status: 503, rate: 0.2 },
    { drop: true, rate: 0.05 },
  ],
};

/** A fixed request sequence over a few paths and methods, interleaved. */
const SEQUENCE: [string, string][] = Array.from({ length: 600 }, (_, i) => [
  i % 5 === 0 ? "PUT" : "GET",
  ["/metadata/identity/oauth2/token", "/metadata/instance", "/subscriptions/s/resourceGroups/RG/x", "/geocoding/geocode"][i % 4],
]);

const run = (config: FaultConfig, seq = SEQUENCE): FaultDecision[] => {
  const f = new FaultInjector(config);
  return seq.map(([m, p]) => f.decide(m, p));
};
const kinds = (ds: FaultDecision[]) => ds.map((d) => (d.kind === "status" ? String(d.status) : d.kind));

describe("FaultInjector", () => {
  it("gives the same decisions for the same seed and sequence", () => {
    const a = run(CONFIG);
    expect(run(CONFIG)).toEqual(a);
    // and they are real faults at roughly the configured rates, not all-or-nothing
    const k = kinds(a);
    expect(k.filter((x) => x !== "none").length).toBeGreaterThan(60);
    expect(k.filter((x) => x === "none").length).toBeGreaterThan(250);
    expect(new Set(k)).toEqual(new Set(["none", "429", "503", "drop"]));
  });

  it("another seed gives other decisions", () => {
    expect(kinds(run({ ...CONFIG, seed: 43 }))).not.toEqual(kinds(run(CONFIG)));
  });

  it("one path's decisions do not depend on traffic to other paths", () => {
    const only = SEQUENCE.filter(([, p]) => p === "/metadata/instance");
    const alone = run(CONFIG, only);
    const mixed = run(CONFIG).filter((_, i) => SEQUENCE[i][1] === "/metadata/instance");
    expect(mixed).toEqual(alone);
  });

  it("paths are matched case-insensitively, so ARM's casing does not change decisions", () => {
    const lower = run(
      CONFIG,
      SEQUENCE.map(([m, p]) => [m, p.toLowerCase()]),
    );
    expect(lower).toEqual(run(CONFIG));
  });

  it("configure() starts the sequence over", () => {
    const f = new FaultInjector(CONFIG);
    const first = SEQUENCE.map(([m, p]) => f.decide(m, p));
    f.configure(CONFIG);
    expect(SEQUENCE.map(([m, p]) => f.decide(m, p))).toEqual(first);
  });

  it("maxConsecutive bounds faults in a row on one path", () => {
    for (const limit of [1, 2, 3]) {
      const f = new FaultInjector({ seed: 7, latencyMs: 0, maxConsecutive: limit, rules: [{ status: 503, rate: 0.9 }] });
      let streak = 0;
      let longest = 0;
      let faults = 0;
      for (let i = 0; i < 500; i++) {
        const d = f.decide("GET", "/busy");
        if (d.kind === "none") streak = 0;
        else {
          streak += 1;
          faults += 1;
        }
        longest = Math.max(longest, streak);
      }
      expect(longest).toBe(limit);
      expect(faults).toBeGreaterThan(200);
    }
  });

  it("with rate 1, every (limit+1)-th request gets through", () => {
    const f = new FaultInjector({ seed: 1, latencyMs: 0, maxConsecutive: 3, rules: [{ status: 500, rate: 1 }] });
    const k = kinds(Array.from({ length: 12 }, () => f.decide("GET", "/x")));
    expect(k).toEqual(["500", "500", "500", "none", "500", "500", "500", "none", "500", "500", "500", "none"]);
  });

  it("a count rule faults exactly the first N matching requests", () => {
    const f = new FaultInjector({
      seed: 1,
      latencyMs: 0,
      maxConsecutive: 3,
      rules: [{ match: "/METADATA/identity", status: 410, count: 2 }],
    });
    const k = kinds([
      f.decide("GET", "/metadata/instance"),
      f.decide("GET", "/metadata/identity/oauth2/token"),
      f.decide("GET", "/metadata/identity/info"),
      f.decide("GET", "/metadata/identity/oauth2/token"),
    ]);
    expect(k).toEqual(["none", "410", "410", "none"]);
    expect(f.injectedCount).toBe(2);
  });

  it("a rule can be limited to methods", () => {
    const f = new FaultInjector({ seed: 1, latencyMs: 0, maxConsecutive: 0, rules: [{ methods: ["PUT"], status: 409, rate: 1 }] });
    expect(kinds([f.decide("GET", "/a"), f.decide("PUT", "/a"), f.decide("POST", "/a")])).toEqual(["none", "409", "none"]);
  });
});

describe("fault injection in the running emulator", () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await startTestEmulator();
  });
  afterAll(async () => {
    await t.close();
  });

  async function putFaults(body: unknown) {
    const res = await fetch(`${t.url}/_emulator/faults`, { method: "PUT", body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    return res.json();
  }
  async function statuses(n: number): Promise<(number | "dropped")[]> {
    const out: (number | "dropped")[] = [];
    for (let i = 0; i < n; i++) {
      try {
        const res = await fetch(`${t.url}/metadata/instance?api-version=2020-10-01`, {
          headers: { Metadata: "true", connection: "close" },
        });
        await res.arrayBuffer();
        out.push(res.status);
      } catch {
        out.push("dropped");
      }
    }
    return out;
  }

  it("replays the same faults for the same seed, and they include every kind", async () => {
    const config = {
      seed: 99,
      maxConsecutive: 2,
      rules: [
        { status: 429, rate: 0.25, retryAfterMs: 10 },
        { status: 503, rate: 0.2 },
        { drop: true, rate: 0.1 },
      ],
    };
    expect(await putFaults(config)).toEqual({ ...config, latencyMs: 0 });
    const first = await statuses(60);
    await putFaults(config);
    const second = await statuses(60);
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set([200, 429, 503, "dropped"]));
    let streak = 0;
    for (const s of first) {
      streak = s === 200 ? 0 : streak + 1;
      expect(streak).toBeLessThanOrEqual(2);
    }
    await putFaults({ rules: [] });
  });

  it("admin requests are never faulted and GET faults shows the active configuration", async () => {
    await putFaults({ seed: 5, rules: [{ status: 503, rate: 1 }], maxConsecutive: 0 });
    const res = await fetch(`${t.url}/_emulator/faults`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ seed: 5, latencyMs: 0, maxConsecutive: 0, rules: [{ status: 503, rate: 1 }] });
    await putFaults({ rules: [] });
  });
});
