import { mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stackPagePath } from "../../../src/interfaces/watch/page/status-page";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { startWatchServer } from "../../../src/interfaces/watch/watch-server";
import { axeViolations, chromiumPath, greenIn, launchChromium, sidewaysScroll } from "../../helpers/browser";
import { feed } from "./status-fixtures";

// The status page in headless Chromium (Debian's package, through puppeteer-core): served from a
// StatusBoard fed real status objects for two stacks, it shows a row per stack that leads with its
// two answers (Sync, Compliance) before the watcher's condition, paints nothing green on a row that
// is drifted or non-compliant, shows the last apply from the audit trail, fits a laptop, a phone and
// 200% zoom without sideways scrolling, renders a hostile stack name and commit subject as text,
// keeps itself current without a reload as the board changes (a stack drifts, then is repaired),
// enforces its CSP, and has no serious or critical accessibility violation. Screenshots (at 1280 px)
// go to STACKWARDEN_SCREENSHOTS (the README's are made with STACKWARDEN_SCREENSHOTS=docs), else to a
// temporary directory.

// The functions given to page.evaluate run in the page; the tests compile without the DOM library
// (it would change Node's timer types everywhere), so its two globals are declared here, untyped.
declare const window: any;
declare const document: any;

/** Markup that would run script if it were not escaped: it sets `window.pwned`. */
const EVIL = `<script>window.pwned=1</script><img src=x onerror="window.pwned=2">`;
const EVIL_STACK = `legacy${EVIL}`;
const DATABASES = ["orders", "billing", "ledger"];
const TIMEOUT = 120_000;
/** A pipeline's CLI apply, the last entry on prod's trail: its deployment shows who applied it. */
const PIPELINE_APPLY = { command: "apply", who: { claims: "decoded" as const, host: "ci-runner-12", appid: "5f3c2a1e-pipeline" } };
/**
 * The widths the page must fit without sideways scrolling: a laptop (1280 CSS px), a phone (390),
 * and a 1280 px window at 200% zoom. Zoom is emulated as the browser does it: the viewport is half
 * as many CSS pixels (640), each drawn as two device pixels (deviceScaleFactor 2).
 */
const WIDTHS = [
  { name: "laptop", width: 1280, deviceScaleFactor: 1 },
  { name: "phone", width: 390, deviceScaleFactor: 3 },
  { name: "200% zoom", width: 640, deviceScaleFactor: 2 },
] as const;

const shots = process.env.STACKWARDEN_SCREENSHOTS
  ? resolve(process.env.STACKWARDEN_SCREENSHOTS)
  : mkdtempSync(join(tmpdir(), "stackwarden-screens-"));

let browser: Browser;
let server: Awaited<ReturnType<typeof startWatchServer>>;
let board: StatusBoard;

