import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { escapeHtml, html } from "../../../src/interfaces/watch/page/html";
import { isLoopbackHost } from "../../../src/interfaces/watch/server/status-access";
import { STATUS_CSP } from "../../../src/interfaces/watch/server/status-routes";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import type { StackStatus, StackStatusList, StatusApiError } from "../../../src/interfaces/watch/status/stack-status";
import type { DatabaseList } from "../../../src/interfaces/watch/status/database-list";
import { inventoryOf } from "../../../src/interfaces/watch/status/database-inventory";
import { DRIFT_LISTED_PER_STACK, stackListEntry } from "../../../src/interfaces/watch/status/stack-list-entry";
import { STATUS_API_SCHEMA } from "../../../src/interfaces/watch/status/status-schema";
import { WatchMetrics } from "../../../src/interfaces/watch/watch-metrics";
import { startWatchServer } from "../../../src/interfaces/watch/watch-server";
import { feed } from "./status-fixtures";
import { expectValid } from "./status-schema";

// The status API and page of the watch server, over real HTTP: every JSON answer is validated
// against stack-status.schema.json; the page's escaping, headers and access rules are checked on
// what the server sends.

const EVIL = `<script>alert("x")</script>`;
const EVIL_STACK = `evil${EVIL}`;
const TOKEN = "s3cret-status-token-0123456789";

type Server = Awaited<ReturnType<typeof startWatchServer>>;

/** A GET with any headers (Host included, which fetch does not let a caller set). */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

async function getJson(
  url: string,
  kind: "StackStatusList" | "StackStatus" | "DatabaseList" | "ApiError",
  headers: Record<string, string> = {},
) {
  const r = await get(url, headers);
  expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
  const body = JSON.parse(r.body) as unknown;
  expectValid(kind, body);
  return { ...r, json: body };
}

function twoStacks(): StatusBoard {
  const board = new StatusBoard();
  feed(board, "prod", { tick: 3, disabled: ["billing"], lockHeld: true, probesFailing: true, auditCount: 4 });
  feed(board, EVIL_STACK, {
    tick: 1,
    commitSubject: `Fix ${EVIL}`,
    extraFindings: [
      {
        ruleId: "data-residency",
        resourceId: "/subscriptions/x/resourceGroups/rg/providers/Microsoft.Sql/servers/s/databases/d",
        label: "rg/s/d",
        verdict: "fail",
        level: "advisory",
        message: `site ${EVIL} must be in an allowed country`,
      },
    ],
  });
  return board;
}

