import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../../src/platform/http/api-error";
import { silentLogger } from "../../../src/platform/http/logger";
import { followPages, type Pager } from "../../../src/platform/http/paging";
import { HttpTransport } from "../../../src/platform/http/transport";
import { FAST_RETRY } from "../../helpers/emulator";
import { json, startScriptedServer, type ScriptedServer } from "./scripted-server";

let srv: ScriptedServer;
let elsewhere: ScriptedServer;
beforeAll(async () => {
  srv = await startScriptedServer();
  elsewhere = await startScriptedServer();
});
afterAll(async () => {
  await srv.close();
  await elsewhere.close();
});

/** A paging convention that is not ARM's: `{ results: [...], links: { next } }`, as the caller's pager reads it. */
const pager: Pager<number> = (body) => {
  const b = body as { results?: unknown; links?: { next?: string } };
  if (!Array.isArray(b?.results)) return { notAPage: 'has no "results" array' };
  return { items: b.results as number[], nextLink: b.links?.next };
};

const http = () => new HttpTransport({ baseUrl: srv.url, retry: FAST_RETRY, logger: silentLogger, query: { v: "1" } });

async function collect<T>(pages: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe("followPages with the caller's pager", () => {
  it("follows the links the pager reads, one request a page, in order; the first call's query is not carried over", async () => {
    srv.script((q, res) => {
      const page = Number(new URL(q.url, srv.url).searchParams.get("page") ?? "0");
      json(res, 200, { results: [page * 2, page * 2 + 1], links: page < 2 ? { next: `${srv.url}/items?page=${page + 1}` } : {} });
    });
    const pages = await collect(
      followPages(http(), { operation: "Items_List", method: "GET", path: "/items", query: { filter: "x" } }, pager),
    );
    expect(pages).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
    expect(srv.seen.map((r) => r.url)).toEqual(["/items?v=1&filter=x", "/items?page=1&v=1", "/items?page=2&v=1"]);
  });

  it("stops asking when the caller stops reading", async () => {
    srv.script((_q, res, n) => json(res, 200, { results: [n], links: { next: `/items?page=${n + 1}` } }));
    for await (const page of followPages(http(), { operation: "Items_List", method: "GET", path: "/items" }, pager)) {
      if (page[0] === 1) break;
    }
    expect(srv.seen).toHaveLength(2);
  });

  it("a body the pager says is no page is an InvalidResponse naming the page", async () => {
    srv.script((_q, res, n) => json(res, 200, n === 0 ? { results: [1], links: { next: "/items?page=1" } } : { value: [] }));
    const e = await collect(followPages(http(), { operation: "Items_List", method: "GET", path: "/items" }, pager)).then(
      () => undefined,
      (x: unknown) => x as ApiError,
    );
    expect(e).toBeInstanceOf(ApiError);
    expect([e!.code, e!.status, e!.detail]).toEqual(["InvalidResponse", 200, 'page 2 has no "results" array']);
    // Shown redacted: this service declared no query name safe.
    expect(e!.url).toBe(`${srv.url}/items?page=REDACTED&v=REDACTED`);
  });

  it("refuses a link to another origin and sends nothing there", async () => {
    srv.script((_q, res) => json(res, 200, { results: [1], links: { next: `${elsewhere.url}/items?page=1` } }));
    const e = await collect(followPages(http(), { operation: "Items_List", method: "GET", path: "/items" }, pager)).then(
      () => undefined,
      (x: unknown) => x as ApiError,
    );
    expect(e?.code).toBe("InvalidLink");
    expect(elsewhere.seen).toHaveLength(0);
  });
});
