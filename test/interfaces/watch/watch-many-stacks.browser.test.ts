import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqlClient } from "../../../src/services/sql/client";
import { axeViolations, greenIn, launchChromium, sidewaysScroll } from "../../helpers/browser";
import { FAST_RETRY, seedFromYaml, startTestEmulator, type TestEmulator } from "../../helpers/emulator";
import { runCliProcess, startCli, type CliProcess } from "../../helpers/cli-process";
import { eventually } from "./watch-metrics";
import { expectValid } from "./status-schema";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver";

// Issue 24's done-when, end to end: the emulator, one watcher process over two stacks with its status
// page, API and signed events, a receiver verifying every signature, and Chromium. An out-of-band TDE
// change turns a stack to drifted and non-compliant on the page without a reload (its row leads with
// those two answers and has no green in it), and its repair by a CLI `apply` turns it back and shows
// as its deployment, read from the audit trail; each drift episode of each stack reaches the receiver
// exactly once as detected and once as resolved, across a receiver that is down for a while and a
// kill -9 of the watcher.

declare const document: any;

const SUB = "00000000-0000-0000-0000-000000000000";
const SEED = `
sql:
  scanDurationMs: 100
  servers:
    - name: sql-alpha
      resourceGroup: rg-alpha
      databases:
        - { name: orders, transparentDataEncryption: Enabled }
    - name: sql-beta
      resourceGroup: rg-beta
      databases:
        - { name: ledger, transparentDataEncryption: Enabled }
`;
const stackYaml = (rg: string, server: string, db: string) =>
  `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n    - { resourceGroup: ${rg}, server: ${server}, database: ${db}, transparentDataEncryption: Enabled }\n`;
const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const TIMEOUT = 180_000;

let t: TestEmulator;
let sql: SqlClient;
let receiver: WebhookReceiver;
let browser: Browser;
let dir: string;
const running: CliProcess[] = [];
const ALPHA = { subscriptionId: SUB, resourceGroup: "rg-alpha", server: "sql-alpha", database: "orders" };
const BETA = { subscriptionId: SUB, resourceGroup: "rg-beta", server: "sql-beta", database: "ledger" };

beforeAll(async () => {
  t = await startTestEmulator({ seed: seedFromYaml(SEED) });
  sql = new SqlClient({ endpoint: t.url, credential: t.credential, retry: FAST_RETRY });
  receiver = await startReceiver(SECRET);
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), "stackwarden-watch-many-"));
  mkdirSync(join(dir, "stacks"));
  writeFileSync(join(dir, "stacks", "Pulumi.alpha.yaml"), stackYaml("rg-alpha", "sql-alpha", "orders"));
  writeFileSync(join(dir, "stacks", "Pulumi.beta.yaml"), stackYaml("rg-beta", "sql-beta", "ledger"));
}, TIMEOUT);
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await browser?.close();
  await receiver?.stop();
  await t?.close();
});

function watcher(): CliProcess {
  const p = startCli(
    ["watch", "--stack", "alpha", "--stack", "beta", "--interval", "300ms", "--listen", "127.0.0.1:0", "--notify", receiver.url],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        STACKWARDEN_ARM_ENDPOINT: t.url,
        STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata`,
        STACKWARDEN_NOTIFY_SECRET: SECRET,
      },
    },
  );
  running.push(p);
  return p;
}

async function listening(p: CliProcess): Promise<string> {
  return /listening on (http:\/\/\S+)/.exec(await p.line(/listening on http/, 30_000))![1];
}

async function setTde(ref: typeof ALPHA, status: "Enabled" | "Disabled"): Promise<void> {
  await sql.putTransparentDataEncryption(ref, status);
  await eventually(`${ref.database}'s scan to end`, async () =>
    (await sql.listTransparentDataEncryptionActivities(ref)).length === 0 ? true : undefined,
  );
}

interface ApiStack {
  drift: { state: string };
  sync: { state: string };
  compliance: { state: string; mandatory: number };
  condition: { type: string };
  deployment: { state: string; last: { command: string; who: { host: string }; outcome: string } | null };
}

async function stackStatus(url: string, name: string): Promise<ApiStack> {
  const body = (await (await fetch(`${url}/api/v1/stacks/${name}`)).json()) as ApiStack;
  expectValid("StackStatus", body);
  return body;
}

const received = (stack: string, type: string) => receiver.events.filter((e) => e.subject === stack && e.type === type);

async function rowDrift(page: Page, stack: string, state: string): Promise<void> {
  await page.waitForFunction(
    (s: string, d: string) => document.querySelector(`tr[data-stack="${s}"]`)?.getAttribute("data-drift") === d,
    { timeout: 30_000 },
    stack,
    state,
  );
}

