import { describe, expect, it } from "vitest";
import { inventoryOf, type WatchedDatabase } from "../../../src/interfaces/watch/status/database-inventory";
import {
  DEFAULT_PAGE_SIZE,
  DatabaseQueryError,
  databasePage,
  MAX_PAGE_SIZE,
  parseDatabaseQuery,
  queryString,
} from "../../../src/interfaces/watch/status/database-query";
import { countLine } from "../../../src/interfaces/watch/page/databases-html";

// The stack page's and the API's filter and pager over a stack's databases: what a query reads, what
// it refuses (naming the parameter), and the pages it gives at the edges.

/** `n` databases on `servers` servers: every 7th drifted, every 5th non-compliant. */
function rows(n: number, servers = 3): WatchedDatabase[] {
  return Array.from({ length: n }, (_, i) => {
    const server = `sql-${i % servers}`;
    const drifted = i % 7 === 0;
    const failing = i % 5 === 0;
    return {
      id: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Sql/servers/${server}/databases/db-${i}`,
      label: `rg/${server}/db-${i}`,
      server,
      discovered: i % 2 === 1,
      desired: "Enabled",
      live: drifted ? "Disabled" : "Enabled",
      sync: drifted ? "drifted" : "in-sync",
      compliance: failing ? "non-compliant" : "compliant",
      mandatory: failing ? 1 : 0,
      advisory: 0,
    };
  });
}

const q = (text: string) => parseDatabaseQuery(new URLSearchParams(text));

describe("parseDatabaseQuery", () => {
  it("reads every filter; empty values (a form's 'any') and absent ones are no filter", () => {
    expect(q("")).toEqual({ sync: null, compliance: null, server: null, q: null, page: 1, size: DEFAULT_PAGE_SIZE });
    expect(q("sync=&compliance=&server=&q=")).toEqual(q(""));
    expect(q("sync=drifted&compliance=non-compliant&server=sql-1&q=%20db-1%20&page=2&size=20")).toEqual({
      sync: "drifted",
      compliance: "non-compliant",
      server: "sql-1",
      q: "db-1",
      page: 2,
      size: 20,
    });
  });

  it.each([
    ["sync=drifting", "sync", 'parameter sync is "drifting": expected one of in-sync, drifted, unknown'],
    ["compliance=bad", "compliance", 'parameter compliance is "bad": expected one of compliant, non-compliant, unknown'],
    ["page=0", "page", 'parameter page is "0": expected a whole number from 1 to 1000000000'],
    ["page=-1", "page", 'parameter page is "-1": expected a whole number from 1 to 1000000000'],
    ["page=2.5", "page", 'parameter page is "2.5": expected a whole number from 1 to 1000000000'],
    [`size=${MAX_PAGE_SIZE + 1}`, "size", `parameter size is "${MAX_PAGE_SIZE + 1}": expected a whole number from 1 to ${MAX_PAGE_SIZE}`],
    ["pgae=2", "pgae", 'unknown parameter "pgae": expected sync, compliance, server, q, page, size'],
    ["sync=drifted&sync=in-sync", "sync", "parameter sync is given 2 times: give it once"],
    [`q=${"x".repeat(201)}`, "q", "parameter q is 201 characters long: at most 200"],
  ])("refuses %s in one line naming the parameter", (text, parameter, message) => {
    let thrown: unknown;
    try {
      q(text);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(DatabaseQueryError);
    expect((thrown as DatabaseQueryError).parameter).toBe(parameter);
    expect((thrown as Error).message).toBe(message);
    expect((thrown as Error).message).not.toContain("\n");
  });

  it("lets parameters handled elsewhere (the sign-in token) through", () => {
    expect(parseDatabaseQuery(new URLSearchParams("token=abc&page=3"), ["token"]).page).toBe(3);
  });
});

describe("databasePage", () => {
  const inv = inventoryOf(rows(10_000), "2026-11-29T10:00:00.000Z");

  it("pages the whole stack: page 2 holds rows 51–100 of 10,000", () => {
    const p = databasePage(inv, q("page=2"));
    expect(p).toMatchObject({ total: 10_000, unfiltered: 10_000, pages: 200 });
    expect(p.items.map((r) => r.label)).toEqual(inv.rows.slice(50, 100).map((r) => r.label));
    expect(countLine(p)).toBe("showing 51–100 of 10,000");
    // The page's rows are the inventory's own, not copies.
    expect(p.items[0]).toBe(inv.rows[50]);
  });

  it("filters by sync, compliance, server and text together, counting what it keeps", () => {
    const p = databasePage(inv, q("sync=drifted&compliance=non-compliant&server=SQL-1&q=DB-10"));
    const expected = inv.rows.filter(
      (r) => r.sync === "drifted" && r.compliance === "non-compliant" && r.server === "sql-1" && r.label.includes("db-10"),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(p.total).toBe(expected.length);
    expect(p.items).toEqual(expected.slice(0, DEFAULT_PAGE_SIZE));
    expect(countLine(p)).toBe(`showing 1–${Math.min(expected.length, DEFAULT_PAGE_SIZE)} of ${expected.length} (filtered from 10,000)`);
  });

  it("the last page holds the remainder; a page past the end holds nothing and says so", () => {
    const drifted = inv.rows.filter((r) => r.sync === "drifted").length; // 1,429
    const last = databasePage(inv, q("sync=drifted&page=29"));
    expect(last).toMatchObject({ total: drifted, pages: 29 });
    expect(last.items).toHaveLength(drifted - 28 * DEFAULT_PAGE_SIZE);
    expect(countLine(last)).toBe(`showing 1,401–1,429 of 1,429 (filtered from 10,000)`);
    const past = databasePage(inv, q("sync=drifted&page=30"));
    expect(past).toMatchObject({ total: drifted, pages: 29, items: [] });
    expect(countLine(past)).toBe("1,429 database(s) (filtered from 10,000); page 30 is past the last (29)");
  });

  it("an empty result is one page of nothing; a stack not read yet has no rows", () => {
    const none = databasePage(inv, q("server=sql-9"));
    expect(none).toMatchObject({ total: 0, pages: 1, items: [] });
    expect(countLine(none)).toBe("no database matches the filter (filtered from 10,000)");
    expect(countLine(databasePage(undefined, q("")))).toBe("no database read yet");
  });

  it("links keep the filter and leave defaults out", () => {
    expect(queryString(q("sync=drifted&server=sql-1&page=3"), 4)).toBe("sync=drifted&server=sql-1&page=4");
    expect(queryString(q("q=a b&size=20"), 1)).toBe("q=a+b&size=20");
  });
});
