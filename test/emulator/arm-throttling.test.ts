import { afterEach, describe, expect, it } from "vitest";
import { ARM_SCOPE } from "../../src/platform/auth/scopes";
import { ImdsManagedIdentityCredential } from "../../src/services/imds/imds-credential";
import type { LocalService } from "../../src/emulator/kit/local-service";
import { imdsLocal } from "../../src/emulator/services/imds/imds-local";
import type { SeedDocument } from "../../src/emulator/seed";
import { startEmulatorProcess } from "../helpers/cli-process";
import { startTestEmulator, type TestEmulator } from "../helpers/emulator";

/** A tiny ARM service: a subscription-level resource (GET, PUT, DELETE) and a tenant-level list. */
const widgets: LocalService<Record<string, never>> = {
  name: "widgets",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    const path = "/subscriptions/:sub/providers/Test.Widgets/widgets/:name";
    ctx.arm("GET", path, ["2021-01-01"], (req) => ({ status: 200, body: { id: req.path, name: req.params.name } }));
    ctx.arm("PUT", path, ["2021-01-01"], (req) => ({ status: 200, body: { id: req.path, name: req.params.name } }));
    ctx.arm("DELETE", path, ["2021-01-01"], () => ({ status: 200 }));
    ctx.arm("GET", "/providers/Test.Widgets/operations", ["2021-01-01"], () => ({ status: 200, body: { value: [] } }));
  },
};

const SUB = "00000000-0000-0000-0000-00000000000a";
const W1 = `/subscriptions/${SUB}/providers/Test.Widgets/widgets/w1?api-version=2021-01-01`;
/** A second principal: a user-assigned identity of the emulator's IMDS. */
const OTHER = { clientId: "11111111-2222-3333-4444-555555555555", objectId: "99999999-8888-7777-6666-555555555555" };

let t: TestEmulator | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** An emulator whose throttling is on with tiny buckets that (in real time) barely refill: only the emulator clock refills them. */
async function throttled(throttling: NonNullable<SeedDocument["emulator"]>["throttling"]): Promise<TestEmulator> {
  t = await startTestEmulator({
    services: [imdsLocal as LocalService, widgets as LocalService],
    seed: { emulator: { throttling }, imds: { userIdentities: [OTHER] } },
  });
  return t;
}