describe("the status API and page on loopback", () => {
  let server: Server;
  let board: StatusBoard;
  let metrics: WatchMetrics;
  let ready = true;
  beforeAll(async () => {
    board = twoStacks();
    metrics = new WatchMetrics();
    metrics.addStack("prod");
    server = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: board,
      readiness: () => ({ ready, reason: ready ? "tick 3 finished 1s ago" : "no tick has finished yet" }),
      metrics: async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }),
    });
  });
  afterAll(async () => {
    await server.close();
    metrics.close();
  });

  it("GET /api/v1/stacks lists every stack, valid against the schema", async () => {
    const r = await getJson(`${server.url}/api/v1/stacks`, "StackStatusList");
    expect(r.status).toBe(200);
    const list = r.json as { revision: number; stacks: StackStatus[] };
    expect(list.stacks.map((s) => s.name)).toEqual([EVIL_STACK, "prod"]);
    expect(list.revision).toBe(board.revision);
    expect(list.stacks[1]).toEqual(stackListEntry(board.get("prod")!));
    // Each stack answers sync and compliance first, then its condition; its deployment is the trail's last apply.
    const prod = list.stacks[1];
    const keys = Object.keys(prod);
    expect(keys.slice(keys.indexOf("sync"), keys.indexOf("condition") + 1)).toEqual(["sync", "compliance", "condition"]);
    expect(prod.sync).toMatchObject({ state: "drifted", drifted: 1 });
    expect(prod.compliance).toMatchObject({ state: "non-compliant", mandatory: 1 });
    expect(list.stacks[0].sync.state).toBe("in-sync");
    expect(list.stacks[0].compliance).toMatchObject({ state: "compliant", message: "no mandatory rule fails; 1 advisory finding(s)" });
    expect(prod.deployment).toMatchObject({ state: "succeeded", last: { seq: 4, command: "remediate", outcome: "succeeded" } });
    expect(r.headers["content-security-policy"]).toBe(STATUS_CSP);
    expect(r.headers["x-content-type-options"]).toBe("nosniff");
    expect(r.headers["cache-control"]).toBe("no-cache");
  });

  it("GET /api/v1/stacks gives each stack abridged (a few drifted resources, rule counts without findings) and names where the rest is", async () => {
    const wide = new StatusBoard();
    const disabled = Array.from({ length: DRIFT_LISTED_PER_STACK + 4 }, (_, i) => `db-${i}`);
    feed(wide, "wide", { tick: 1, disabled, databases: [...disabled, "in-sync"] });
    const full = wide.get("wide")!;
    const s = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: wide,
      readiness: () => ({ ready: true, reason: "" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
    try {
      const list = (await getJson(`${s.url}/api/v1/stacks`, "StackStatusList")).json as StackStatusList;
      expect(list.details).toBe("/api/v1/stacks/{name}");
      const entry = list.stacks[0];
      // The answers, counts and condition are the full status's; the long lists are cut.
      expect({ sync: entry.sync, compliance: entry.compliance, condition: entry.condition }).toEqual({
        sync: full.sync,
        compliance: full.compliance,
        condition: full.condition,
      });
      expect(full.drift.resources).toHaveLength(disabled.length);
      expect(entry.drift.resources).toEqual(full.drift.resources.slice(0, DRIFT_LISTED_PER_STACK));
      expect(full.findings.rules.length).toBeGreaterThan(0);
      for (const [i, rule] of entry.findings.rules.entries()) {
        expect(rule).toMatchObject({ ruleId: full.findings.rules[i].ruleId, failing: full.findings.rules[i].failing, findings: [] });
        expect(rule.truncated).toBe(full.findings.rules[i].truncated + full.findings.rules[i].findings.length);
      }
      // The full status is one request away, at the address `details` names.
      const one = await getJson(`${s.url}${list.details.replace("{name}", encodeURIComponent(entry.name))}`, "StackStatus");
      expect(one.json).toEqual(full);
    } finally {
      await s.close();
    }
  });

  it("GET /api/v1/stacks/{name}/databases filters and pages the stack's databases; bad parameters answer 400 naming them", async () => {
    const big = new StatusBoard();
    const names = Array.from({ length: 120 }, (_, i) => `db-${String(i).padStart(3, "0")}`);
    const disabled = names.filter((_, i) => i % 4 === 0);
    feed(big, "big", { tick: 1, databases: names, disabled });
    const full = big.get("big")!;
    big.keepDatabases(
      "big",
      inventoryOf(
        names.map((n, i) => ({
          id: full.drift.resources.find((r) => r.label.endsWith(`/${n}`))?.id ?? `/x/${n}`,
          label: `rg-data/sql-${i % 2}/${n}`,
          server: `sql-${i % 2}`,
          discovered: false,
          desired: "Enabled" as const,
          live: disabled.includes(n) ? "Disabled" : "Enabled",
          sync: disabled.includes(n) ? ("drifted" as const) : ("in-sync" as const),
          compliance: disabled.includes(n) ? ("non-compliant" as const) : ("compliant" as const),
          mandatory: disabled.includes(n) ? 1 : 0,
          advisory: 0,
        })),
        "2026-11-29T10:00:00.000Z",
      ),
    );
    const s = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: big,
      readiness: () => ({ ready: true, reason: "" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
    try {
      const api = (query: string, kind: "DatabaseList" | "ApiError" = "DatabaseList") =>
        getJson(`${s.url}/api/v1/stacks/big/databases${query}`, kind);
      const all = (await api("")).json as DatabaseList;
      expect(all).toMatchObject({ stack: "big", total: 120, unfiltered: 120, page: 1, pages: 3, checkedAt: "2026-11-29T10:00:00.000Z" });
      expect(all.items).toHaveLength(50);
      const last = (await api("?page=3")).json as DatabaseList;
      expect(last.items.map((d) => d.label.split("/")[2])).toEqual(names.slice(100));
      const past = await api("?page=4");
      expect(past.status).toBe(200);
      expect(past.json).toMatchObject({ total: 120, page: 4, pages: 3, items: [] });
      const drifted = (await api("?sync=drifted&server=sql-0&q=db-0&size=5")).json as DatabaseList;
      const expected = names.filter((n, i) => disabled.includes(n) && i % 2 === 0 && n.includes("db-0"));
      expect(drifted).toMatchObject({ total: expected.length, unfiltered: names.length, pages: Math.ceil(expected.length / 5) });
      expect(drifted.items.map((d) => d.label.split("/")[2])).toEqual(expected.slice(0, 5));
      expect(drifted.query).toEqual({ sync: "drifted", compliance: null, server: "sql-0", q: "db-0", page: 1, size: 5 });
      expect((await api("?q=nothing-like-this")).json).toMatchObject({ total: 0, pages: 1, items: [] });

      const bad = await api("?sync=drifting", "ApiError");
      expect(bad.status).toBe(400);
      expect(bad.json).toEqual({
        error: { code: "BadRequest", message: 'parameter sync is "drifting": expected one of in-sync, drifted, unknown' },
      });
      expect((await api("?page=0", "ApiError")).status).toBe(400);
      expect(((await getJson(`${s.url}/api/v1/stacks/nope/databases`, "ApiError")).json as StatusApiError).error.code).toBe("NotFound");

      // The page takes the same query: 400 with the same line, as a page; a good query shows its count.
      const page = await get(`${s.url}/stacks/big?sync=drifting`);
      expect(page.status).toBe(400);
      expect(page.body).toContain("parameter sync is &quot;drifting&quot;: expected one of in-sync, drifted, unknown.");
      const shown = await get(`${s.url}/stacks/big?sync=drifted&page=2&size=10`);
      expect(shown.status).toBe(200);
      expect(shown.body).toContain(`showing 11–20 of ${disabled.length} (filtered from ${names.length})`);
      expect(shown.body).toMatch(/<form class="db-filter" method="get" action="\/stacks\/big#h-databases"/);
      expect(shown.body).toMatch(/<a href="\/stacks\/big\?sync=drifted&amp;size=10&amp;page=3#h-databases"\s+rel="next"/);
      // A stack this watcher has not ticked yet: its databases are not listed, the API says so with checkedAt null.
      const fresh = new StatusBoard();
      fresh.register("fresh", { file: "stacks/Pulumi.fresh.yaml" });
      const s2 = await startWatchServer({
        host: "127.0.0.1",
        port: 0,
        status: fresh,
        readiness: () => ({ ready: true, reason: "" }),
        metrics: async () => ({ contentType: "text/plain", body: "" }),
      });
      try {
        expect((await getJson(`${s2.url}/api/v1/stacks/fresh/databases`, "DatabaseList")).json).toMatchObject({
          checkedAt: null,
          total: 0,
          items: [],
        });
      } finally {
        await s2.close();
      }
    } finally {
      await s.close();
    }
  });

  it("GET /api/v1/stacks has an ETag per revision: If-None-Match answers 304 without a body until the board changes", async () => {
    const first = await get(`${server.url}/api/v1/stacks`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/"[0-9a-f]{8}-\d+"$/);
    const again = await get(`${server.url}/api/v1/stacks`, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
    expect(again.headers.etag).toBe(etag);
    expect((await get(`${server.url}/api/v1/stacks`, { "if-none-match": `"other", ${etag.slice(2)}` })).status).toBe(304);
    board.update("prod", { nextTickAt: new Date(Date.now() + 60_000).toISOString() });
    const changed = await get(`${server.url}/api/v1/stacks`, { "if-none-match": etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    expect((JSON.parse(changed.body) as StackStatusList).revision).toBe(board.revision);
  });

  it("GET /api/v1/stacks is gzip to a client that asks (fetch decodes it), the same answer as identity", async () => {
    const raw = (headers: Record<string, string>) =>
      new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
        request(`${server.url}/api/v1/stacks`, { headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
        })
          .on("error", reject)
          .end();
      });
    const plain = await raw({});
    const zipped = await raw({ "accept-encoding": "gzip, deflate, br" });
    expect([plain.headers["content-encoding"], zipped.headers["content-encoding"]]).toEqual([undefined, "gzip"]);
    expect([plain.headers.vary, zipped.headers.vary]).toEqual(["Accept-Encoding", "Accept-Encoding"]);
    expect(Number(zipped.headers["content-length"])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.body.length);
    const withoutTime = (b: Buffer) => ({ ...(JSON.parse(b.toString("utf8")) as StackStatusList), generatedAt: null });
    expect(withoutTime(gunzipSync(zipped.body))).toEqual(withoutTime(plain.body));
    // fetch asks for gzip itself and decodes it.
    const fetched = await fetch(`${server.url}/api/v1/stacks`);
    expect(fetched.headers.get("content-encoding")).toBe("gzip");
    const list = (await fetched.json()) as StackStatusList;
    expectValid("StackStatusList", list);
    expect({ ...list, generatedAt: null }).toEqual(withoutTime(plain.body));
    expect((await raw({ "accept-encoding": "gzip;q=0, identity" })).headers["content-encoding"]).toBeUndefined();
  });

  it("GET /api/v1/stacks/{name} returns one stack (any name, percent-encoded); 404 and 400 in the error shape", async () => {
    for (const name of ["prod", EVIL_STACK]) {
      const r = await getJson(`${server.url}/api/v1/stacks/${encodeURIComponent(name)}`, "StackStatus");
      expect(r.status).toBe(200);
      expect(r.json).toEqual(board.get(name));
    }
    const missing = await getJson(`${server.url}/api/v1/stacks/nope`, "ApiError");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: { code: "NotFound", message: 'no stack named "nope" is watched' } });
    expect((await getJson(`${server.url}/api/v1/stacks/%E0%A4%A`, "ApiError")).status).toBe(400);
    expect((await getJson(`${server.url}/api/v1/nothing`, "ApiError")).status).toBe(404);
  });

  it("GET /api/v1/schema serves the schema the responses are validated against", async () => {
    const r = await get(`${server.url}/api/v1/schema`);
    expect(r.headers["content-type"]).toBe("application/schema+json; charset=utf-8");
    expect(JSON.parse(r.body)).toEqual(STATUS_API_SCHEMA);
  });

  it("/healthz, /readyz and /metrics behave as before; other methods get 405", async () => {
    expect(await get(`${server.url}/healthz`)).toMatchObject({ status: 200, body: "ok\n" });
    expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 200, body: "ready: tick 3 finished 1s ago\n" });
    ready = false;
    expect(await get(`${server.url}/readyz`)).toMatchObject({ status: 503, body: "not ready: no tick has finished yet\n" });
    ready = true;
    const m = await get(`${server.url}/metrics`);
    expect(m.status).toBe(200);
    expect(m.body).toContain('stackwarden_watch_ticks_total{stack="prod",result="ok"} 0');
    const post = await fetch(`${server.url}/api/v1/stacks`, { method: "POST" });
    expect(post.status).toBe(405);
  });

  it("the page has one row per stack, escapes every string, and loads only its own script and style", async () => {
    const r = await get(`${server.url}/`);
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(r.headers["content-security-policy"]).toBe(STATUS_CSP);
    const page = r.body;
    expect(page.match(/<tr\s+data-stack=/g)).toHaveLength(2);
    // The row says its two answers first, then the watcher's condition; so do its cells, and the title.
    const prodRow = /<tr\s+data-stack="prod"([^>]*)>/.exec(page)![1].replace(/\s+/g, " ").trim();
    expect(prodRow).toBe('data-sync="drifted" data-compliance="non-compliant" data-condition="Ready" data-drift="drifted"');
    const cells = [...page.matchAll(/<td class="(cell-[a-z]+)"/g)].slice(0, 5).map((m) => m[1]);
    expect(cells).toEqual(["cell-sync", "cell-compliance", "cell-condition", "cell-deployment", "cell-ticks"]);
    expect(page).toContain("<title>stackwarden: 1 drifted, 1 non-compliant of 2 stacks</title>");
    expect(page).toContain("evil&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(page).toContain("Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(page).not.toContain(EVIL);
    // One script element, the served file; no inline style or event handler; nothing from elsewhere.
    expect(page.match(/<script\b[^>]*>/g)).toEqual(['<script src="/assets/status-page.js" defer>']);
    expect(page).not.toMatch(/\sstyle=|<style|\son[a-z]+=/i);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    // Paths break at their separators (<wbr />, which adds no text).
    expect(page).toContain("stacks/<wbr />Pulumi.<wbr />prod.<wbr />yaml:5"); // the drifted database's stack-file line
    expect(page).toContain("held by pid 4242 on build-7 (watch)");
  });

  it("a stack's page shows its findings (escaped), its probes and its audit trail; a missing one is 404", async () => {
    const evil = await get(`${server.url}/stacks/${encodeURIComponent(EVIL_STACK)}`);
    expect(evil.status).toBe(200);
    expect(evil.body).toContain("site &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; must be in an allowed country");
    expect(evil.body).not.toContain(EVIL);
    expect(evil.body).toContain(`data-stack="evil&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"`);
    const prod = await get(`${server.url}/stacks/prod`);
    expect(prod.body).toContain("record_not_found: the issuer has no such record");
    expect(prod.body).toContain(`Head: seq 4, sha256 <code class="hash">${board.get("prod")!.audit.head!.hash}</code>`);
    const missing = await get(`${server.url}/stacks/${encodeURIComponent("<b>x</b>")}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toContain("no stack named &quot;&lt;b&gt;x&lt;/b&gt;&quot; is watched");
  });

  it("serves its assets itself, with their types and ETags", async () => {
    for (const [path, type] of [
      ["/assets/status-page.js", "text/javascript; charset=utf-8"],
      ["/assets/status-page.css", "text/css; charset=utf-8"],
      ["/assets/favicon.svg", "image/svg+xml"],
    ]) {
      const r = await get(`${server.url}${path}`);
      expect([r.status, r.headers["content-type"]]).toEqual([200, type]);
      expect(r.body.length).toBeGreaterThan(100);
      expect((await get(`${server.url}${path}`, { "if-none-match": r.headers.etag as string })).status).toBe(304);
    }
    expect((await get(`${server.url}/assets/nope.js`)).status).toBe(404);
  });

  it("answers only requests for a loopback host name (a rebound DNS name is turned away), health endpoints excepted", async () => {
    const r = await get(`${server.url}/api/v1/stacks`, { host: "attacker.example:80" });
    expect(r.status).toBe(403);
    expectValid("ApiError", JSON.parse(r.body));
    expect((await get(`${server.url}/`, { host: "attacker.example" })).status).toBe(403);
    expect((await get(`${server.url}/metrics`, { host: "attacker.example" })).status).toBe(403);
    expect((await get(`${server.url}/healthz`, { host: "attacker.example" })).status).toBe(200);
    expect((await get(`${server.url}/`, { host: "localhost:1234" })).status).toBe(200);
  });

  it("streams each change as a server-sent event carrying the stack's status", async () => {
    const ac = new AbortController();
    const res = await fetch(`${server.url}/api/v1/stream`, { signal: ac.signal });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const until = async (re: RegExp) => {
      while (!re.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${re}: ${text}`);
        text += value;
      }
    };
    await until(/retry: 2000\n\n/);
    feed(board, "prod", { tick: 4, disabled: [] });
    await until(/event: status\nid: \d+\ndata: .*\n\n/);
    const data = JSON.parse(/event: status\nid: \d+\ndata: (.*)\n\n/.exec(text)![1]) as StackStatus;
    expectValid("StackStatus", data);
    expect(data).toMatchObject({ name: "prod", drift: { state: "in-sync" } });
    ac.abort();
  });
});

