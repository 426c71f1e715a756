import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackPagePath } from "../../../src/interfaces/watch/page/status-page";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { startWatchServer } from "../../../src/interfaces/watch/watch-server";
import { greenIn, launchChromium } from "../../helpers/browser";
import { feed, SUB } from "./status-fixtures";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { parseStackConfig } from "../../../src/domain/stack/stack-config";
import { inventoryOf } from "../../../src/interfaces/watch/status/database-inventory";
import { databasesRead, withCompliance } from "../../../src/usecases/watch-inventory";
import { tickUpdate, planOf, findingsFor } from "./status-fixtures";

// Issue 45, item 3: the page for a person, in headless Chromium at 1280 and 390 px. The banner gives
// the fleet's two answers; each drifted database is one line with what changed, who and when
// (relative, the absolute time in its tooltip and <time datetime>), the operation and correlation id
// behind a disclosure; no word is broken mid-word in any cell (checked on the rendered text); no
// green or blue "good" badge sits beside a drifted or non-compliant answer.

declare const document: any;

const TIMEOUT = 120_000;
const WIDTHS = [1280, 390];
const CHANGED_AT = new Date(Date.now() - 4 * 60_000).toISOString();
const ALICE = {
  caller: "alice@contoso.com",
  at: CHANGED_AT,
  operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
  source: "activity-log" as const,
  correlationId: "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
};

let browser: Browser;
let server: Awaited<ReturnType<typeof startWatchServer>>;

beforeAll(async () => {
  const board = new StatusBoard();
  feed(board, "prod", {
    tick: 3,
    databases: ["orders", "billing", "ledger", "transparentDataEncryptionArchive"],
    disabled: ["billing", "transparentDataEncryptionArchive"],
    causes: { billing: ALICE },
  });
  feed(board, "staging", { tick: 5, databases: ["orders"] });
  server = await startWatchServer({
    host: "127.0.0.1",
    port: 0,
    status: board,
    readiness: () => ({ ready: true, reason: "test" }),
    metrics: async () => ({ contentType: "text/plain", body: "" }),
  });
  browser = await launchChromium();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(path: string, width: number, at = server): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
  const res = await page.goto(`${at.url}${path}`, { waitUntil: "load" });
  expect(res?.status()).toBe(200);
  return page;
}

/**
 * Words broken mid-word in the rendered page: two letters or digits of one text node on two lines.
 * A break at a `<wbr>` (after `/`, `.`, `:`) or a space falls between text nodes or at a non-word
 * character, so it is never counted; nor is a hash's (hex digits are no word).
 */
async function midWordBreaks(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.querySelector("main"), 4 /* NodeFilter.SHOW_TEXT */);
    const range = document.createRange();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text: string = node.textContent ?? "";
      // A hash or a full commit (40 or 64 hex digits, as code) is no word: wider than a phone, it wraps anywhere.
      if (text.trim().length < 2 || /^[0-9a-f]{40,}$/.test(text.trim())) continue;
      const el = node.parentElement;
      if (
        !el ||
        el.closest("thead, .visually-hidden") ||
        (el.closest("details:not([open])") && !el.closest("summary")) ||
        el.getClientRects().length === 0
      )
        continue;
      let lastTop: number | undefined;
      for (let i = 0; i < text.length; i++) {
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getClientRects()[0];
        if (!r || r.width === 0) continue;
        const word = /[A-Za-z0-9]/.test(text[i]) && i > 0 && /[A-Za-z0-9]/.test(text[i - 1]);
        if (lastTop !== undefined && r.top > lastTop + 2 && word)
          found.push(`${el.tagName}.${el.className} ${text.slice(Math.max(0, i - 12), i)}|${text.slice(i, i + 12)}`);
        lastTop = r.top;
      }
    }
    return found;
  });
}

/** Databases of the "estate" stack, on ESTATE_SERVERS servers; every tenth drifted (live Disabled). */
const ESTATE = 10_000;
const ESTATE_SERVERS = 10;

/**
 * A stack of 10,000 databases (issue 45: the stack's page stays usable at the estate's scale), its
 * status and databases built as the watcher builds them: plan items, findings, the inventory.
 */