async function get(path: string, token: string, method = "GET") {
  const res = await fetch(`${t!.url}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  const text = await res.text();
  const headers = Object.fromEntries([...res.headers].filter(([k]) => k.startsWith("x-ms-ratelimit") || k === "retry-after"));
  return { status: res.status, headers, body: text ? (JSON.parse(text) as { error?: { code: string; message: string } }) : undefined };
}

describe("Resource Manager throttling in the emulator", () => {
  it("is off by default: no remaining-budget headers, no 429", async () => {
    t = await startTestEmulator({ services: [imdsLocal as LocalService, widgets as LocalService] });
    const token = (await t.credential.getToken(ARM_SCOPE)).token;
    for (let i = 0; i < 260; i++) {
      const r = await get(W1, token);
      expect(r.status).toBe(200);
      expect(r.headers).toEqual({});
    }
  });

  it("reads: a bucket per subscription and principal, the remaining count on every answer, 429 with Retry-After once empty, refilled over time", async () => {
    await throttled({ reads: { bucket: 3, refillPerSecond: 0.01 } });
    const token = (await t!.credential.getToken(ARM_SCOPE)).token;
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const r = await get(W1, token);
      expect(r.status).toBe(200);
      seen.push(r.headers);
    }
    expect(seen.map((h) => h["x-ms-ratelimit-remaining-subscription-reads"])).toEqual(["2", "1", "0"]);
    // The global bucket is 15 times the principal's: 45.
    expect(seen.map((h) => h["x-ms-ratelimit-remaining-subscription-global-reads"])).toEqual(["44", "43", "42"]);

    const refused = await get(W1, token);
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("100"); // one token at 0.01 per second
    expect(refused.headers["x-ms-ratelimit-remaining-subscription-reads"]).toBe("0");
    expect(refused.body?.error?.code).toBe("SubscriptionRequestsThrottled");
    expect(refused.body?.error?.message).toMatch(
      new RegExp(`Number of 'read' requests for subscription '${SUB}' actor '[^']+' exceeded. Please try again after '100' seconds`),
    );
    // A refused request is not processed and costs nothing: still empty, still refused.
    expect((await get(W1, token)).status).toBe(429);
    expect(t!.emu.throttle.throttled).toBe(2);

    t!.emu.advanceClock(100_000);
    const again = await get(W1, token);
    expect(again.status).toBe(200);
    expect(again.headers["x-ms-ratelimit-remaining-subscription-reads"]).toBe("0");
    // A subscription of its own has a bucket of its own.
    expect((await get(W1.replace(SUB, "00000000-0000-0000-0000-00000000000b"), token)).status).toBe(200);
  });

  it("writes and deletes have buckets of their own, with their own headers", async () => {
    await throttled({
      reads: { bucket: 1, refillPerSecond: 0.01 },
      writes: { bucket: 2, refillPerSecond: 0.01 },
      deletes: { bucket: 1, refillPerSecond: 0.01 },
    });
    const token = (await t!.credential.getToken(ARM_SCOPE)).token;
    expect((await get(W1, token)).status).toBe(200);
    expect((await get(W1, token)).status).toBe(429);
    const put = await get(W1, token, "PUT");
    expect(put.status).toBe(200);
    expect(put.headers).toEqual({
      "x-ms-ratelimit-remaining-subscription-writes": "1",
      "x-ms-ratelimit-remaining-subscription-global-writes": "29",
    });
    expect((await get(W1, token, "PUT")).status).toBe(200);
    expect((await get(W1, token, "PUT")).status).toBe(429);
    const del = await get(W1, token, "DELETE");
    expect(del.headers["x-ms-ratelimit-remaining-subscription-deletes"]).toBe("0");
    expect((await get(W1, token, "DELETE")).status).toBe(429);
  });

  it("each principal has its own bucket; the global bucket is shared by all of them", async () => {
    await throttled({ reads: { bucket: 2, refillPerSecond: 0.01 }, globalFactor: 1.5 });
    const mine = (await t!.credential.getToken(ARM_SCOPE)).token;
    const other = (await new ImdsManagedIdentityCredential({ endpoint: t!.imdsEndpoint, clientId: OTHER.clientId }).getToken(ARM_SCOPE))
      .token;
    expect((await get(W1, mine)).status).toBe(200);
    expect((await get(W1, mine)).status).toBe(200);
    expect((await get(W1, mine)).body?.error?.message).toMatch(/actor '[^']+' exceeded/);
    // The other principal's bucket is full; the global one (2 x 1.5 = 3) has 1 left.
    const first = await get(W1, other);
    expect(first.headers).toEqual({
      "x-ms-ratelimit-remaining-subscription-reads": "1",
      "x-ms-ratelimit-remaining-subscription-global-reads": "0",
    });
    // Its own bucket still has a token, but the global one is empty.
    const refused = await get(W1, other);
    expect(refused.status).toBe(429);
    expect(refused.headers["x-ms-ratelimit-remaining-subscription-reads"]).toBe("1");
    expect(refused.body?.error?.message).toMatch(/exceeded the global limit across all actors/);
  });

  it("tenant-level requests (no subscription in the path) report the tenant's remaining reads", async () => {
    await throttled({ reads: { bucket: 2, refillPerSecond: 0.01 } });
    const token = (await t!.credential.getToken(ARM_SCOPE)).token;
    const ops = "/providers/Test.Widgets/operations?api-version=2021-01-01";
    expect((await get(ops, token)).headers).toEqual({ "x-ms-ratelimit-remaining-tenant-reads": "1" });
    expect((await get(ops, token)).status).toBe(200);
    const refused = await get(ops, token);
    expect(refused.status).toBe(429);
    expect(refused.body?.error?.code).toBe("TenantRequestsThrottled");
  });

  it("unauthenticated requests and IMDS are not counted", async () => {
    await throttled({ reads: { bucket: 1, refillPerSecond: 0.01 } });
    for (let i = 0; i < 3; i++) expect((await get(W1, "not-a-token")).status).toBe(401);
    for (let i = 0; i < 3; i++) await t!.credential.getToken(ARM_SCOPE); // cached after the first, but the first went to IMDS
    const token = (await t!.credential.getToken(ARM_SCOPE)).token;
    expect((await get(W1, token)).status).toBe(200);
  });

  it("the admin API turns it on and off at run time and counts the throttled requests", async () => {
    t = await startTestEmulator({ services: [imdsLocal as LocalService, widgets as LocalService] });
    const token = (await t.credential.getToken(ARM_SCOPE)).token;
    const put = (body: unknown) =>
      fetch(`${t!.url}/_emulator/settings`, { method: "PUT", body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    expect((await put({ throttling: { reads: { bucket: 0, refillPerSecond: 1 } } })).status).toBe(400);
    expect((await put({ throttling: { reads: { bucket: 1, refillPerSecond: 0.01 } } })).status).toBe(200);
    expect((await get(W1, token)).status).toBe(200);
    expect((await get(W1, token)).status).toBe(429);
    const stats = (await (await fetch(`${t.url}/_emulator/stats`)).json()) as { throttled: number };
    expect(stats.throttled).toBe(1);
    expect((await put({ throttling: false })).status).toBe(200);
    expect((await get(W1, token)).headers).toEqual({});
  });

  it("the emulator command's --throttle serves the documented limits (reads 250)", async () => {
    const { child, url } = await startEmulatorProcess(["--port", "0", "--throttle"], { env: process.env });
    try {
      const token = (await new ImdsManagedIdentityCredential({ endpoint: `${url}/metadata` }).getToken(ARM_SCOPE)).token;
      const res = await fetch(
        `${url}/subscriptions/${SUB}/resourceGroups/rg/providers/Microsoft.Sql/servers/s/databases/d/transparentDataEncryption/current?api-version=2014-04-01`,
        {
          headers: { authorization: `Bearer ${token}` },
        },
      );
      expect(res.headers.get("x-ms-ratelimit-remaining-subscription-reads")).toBe("249");
      expect(res.headers.get("x-ms-ratelimit-remaining-subscription-global-reads")).toBe("3749");
    } finally {
      child.kill("SIGTERM");
    }
  });
});