describe("the reason's code", () => {
  it("a failed tick's condition carries its error's code, in the API and on the pages", async () => {
    const board = new StatusBoard();
    feed(board, "bad", {
      tick: 2,
      failed: "stacks/Pulumi.bad.yaml:4:7: config.stackwarden:databases[0]: unknown key",
      errorCode: "SW_CONFIG_INVALID",
    });
    feed(board, "slow", { tick: 5, failed: "still throttled", errorCode: "SW_THROTTLED", consecutiveFailures: 2 });
    const server = await startWatchServer({
      host: "127.0.0.1",
      port: 0,
      status: board,
      readiness: () => ({ ready: false, reason: "failing" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    });
    try {
      const bad = (await getJson(`${server.url}/api/v1/stacks/bad`, "StackStatus")).json as StackStatus;
      expect(bad.condition).toMatchObject({ type: "Stalled", reason: "StackFileInvalid", code: "SW_CONFIG_INVALID" });
      expect(bad.lastTick).toMatchObject({ outcome: "failed", errorCode: "SW_CONFIG_INVALID" });
      const slow = (await getJson(`${server.url}/api/v1/stacks/slow`, "StackStatus")).json as StackStatus;
      expect(slow.condition).toMatchObject({ type: "Reconciling", reason: "Throttled", code: "SW_THROTTLED" });
      const overview = (await get(`${server.url}/`)).body;
      expect(overview).toContain(`<span class="reason">StackFileInvalid</span> <code class="error-code">SW_CONFIG_INVALID</code>`);
      expect(overview).toContain(`<span class="reason">Throttled</span> <code class="error-code">SW_THROTTLED</code>`);
      expect((await get(`${server.url}/stacks/bad`)).body).toContain(`<code class="error-code">SW_CONFIG_INVALID</code>`);
    } finally {
      await server.close();
    }
  });
});

describe("the status token", () => {
  it("is required on an address that is not loopback, and must be long enough", async () => {
    const base = {
      port: 0,
      readiness: () => ({ ready: true, reason: "" }),
      metrics: async () => ({ contentType: "text/plain", body: "" }),
    };
    await expect(startWatchServer({ ...base, host: "0.0.0.0" })).rejects.toThrow(
      /0\.0\.0\.0 is not a loopback address: the status page and API there need a token \(--status-token or STACKWARDEN_STATUS_TOKEN/,
    );
    await expect(startWatchServer({ ...base, host: "0.0.0.0", statusToken: "short" })).rejects.toThrow(/at least 16 characters/);
  });

  describe("on 0.0.0.0 with a token", () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      server = await startWatchServer({
        host: "0.0.0.0",
        port: 0,
        status: twoStacks(),
        statusToken: TOKEN,
        readiness: () => ({ ready: true, reason: "fine" }),
        metrics: async () => ({ contentType: "text/plain", body: "m 1\n" }),
      });
      url = `http://127.0.0.1:${new URL(server.url).port}`;
    });
    afterAll(() => server.close());

    it("checks it on every request but the health endpoints", async () => {
      expect((await get(`${url}/healthz`)).status).toBe(200);
      expect((await get(`${url}/readyz`)).status).toBe(200);
      for (const path of ["/", "/stacks/prod", "/assets/status-page.js", "/api/v1/stream", "/metrics"]) {
        const r = await get(`${url}${path}`);
        expect([path, r.status]).toEqual([path, 401]);
        expect(r.headers["www-authenticate"]).toContain('Basic realm="stackwarden status"');
      }
      const api = await getJson(`${url}/api/v1/stacks`, "ApiError");
      expect([api.status, api.json]).toEqual([401, { error: { code: "Unauthorized", message: "a token is required" } }]);
      const wrong = await getJson(`${url}/api/v1/stacks`, "ApiError", { authorization: `Bearer ${TOKEN}x` });
      expect(wrong.json).toEqual({ error: { code: "Unauthorized", message: "the token is not the status token" } });
      expect(wrong.body).not.toContain(TOKEN);
    });

    it("accepts it as a bearer token, as a Basic password, or through the cookie of /?token=", async () => {
      expect((await getJson(`${url}/api/v1/stacks`, "StackStatusList", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      expect((await get(`${url}/metrics`, { authorization: `Bearer ${TOKEN}` })).body).toBe("m 1\n");
      const basic = `Basic ${Buffer.from(`anyone:${TOKEN}`).toString("base64")}`;
      expect((await get(`${url}/`, { authorization: basic })).status).toBe(200);
      // No Host check with a token: any name may reach it, the token is what counts.
      expect((await get(`${url}/`, { authorization: basic, host: "watch.internal" })).status).toBe(200);
      const signIn = await get(`${url}/stacks/prod?token=${TOKEN}`);
      expect(signIn.status).toBe(303);
      expect(signIn.headers.location).toBe("/stacks/prod");
      const cookie = (signIn.headers["set-cookie"] as string[])[0];
      expect(cookie).toMatch(/^stackwarden_status=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
      expect(cookie).not.toContain(TOKEN);
      const jar = cookie.split(";")[0];
      expect((await get(`${url}/stacks/prod`, { cookie: jar })).status).toBe(200);
      expect((await getJson(`${url}/api/v1/stacks/prod`, "StackStatus", { cookie: jar })).status).toBe(200);
      expect((await get(`${url}/?token=wrong-token-wrong-token`)).status).toBe(401);
      expect((await get(`${url}/`, { cookie: "stackwarden_status=forged" })).status).toBe(401);
    });
  });
});

describe("escaping", () => {
  it.each([
    [`<script>alert(1)</script>`, "&lt;script&gt;alert(1)&lt;/script&gt;"],
    [`" onmouseover="x`, "&quot; onmouseover=&quot;x"],
    [`' autofocus '`, "&#39; autofocus &#39;"],
    ["a & b `c`", "a &amp; b &#96;c&#96;"],
  ])("%s", (raw, escaped) => {
    expect(escapeHtml(raw)).toBe(escaped);
    expect(html`<p title="${raw}">${raw}</p>`.markup).toBe(`<p title="${escaped}">${escaped}</p>`);
  });

  it("nests Html unescaped, renders lists, and drops null, undefined and false", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(html`${inner}${["<", html`<br />`]}${null}${undefined}${false}${0}`.markup).toBe("<b>&lt;i&gt;</b>&lt;<br />0");
  });

  it.each([
    ["127.0.0.1", true],
    ["127.1.2.3", true],
    ["localhost", true],
    ["::1", true],
    ["[::1]", true],
    ["::ffff:127.0.0.1", true],
    ["0.0.0.0", false],
    ["::", false],
    ["10.0.0.1", false],
    ["example.com", false],
  ])("isLoopbackHost(%s) is %s", (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));
});