beforeAll(async () => {
  board = new StatusBoard();
  feed(board, "prod", {
    tick: 12,
    databases: DATABASES,
    auditCount: 6,
    auditThen: [PIPELINE_APPLY],
    commitSubject: "Enable TDE on the billing database",
  });
  feed(board, EVIL_STACK, {
    tick: 3,
    databases: ["archive"],
    disabled: ["archive"],
    lockHeld: true,
    probesFailing: true,
    failed: "the SQL API answered 503 three times",
    errorCode: "SW_SERVICE_ERROR",
    consecutiveFailures: 3,
    commitSubject: `Merge ${EVIL}`,
    // An apply killed mid-way: the next holder of the lock wrote its started entry (exit code null).
    auditThen: [
      {
        command: "apply --engine pulumi",
        exitCode: null,
        phase: "started",
        what: [
          {
            resource:
              "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-1/databases/archive",
            before: "Disabled",
            after: null,
            outcome: "started",
          },
        ],
      },
    ],
    extraFindings: [
      {
        ruleId: "sql-tier-advisor-drift",
        resourceId:
          "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg-data/providers/Microsoft.Sql/servers/sql-1/databases/archive",
        label: "rg-data/sql-1/archive",
        verdict: "fail",
        level: "advisory",
        message: `the advisor recommends S3 ${EVIL}`,
      },
    ],
  });
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

/** A page (at the laptop's width) that records CSP violations and console errors from its first script on. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport({ width: WIDTHS[0].width, height: 900, deviceScaleFactor: WIDTHS[0].deviceScaleFactor });
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`page error: ${(e as Error).message}`));
  await page.evaluateOnNewDocument(() => {
    const w = window as unknown as { cspViolations: string[] };
    w.cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e: any) => w.cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const res = await page.goto(`${server.url}${path}`, { waitUntil: "load" });
  expect(res?.status()).toBe(200);
  // The script announces the open stream: from here on, changes reach the page.
  await page.waitForFunction(() => document.getElementById("live")?.textContent === "Live", { timeout: 20_000 });
  return { page, problems };
}

async function rows(page: Page) {
  return page.$$eval("table.stacks tbody tr", (trs) =>
    trs.map((tr) => ({
      stack: tr.querySelector("th a")?.textContent,
      sync: tr.getAttribute("data-sync"),
      compliance: tr.getAttribute("data-compliance"),
      condition: tr.getAttribute("data-condition"),
      badges: [...tr.querySelectorAll(".badge")].map((b) => b.textContent),
    })),
  );
}

function expectPng(path: string): void {
  expect(readFileSync(path).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
}

describe("the status page in Chromium", () => {
  it(
    "shows one row per stack with its answers and condition, and hostile strings as text",
    async () => {
      const { page, problems } = await open("/");
      expect(await rows(page)).toEqual([
        {
          stack: EVIL_STACK,
          sync: "drifted",
          compliance: "non-compliant",
          condition: "Stalled",
          badges: ["Drifted (1)", "1 mandatory violation", "Stalled"],
        },
        { stack: "prod", sync: "in-sync", compliance: "compliant", condition: "Ready", badges: ["In sync", "Compliant", "Ready"] },
      ]);
      const evilRow = await page.$eval(`tbody tr:first-child`, (tr) => (tr.textContent ?? "").replace(/\s+/g, " "));
      expect(evilRow).toContain(`Merge ${EVIL}`);
      expect(evilRow).toContain("TickFailing SW_SERVICE_ERROR");
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      expect(await page.evaluate(() => [...document.scripts].map((s) => s.getAttribute("src")))).toEqual(["/assets/status-page.js"]);
      expect(await page.evaluate(() => document.querySelectorAll("img").length)).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
      expect(problems).toEqual([]);
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: join(shots, "status-page.png"), fullPage: true });
      expectPng(join(shots, "status-page.png"));
      await page.close();
    },
    TIMEOUT,
  );

  it(
    "leads with the two answers, Sync then Compliance, before the condition; paints no green on the drifted, non-compliant row",
    async () => {
      const { page, problems } = await open("/");
      expect(await page.$$eval("table.stacks thead th", (ths) => ths.map((th) => th.textContent))).toEqual([
        "Stack",
        "Sync",
        "Compliance",
        "Condition",
        "Deployment",
        "Last tick",
      ]);
      // In each row the answers' cells and badges come first, in that order, then the condition's.
      for (const name of [EVIL_STACK, "prod"]) {
        const order = await page.$$eval(
          `table.stacks tbody tr`,
          (trs, n) => {
            const tr = trs.find((r) => r.getAttribute("data-stack") === n)!;
            return [...tr.querySelectorAll("td")].map((td) => `${td.className}:${td.querySelector(".badge")?.className ?? ""}`);
          },
          name,
        );
        expect(order.slice(0, 3)).toEqual([
          expect.stringMatching(/^cell-sync:badge answer sync-/),
          expect.stringMatching(/^cell-compliance:badge answer compliance-/),
          expect.stringMatching(/^cell-condition:badge condition /),
        ]);
      }
      const evilRow = `tr[data-compliance="non-compliant"]`;
      expect(await greenIn(page, evilRow)).toEqual([]);
      // Green is there for the stack that is in sync and compliant (its answers), never for Ready.
      expect((await greenIn(page, `tr[data-stack="prod"] .answer`)).length).toBeGreaterThan(0);
      expect(await greenIn(page, `tr[data-stack="prod"] .condition`)).toEqual([]);
      // The fleet says the answers first, in the summary and in the title.
      expect(await page.title()).toBe("stackwarden: 1 drifted, 1 non-compliant of 2 stacks");
      const summary = await page.$eval(".summary", (p) => (p.textContent ?? "").replace(/\s+/g, " ").trim());
      expect(summary).toBe(
        "2 stacks: 1 drifted, 1 non-compliant (1 mandatory violation); 1 in sync and compliant. Watcher: 1 ready, 0 reconciling, 1 stalled.",
      );
      expect(await greenIn(page, ".summary")).toEqual([]);
      // The deployment is the trail's last apply, whoever made it: actor, commit, outcome, time.
      const deployment = (row: string) =>
        page.$eval(`${row} td.cell-deployment`, (td) => (td as any).innerText.replace(/\s+/g, " ").trim() as string);
      expect(await deployment(`tr[data-stack="prod"]`)).toMatch(/^Succeeded CLI apply by ci-runner-12 commit 0123456789ab, \d+ days ago$/);
      // One time format: relative, the absolute time in its tooltip and in <time datetime>.
      expect(
        await page.$eval(`tr[data-stack="prod"] td.cell-deployment time`, (t) => [t.getAttribute("title"), t.getAttribute("datetime")]),
      ).toEqual(["2026-01-01 10:06:00 UTC", "2026-01-01T10:06:00.000Z"]);
      expect(await deployment(evilRow)).toMatch(
        /^Interrupted \(killed mid-way\) Pulumi engine apply by build-7 commit 0123456789ab, \d+ days ago$/,
      );
      expect(problems).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    "fits a laptop (1280 px), a phone (390 px) and 200% zoom without scrolling sideways, the overview and each stack's page",
    async () => {
      for (const path of ["/", stackPagePath("prod"), stackPagePath(EVIL_STACK)]) {
        const { page, problems } = await open(path);
        for (const w of WIDTHS) {
          await page.setViewport({ width: w.width, height: 900, deviceScaleFactor: w.deviceScaleFactor });
          expect([path, w.name, await sidewaysScroll(page)]).toEqual([path, w.name, []]);
          expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
        }
        // On a phone the answers still lead each card, before the condition (the screenshot: the README's).
        if (path === "/") {
          await page.setViewport({ width: WIDTHS[1].width, height: 900, deviceScaleFactor: 1 });
          await page.screenshot({ path: join(shots, "status-page-phone.png"), fullPage: true });
          const labels = await page.$eval(`table.stacks tbody tr`, (tr) =>
            [...tr.querySelectorAll("td")].map((td) => window.getComputedStyle(td, "::before").content),
          );
          expect(labels.slice(0, 3)).toEqual(['"Sync"', '"Compliance"', '"Condition"']);
        }
        expect(problems).toEqual([]);
        await page.close();
      }
    },
    TIMEOUT,
  );

  it(
    "turns a stack to drifted, then back, without a reload",
    async () => {
      const { page, problems } = await open("/");
      await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
      const prodDrift = () =>
        page.$eval(`tr[data-stack="prod"]`, (tr) => ({
          drift: tr.getAttribute("data-drift"),
          text: (tr.querySelector("td.cell-sync")?.textContent ?? "").replace(/\s+/g, " "),
        }));

      feed(board, "prod", { tick: 13, databases: DATABASES, disabled: ["billing"], auditCount: 6 });
      await page.waitForFunction(() => document.querySelector(`tr[data-stack="prod"]`)?.getAttribute("data-drift") === "drifted", {
        timeout: 20_000,
      });
      const drifted = await prodDrift();
      expect(drifted.text).toContain("Drifted (1)");
      expect(await page.title()).toBe("stackwarden: 2 drifted, 2 non-compliant of 2 stacks");
      expect(drifted.text).toContain("rg-data/sql-1/billing: TDE Disabled → want Enabled, found by the sweep");
      expect(drifted.text).toContain("stacks/Pulumi.prod.yaml:5");
      expect(await page.$eval(`tr[data-stack="prod"] td.cell-compliance`, (td) => td.textContent)).toContain("1 mandatory violation");
      expect(await greenIn(page, `tr[data-stack="prod"]`)).toEqual([]);
      await page.screenshot({ path: join(shots, "status-page-drifted.png"), fullPage: true });
      expectPng(join(shots, "status-page-drifted.png"));

      feed(board, "prod", { tick: 14, databases: DATABASES, disabled: [], auditCount: 7 });
      await page.waitForFunction(() => document.querySelector(`tr[data-stack="prod"]`)?.getAttribute("data-drift") === "in-sync", {
        timeout: 20_000,
      });
      expect((await prodDrift()).text).toContain("In sync");
      expect(await page.title()).toBe("stackwarden: 1 drifted, 1 non-compliant of 2 stacks");
      expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
      expect(await page.evaluate(() => document.getElementById("live")?.textContent)).toMatch(/^Updated /);
      expect(problems).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    "a stack's page shows its parts, escapes its strings and follows changes to that stack",
    async () => {
      const { page, problems } = await open(stackPagePath(EVIL_STACK));
      expect(await page.$eval("h1", (h) => h.textContent)).toBe(`Stack ${EVIL_STACK}`);
      const headings = await page.$$eval("main h2", (hs) => hs.map((h) => h.textContent));
      expect(headings).toEqual(["Sync", "Compliance", "Databases", "Condition", "Deployment", "Ticks", "Lock", "Probes", "Audit trail"]);
      expect(await page.$eval(".answers", (p) => [...p.querySelectorAll(".badge")].map((b) => b.textContent))).toEqual([
        "Drifted (1)",
        "1 mandatory violation",
        "Stalled",
      ]);
      expect(await greenIn(page, "main")).toEqual([]);
      const text = await page.$eval("main", (m) => (m.textContent ?? "").replace(/\s+/g, " "));
      expect(text).toContain(`the advisor recommends S3 ${EVIL}`);
      expect(text).toContain("held by pid 4242 on build-7 (watch)");
      expect(text).toContain("record_not_found: the issuer has no such record");
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      await page.screenshot({ path: join(shots, "status-page-stack.png"), fullPage: true });

      feed(board, EVIL_STACK, { tick: 4, databases: ["archive"], disabled: [], commitSubject: "Repair archive" });
      await page.waitForFunction(() => document.querySelector("main")?.textContent?.includes("Repair archive"), { timeout: 20_000 });
      expect(await page.$eval("main", (m) => m.textContent ?? "")).toContain("In sync");
      expect(problems).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    "the browser enforces the CSP: an inline script is blocked and reported",
    async () => {
      const { page } = await open("/");
      const ran = await page.evaluate(() => {
        const s = document.createElement("script");
        s.textContent = "window.inlineRan = true";
        document.body.append(s);
        return (window as unknown as { inlineRan?: boolean }).inlineRan ?? false;
      });
      expect(ran).toBe(false);
      await page.waitForFunction(() => (window as unknown as { cspViolations: string[] }).cspViolations.length > 0);
      expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([
        "script-src-elem inline",
      ]);
      await page.close();
    },
    TIMEOUT,
  );

  it(
    "has no serious or critical accessibility violation (axe-core), on the overview and on a stack's page",
    async () => {
      for (const path of ["/", stackPagePath("prod"), stackPagePath(EVIL_STACK)]) {
        const { page } = await open(path);
        for (const w of [WIDTHS[0], WIDTHS[1]]) {
          await page.setViewport({ width: w.width, height: 900, deviceScaleFactor: w.deviceScaleFactor });
          expect([path, w.name, await axeViolations(page)]).toEqual([path, w.name, []]);
        }
        await page.close();
      }
    },
    TIMEOUT,
  );
});

describe("behind a status token, in Chromium", () => {
  const TOKEN = "browser-test-token-0123456789abcdef";
  let guarded: Awaited<ReturnType<typeof startWatchServer>>;
  let guardedBoard: StatusBoard;
  beforeAll(async () => {
    guardedBoard = new StatusBoard();
    feed(guardedBoard, "prod", { tick: 1, databases: DATABASES });
    guarded = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: guardedBoard,
      statusToken: TOKEN,
      readiness: () => ({ ready: true, reason: "test" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
  }, TIMEOUT);
  afterAll(() => guarded?.close());

  it(
    "signed in once with ?token=, the page, its assets and its stream work from the cookie",
    async () => {
      const page = await browser.newPage();
      // (Without the token the answer is 401 with a Basic challenge; headless Chromium has no prompt to show, see status-api.test.ts.)
      const res = await page.goto(`${guarded.url}/?token=${TOKEN}`, { waitUntil: "load" });
      expect(res?.status()).toBe(200);
      expect(page.url()).toBe(`${guarded.url}/`); // the token is gone from the address
      await page.waitForFunction(() => document.getElementById("live")?.textContent === "Live", { timeout: 20_000 });
      feed(guardedBoard, "prod", { tick: 2, databases: DATABASES, disabled: ["ledger"] });
      await page.waitForFunction(() => document.querySelector(`tr[data-stack="prod"]`)?.getAttribute("data-drift") === "drifted", {
        timeout: 20_000,
      });
      await page.close();
    },
    TIMEOUT,
  );
});

describe("the browser helper", () => {
  it("fails, never skips, when the browser is missing", () => {
    expect(() => chromiumPath({ STACKWARDEN_CHROMIUM: "/nonexistent/chromium" })).toThrow(
      /no Chromium at \/nonexistent\/chromium \(STACKWARDEN_CHROMIUM\): the browser tests need it\. Install Debian's package/,
    );
    expect(chromiumPath({})).toBe("/usr/bin/chromium");
  });
});
