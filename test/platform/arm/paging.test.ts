import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARM_SCOPE } from "../../../src/platform/auth/scopes";
import { armPage } from "../../../src/emulator/kit/arm-conventions";
import type { LocalService } from "../../../src/emulator/kit/local-service";
import { ApiError } from "../../../src/platform/http/api-error";
import { silentLogger } from "../../../src/platform/http/logger";
import { ArmTransport } from "../../../src/platform/arm/arm-transport";
import { imdsLocal } from "../../../src/emulator/services/imds/imds-local";
import { FAST_RETRY, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { startScriptedServer, type ScriptedServer } from "../http/scripted-server";

interface Thing {
  id: string;
  name: string;
}
const THINGS: Thing[] = Array.from({ length: 250 }, (_, i) => ({
  id: `/subscriptions/s1/providers/Test.Paging/things/t${i}`,
  name: `t${i}`,
}));

let elsewhere: ScriptedServer;

/** A tiny ARM service: one paged list, and lists whose links misbehave. */
const pagingService: LocalService = {
  name: "pagingtest",
  seedSchema: { type: "object" },
  initialState: () => ({}),
  mount(ctx) {
    ctx.arm("GET", "/subscriptions/:sub/providers/Test.Paging/things", ["2021-01-01"], (req) =>
      armPage(req, THINGS, ctx.settings.pageSize),
    );
    ctx.arm("GET", "/subscriptions/:sub/providers/Test.Paging/escape", ["2021-01-01"], () => ({
      status: 200,
      body: {
        value: [THINGS[0]],
        nextLink: `${elsewhere.url}/subscriptions/s1/providers/Test.Paging/things?api-version=2021-01-01&sig=leaky-signature`,
      },
    }));
    ctx.arm("GET", "/subscriptions/:sub/providers/Test.Paging/broken", ["2021-01-01"], () => ({ status: 200, body: { items: [] } }));
    ctx.arm("GET", "/subscriptions/:sub/providers/Test.Paging/empty", ["2021-01-01"], () => ({
      status: 200,
      body: { value: null, nextLink: null },
    }));
  },
};

let t: TestEmulator;
let arm: ArmTransport;
beforeAll(async () => {
  elsewhere = await startScriptedServer();
  t = await startTestEmulator({ services: [imdsLocal, pagingService], settings: { pageSize: 7 } });
  arm = new ArmTransport({
    baseUrl: t.url,
    auth: { kind: "bearer", credential: t.credential, scopes: [ARM_SCOPE] },
    query: { "api-version": "2021-01-01" },
    retry: FAST_RETRY,
    logger: silentLogger,
  });
});
afterAll(async () => {
  await t.close();
  await elsewhere.close();
});

describe("ARM paging through the ARM transport", () => {
  it("follows nextLink across every page, in order", async () => {
    const before = t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] ?? 0;
    const items = await arm.list<Thing>({
      operation: "Things_List",
      method: "GET",
      path: "/subscriptions/s1/providers/Test.Paging/things",
    });
    expect(items).toEqual(THINGS);
    const pages = Math.ceil(THINGS.length / 7);
    expect(t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] - before).toBe(pages);
  });

  it("yields items lazily and stops fetching when the caller stops", async () => {
    const before = t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] ?? 0;
    const seen: string[] = [];
    for await (const item of arm.paginate<Thing>({
      operation: "Things_List",
      method: "GET",
      path: "/subscriptions/s1/providers/Test.Paging/things",
    })) {
      seen.push(item.name);
      if (seen.length === 10) break;
    }
    expect(seen).toEqual(THINGS.slice(0, 10).map((x) => x.name));
    expect(t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] - before).toBe(2);
  });

  it("one page when the page size covers the list", async () => {
    const before = t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] ?? 0;
    t.emu.settings.pageSize = 1000;
    try {
      expect(
        await arm.list<Thing>({ operation: "Things_List", method: "GET", path: "/subscriptions/s1/providers/Test.Paging/things" }),
      ).toHaveLength(250);
    } finally {
      t.emu.settings.pageSize = 7;
    }
    expect(t.emu.stats.byRoute["GET /subscriptions/{sub}/providers/Test.Paging/things"] - before).toBe(1);
  });

  it("refuses a nextLink to another origin and sends nothing there", async () => {
    let err: unknown;
    const got: Thing[] = [];
    try {
      for await (const item of arm.paginate<Thing>({
        operation: "Things_List",
        method: "GET",
        path: "/subscriptions/s1/providers/Test.Paging/escape",
      }))
        got.push(item);
    } catch (e) {
      err = e;
    }
    expect(got).toEqual([THINGS[0]]);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.code).toBe("InvalidLink");
    expect(e.message).toContain(`refusing to follow a link to ${new URL(elsewhere.url).origin}`);
    expect(e.url.startsWith(elsewhere.url)).toBe(true);
    expect(e.url).not.toContain("leaky-signature");
    expect(elsewhere.seen).toHaveLength(0);
  });

  it("a page without a value array is an InvalidResponse", async () => {
    await expect(
      arm.list({ operation: "Things_List", method: "GET", path: "/subscriptions/s1/providers/Test.Paging/broken" }),
    ).rejects.toMatchObject({ name: "ApiError", code: "InvalidResponse", operation: "Things_List" });
  });

  it("a null value and a null nextLink read as an empty list", async () => {
    expect(await arm.list({ operation: "Things_List", method: "GET", path: "/subscriptions/s1/providers/Test.Paging/empty" })).toEqual([]);
  });
});
