import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackPagePath } from "../../../src/interfaces/watch/page/status-page";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { startWatchServer } from "../../../src/interfaces/watch/watch-server";
import { greenIn, launchChromium } from "../../helpers/browser";
import { feed } from "./status-fixtures";

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

async function open(path: string, width: number): Promise<Page> {
  const page = await browser.newPage();
  await page.setViewport({ width, height: 900, deviceScaleFactor: 1 });
  const res = await page.goto(`${server.url}${path}`, { waitUntil: "load" });
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