function estate(board: StatusBoard): void {
  const at = new Date();
  const text = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${Array.from(
    { length: ESTATE },
    (_, d) =>
      `    - { resourceGroup: rg-estate, server: sql-${d % ESTATE_SERVERS}, database: transparentDataEncryptionArchive${d}, transparentDataEncryption: Enabled }\n`,
  ).join("")}`;
  const stack = parseStackConfig("stacks/Pulumi.estate.yaml", text, {});
  const disabled = stack.databases.filter((_, d) => d % 10 === 0).map((d) => d.database);
  board.register("estate", { file: stack.file, schedule: "every 1h" });
  board.update("estate", tickUpdate({ stack, tick: 1, disabled, at }));
  const items = planOf(stack, disabled);
  const facts = { ...emptyFacts(SUB), databases: items.map((i) => ({ id: i.id, ...i.ref, liveTdeStatus: i.live })) };
  const read = databasesRead({ stack, facts, items, remaining: items.filter((i) => i.action !== "none") });
  board.keepDatabases("estate", inventoryOf(withCompliance(read, findingsFor(stack, items)), at.toISOString()));
}

/** The databases' count line and the names of the rows shown. */
async function shown(page: Page): Promise<{ count: string; names: string[] }> {
  return {
    count: await page.$eval("#db-count", (p) => (p.textContent ?? "").replace(/\s+/g, " ").trim()),
    names: await page.$$eval("section[aria-labelledby=h-databases] tbody th", (ths) => ths.map((t) => (t.textContent ?? "").trim())),
  };
}

describe("the status page for a person", () => {
  for (const width of WIDTHS)
    it(
      `at ${width} px: banner, one line per drifted database with who and when, no mid-word break, no good colour beside a bad answer`,
      async () => {
        const page = await open("/", width);
        const banner = await page.$eval(".summary", (p) => (p.textContent ?? "").replace(/\s+/g, " ").trim());
        expect(banner).toMatch(/^2 stacks: 1 drifted, 1 non-compliant/);

        const lines = await page.$$eval(`tr[data-stack="prod"] .drift-line`, (ls) =>
          ls.map((l) => (l.textContent ?? "").replace(/\s+/g, " ").trim()),
        );
        expect(lines).toEqual([
          "rg-data/sql-1/billing: TDE Disabled → want Enabled, by alice@contoso.com, 4 min ago",
          "rg-data/sql-1/transparentDataEncryptionArchive: TDE Disabled → want Enabled, found by the sweep",
        ]);
        const when = await page.$eval(`tr[data-stack="prod"] .drift-line time`, (t) => [
          t.getAttribute("datetime"),
          t.getAttribute("title"),
        ]);
        expect(when).toEqual([CHANGED_AT, `${CHANGED_AT.slice(0, 10)} ${CHANGED_AT.slice(11, 19)} UTC`]);
        // "Since" is the change's time, not the watcher's.
        expect(await page.$eval(`tr[data-stack="prod"] td.cell-sync .sub time`, (t) => t.getAttribute("datetime"))).toBe(CHANGED_AT);
        // The operation and correlation id are one click away, not in the line.
        const more = await page.$eval(`tr[data-stack="prod"] details.drift-more`, (d) => ({ open: d.open, text: d.textContent ?? "" }));
        expect(more.open).toBe(false);
        expect(more.text).toContain(ALICE.correlationId);
        expect(lines.join(" ")).not.toContain(ALICE.correlationId);

        expect(await midWordBreaks(page)).toEqual([]);
        const bad = `tr[data-sync="drifted"], tr[data-compliance="non-compliant"]`;
        expect(
          await page.$$eval(`${bad} .badge`, (bs) => bs.filter((b) => /tone-(good|info)/.test(b.className)).map((b) => b.textContent)),
        ).toEqual([]);
        expect(await greenIn(page, bad)).toEqual([]);
        await page.close();

        const stack = await open(stackPagePath("prod"), width);
        expect(await midWordBreaks(stack)).toEqual([]);
        expect(
          await stack.$$eval(`.answers .badge`, (bs) => bs.filter((b) => /tone-(good|info)/.test(b.className)).map((b) => b.textContent)),
        ).toEqual([]);
        await stack.close();
      },
      TIMEOUT,
    );
});

describe("a stack of 10,000 databases", () => {
  let estateServer: Awaited<ReturnType<typeof startWatchServer>>;
  beforeAll(async () => {
    const board = new StatusBoard();
    estate(board);
    estateServer = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: board,
      readiness: () => ({ ready: true, reason: "test" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
  }, TIMEOUT);
  afterAll(async () => {
    await estateServer?.close();
  });

  for (const width of WIDTHS)
    it(
      `at ${width} px: the first screen is bounded; filter by server, by text, then page 2, through the form and links; no mid-word break`,
      async () => {
        const page = await open(stackPagePath("estate"), width, estateServer);
        // Bounded: the page holds one page of databases and at most 10 drifted resources and findings per rule, not 10,000 rows.
        const bytes = await page.evaluate(() => document.documentElement.outerHTML.length as number);
        expect(bytes).toBeLessThan(120_000);
        expect(await page.$$eval("main tr", (rs) => rs.length)).toBeLessThan(100);
        const first = await shown(page);
        expect(first.count).toMatch(/^showing 1–50 of 10,000, read /);
        expect(first.names).toHaveLength(50);
        expect(await midWordBreaks(page)).toEqual([]);

        // By server: the form's choice, submitted as a plain GET.
        await page.select("#db-server", "sql-3");
        await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("form.db-filter button[type=submit]")]);
        expect(new URL(page.url()).searchParams.get("server")).toBe("sql-3");
        const byServer = await shown(page);
        expect(byServer.count).toMatch(/^showing 1–50 of 1,000 \(filtered from 10,000\)/);
        expect(byServer.names.every((n) => n.startsWith("rg-estate/sql-3/"))).toBe(true);

        // And by text, the server kept.
        await page.type("#db-q", "Archive13");
        await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("form.db-filter button[type=submit]")]);
        const byText = await shown(page);
        const expected = Array.from({ length: ESTATE }, (_, d) => d).filter(
          (d) => d % ESTATE_SERVERS === 3 && `transparentDataEncryptionArchive${d}`.toLowerCase().includes("archive13"),
        );
        expect(byText.count).toMatch(
          new RegExp(`^showing 1–${Math.min(50, expected.length)} of ${expected.length} \\(filtered from 10,000\\)`),
        );
        expect(byText.names).toEqual(expected.slice(0, 50).map((d) => `rg-estate/sql-3/transparentDataEncryptionArchive${d}`));

        // Page 2 of the server's databases, by the pager's link.
        await page.goto(`${estateServer.url}${stackPagePath("estate")}?server=sql-3`, { waitUntil: "load" });
        await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("nav.pager a[rel=next]")]);
        const second = await shown(page);
        expect(second.count).toMatch(/^showing 51–100 of 1,000 \(filtered from 10,000\)/);
        expect(second.names[0]).toBe(`rg-estate/sql-3/transparentDataEncryptionArchive${3 + 50 * ESTATE_SERVERS}`);
        expect(await page.$eval("nav.pager .pager-at", (s) => s.textContent)).toBe("page 2 of 20");
        expect(await midWordBreaks(page)).toEqual([]);
        await page.close();
      },
      TIMEOUT,
    );
});