describe("one watcher, two stacks: status page, API and events", () => {
  it(
    "drift shows on the page without a reload and in the API (drifted and non-compliant first, no green), a CLI apply shows as the deployment, and each episode is one detected and one resolved event, across a receiver outage and a kill -9",
    async () => {
      let w = watcher();
      let url = await listening(w);
      await eventually("both stacks in sync", async () => {
        const [a, b] = await Promise.all([stackStatus(url, "alpha"), stackStatus(url, "beta")]);
        return a.drift.state === "in-sync" && b.drift.state === "in-sync" ? true : undefined;
      });
      const list = (await (await fetch(`${url}/api/v1/stacks`)).json()) as { stacks: { name: string; condition: { type: string } }[] };
      expectValid("StackStatusList", list);
      expect(list.stacks.map((s) => [s.name, s.condition.type])).toEqual([
        ["alpha", "Ready"],
        ["beta", "Ready"],
      ]);

      // The page, loaded once: rows for both stacks, then alpha drifts and is repaired with no reload.
      const page = await browser.newPage();
      let navigations = 0;
      page.on("framenavigated", () => (navigations += 1));
      await page.goto(`${url}/`, { waitUntil: "load" });
      await rowDrift(page, "alpha", "in-sync");
      await rowDrift(page, "beta", "in-sync");
      const loads = navigations;
      await setTde(ALPHA, "Disabled");
      await rowDrift(page, "alpha", "drifted");
      await rowDrift(page, "beta", "in-sync");
      expect(await page.evaluate(() => document.querySelector(`tr[data-stack="alpha"]`)?.textContent ?? "")).toContain(
        "stacks/Pulumi.alpha.yaml:4",
      );
      expect(await stackStatus(url, "alpha")).toMatchObject({
        drift: { state: "drifted" },
        sync: { state: "drifted" },
        compliance: { state: "non-compliant", mandatory: 1 },
        condition: { type: "Ready" },
      });
      // The drifted, non-compliant row leads with those answers and has no green in it; the page fits a phone.
      const answers = (s: string) =>
        page.$eval(`tr[data-stack="${s}"]`, (tr) => [...tr.querySelectorAll(".badge")].map((b) => b.textContent));
      expect(await answers("alpha")).toEqual(["Drifted (1)", "1 mandatory violation", "Ready"]);
      expect(await answers("beta")).toEqual(["In sync", "Compliant", "Ready"]);
      expect(await greenIn(page, `tr[data-stack="alpha"]`)).toEqual([]);
      expect(await page.title()).toBe("stackwarden: 1 drifted, 1 non-compliant of 2 stacks");
      expect(await axeViolations(page)).toEqual([]);
      await page.setViewport({ width: 390, height: 900 });
      expect(await sidewaysScroll(page)).toEqual([]);
      await page.setViewport({ width: 1280, height: 900 });
      expect(await sidewaysScroll(page)).toEqual([]);
      // A person repairs it with the CLI; the watcher shows that apply as the deployment, from the trail.
      const cliEnv = { PATH: process.env.PATH, STACKWARDEN_ARM_ENDPOINT: t.url, STACKWARDEN_IMDS_ENDPOINT: `${t.url}/metadata` };
      const applied = await runCliProcess(["apply", "--stack", "alpha", "--yes", "--poll-interval", "50"], { cwd: dir, env: cliEnv });
      expect(applied.code, applied.output).toBe(0);
      await rowDrift(page, "alpha", "in-sync");
      await page.waitForFunction(
        () => (document.querySelector(`tr[data-stack="alpha"] td.cell-deployment`)?.textContent ?? "").includes("CLI apply"),
        { timeout: 30_000 },
      );
      expect(await page.$eval(`tr[data-stack="alpha"] td.cell-deployment`, (td) => td.textContent)).toContain(`CLI apply by ${hostname()}`);
      expect((await stackStatus(url, "alpha")).deployment).toMatchObject({
        state: "succeeded",
        last: { command: "apply", who: { host: hostname() }, outcome: "succeeded" },
      });
      expect((await stackStatus(url, "beta")).deployment).toMatchObject({ state: "none", last: null });
      expect(navigations).toBe(loads);
      await page.close();
      await eventually("alpha's episode delivered", async () =>
        received("alpha", "com.stackwarden.drift.resolved").length === 1 ? true : undefined,
      );

      // The receiver goes down; beta drifts; the watcher is killed with -9 before it could deliver.
      await receiver.stop();
      await setTde(BETA, "Disabled");
      await eventually("beta drifted", async () => ((await stackStatus(url, "beta")).drift.state === "drifted" ? true : undefined));
      w.child.kill("SIGKILL");
      await w.exited;

      // Receiver back, a new watcher process: the outbox is resumed, beta is repaired.
      await receiver.start();
      w = watcher();
      url = await listening(w);
      await setTde(BETA, "Enabled");
      await eventually(
        "beta's episode delivered",
        async () => (received("beta", "com.stackwarden.drift.resolved").length >= 1 ? true : undefined),
        60_000,
      );
      // A moment for anything that would arrive twice.
      await new Promise((r) => setTimeout(r, 1500));
      for (const stack of ["alpha", "beta"]) {
        expect(received(stack, "com.stackwarden.drift.detected"), `${stack} detected`).toHaveLength(1);
        expect(received(stack, "com.stackwarden.drift.resolved"), `${stack} resolved`).toHaveLength(1);
      }
      expect(receiver.requests.every((r) => r.verified)).toBe(true);
      w.child.kill("SIGTERM");
      expect(await w.exited).toBe(0);
    },
    TIMEOUT,
  );
});
