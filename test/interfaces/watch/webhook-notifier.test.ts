import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { parseRetryAfter, retryDelayMs } from "../../../src/interfaces/watch/events/delivery-backoff";
import type { DeadLetter } from "../../../src/interfaces/watch/events/event-outbox";
import { EVENT_TYPES } from "../../../src/interfaces/watch/events/event-types";
import { parseNotifySecret } from "../../../src/interfaces/watch/events/notify-secret";
import { makeEvent } from "../../../src/interfaces/watch/events/status-events";
import {
  CLOUDEVENTS_JSON,
  WebhookNotifier,
  webhookKey,
  type WebhookNotifierOptions,
} from "../../../src/interfaces/watch/events/webhook-notifier";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver";
import { claimDirectory } from "../../../src/platform/state/files/directory-claim";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import { deadPid } from "../../helpers/pids";

// The webhook notifier against real receivers (HTTP servers that verify every Standard Webhooks
// signature with the standardwebhooks package): retries, the outbox across processes' lives, the
// bounded queue and the dead-letter file.

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const FAST = { initialMs: 40, maxMs: 200 };

const open: WebhookNotifier[] = [];
const receivers: WebhookReceiver[] = [];
afterEach(async () => {
  for (const n of open.splice(0)) await n.close();
  for (const r of receivers.splice(0)) await r.stop();
});

/** A notifier whose outbox is a directory, as `watch` keeps it with the default (file) state. */
function openIn(dir: string, o: Omit<WebhookNotifierOptions, "events" | "claim">): Promise<WebhookNotifier> {
  return WebhookNotifier.open({ events: new FileDocumentStore(dir), claim: () => claimDirectory(dir), ...o });
}

async function notifier(
  { dir, ...o }: Partial<WebhookNotifierOptions> & { urls: string[]; dir?: string },
  log: string[] = [],
): Promise<WebhookNotifier> {
  const n = await openIn(dir ?? mkdtempSync(join(tmpdir(), "stackwarden-notify-")), {
    secret: SECRET,
    backoff: FAST,
    log: (l) => log.push(l),
    ...o,
  });
  open.push(n);
  return n;
}

async function receiver(port?: number): Promise<WebhookReceiver> {
  const r = await startReceiver(SECRET, port);
  receivers.push(r);
  return r;
}

let n = 0;
function event(stack = "prod") {
  const i = ++n;
  return makeEvent(
    EVENT_TYPES.driftDetected,
    stack,
    { stack, episode: i, since: "2026-01-01T00:00:00.000Z", resources: [] },
    `00000000-0000-8000-8000-${String(i).padStart(12, "0")}`,
    "/test",
    "2026-01-01T00:00:00.000Z",
  );
}

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

describe("WebhookNotifier", () => {
  it("delivers each event to every webhook, signed, as structured CloudEvents JSON", async () => {
    const [a, b] = [await receiver(), await receiver()];
    const nt = await notifier({ urls: [a.url, b.url] });
    const events = [event(), event("dev"), event()];
    for (const e of events) nt.enqueue(e);
    expect(await nt.drain(10_000)).toBe(true);
    for (const r of [a, b]) {
      expect(r.requests.every((q) => q.verified)).toBe(true);
      expect(r.events.map((e) => [e.id, e.eventId, e.subject, e.type, e.contentType])).toEqual(
        events.map((e) => [e.id, e.id, e.subject, "com.stackwarden.drift.detected", CLOUDEVENTS_JSON]),
      );
    }
    expect(nt.stats()).toEqual({ pending: 0, delivered: 6, retried: 0, deadLettered: 0 });
  });

  it("retries a receiver that answers 500, without slowing enqueue, and delivers in order", async () => {
    const r = await receiver();
    r.behaviour = { status: 500, delayMs: 1000 };
    const log: string[] = [];
    const nt = await notifier({ urls: [r.url] }, log);
    const started = process.hrtime.bigint();
    const events = Array.from({ length: 20 }, () => event());
    for (const e of events) nt.enqueue(e);
    const enqueueMs = Number(process.hrtime.bigint() - started) / 1e6;
    // 20 atomic writes (fsynced, so a loaded disk may take a while), far from the 20 s that waiting for this receiver would take.
    expect(enqueueMs).toBeLessThan(5000);
    expect(r.requests.length).toBeLessThanOrEqual(1);
    await until("two failed attempts", () => r.requests.length >= 2);
    expect(r.events).toEqual([]);
    r.behaviour = { status: 200, delayMs: 0 };
    expect(await nt.drain(15_000)).toBe(true);
    expect(r.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(r.requests.every((q) => q.verified)).toBe(true);
    expect(nt.stats().retried).toBeGreaterThanOrEqual(2);
    expect(log.some((l) => /failed \(HTTP 500\); attempt 2 of 12 in/.test(l))).toBe(true);
    expect(log.join("\n")).not.toContain("/hooks/stackwarden"); // a webhook is named by its origin only
  });

  it("counts an answer that does not come in time as a failure; the receiver deduplicates the late copy", async () => {
    const r = await receiver();
    r.behaviour = { status: 200, delayMs: 700 };
    const nt = await notifier({ urls: [r.url], timeoutMs: 200 });
    const e = event();
    nt.enqueue(e);
    await until("a timed-out attempt", () => nt.stats().retried >= 1);
    r.behaviour = { status: 200, delayMs: 0 };
    expect(await nt.drain(10_000)).toBe(true);
    expect(r.requests.length).toBeGreaterThanOrEqual(2);
    expect(r.events.map((x) => x.id)).toEqual([e.id]);
  });

  it("keeps what a down receiver did not get in the outbox, for the next process to deliver", async () => {
    const r = await receiver();
    const port = r.port;
    await r.stop();
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    const first = await notifier({ dir, urls: [r.url] });
    const events = [event(), event(), event()];
    for (const e of events) first.enqueue(e);
    await until("a refused attempt", () => first.stats().retried >= 1);
    await first.close();
    expect(readdirSync(join(dir, "outbox"))).toHaveLength(3);
    // What is on disk holds the event, not the webhook's URL.
    const onDisk = readdirSync(join(dir, "outbox")).map((f) => readFileSync(join(dir, "outbox", f), "utf8"));
    expect(onDisk.join("")).not.toContain("hooks/stackwarden");
    expect(JSON.parse(onDisk[0])).toMatchObject({ id: events[0].id, target: webhookKey(r.url), lastError: "ECONNREFUSED" });

    const back = await receiver(port);
    const second = await notifier({ dir, urls: [back.url] });
    expect(second.stats().pending).toBe(3);
    expect(await second.drain(10_000)).toBe(true);
    expect(back.events.map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(readdirSync(join(dir, "outbox"))).toEqual([]);
  });

  it("moves a delivery that exhausts its attempts to the dead-letter file", async () => {
    const r = await receiver();
    r.behaviour = { status: 503, delayMs: 0 };
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    const nt = await notifier({ dir, urls: [r.url], maxAttempts: 3 });
    const e = event();
    nt.enqueue(e);
    await until("the dead letter", () => nt.stats().deadLettered === 1);
    expect(r.requests).toHaveLength(3);
    const dead = readFileSync(join(dir, "dead-letter.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DeadLetter);
    expect(dead).toEqual([
      expect.objectContaining({
        id: e.id,
        reason: "no 2xx answer after 3 attempts",
        attempts: 3,
        lastError: "HTTP 503",
        body: JSON.stringify(e),
      }),
    ]);
    expect(readdirSync(join(dir, "outbox"))).toEqual([]);
  });

  it("bounds its queue: the oldest waiting deliveries go to the dead-letter file", async () => {
    const r = await receiver();
    await r.stop();
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    const nt = await notifier({ dir, urls: [r.url], maxQueued: 3, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const events = Array.from({ length: 5 }, () => event());
    for (const e of events) nt.enqueue(e);
    expect(nt.stats()).toMatchObject({ pending: 3, deadLettered: 2 });
    await nt.flushed();
    const dead = readFileSync(join(dir, "dead-letter.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as DeadLetter);
    expect(dead.map((d) => [d.id, d.reason])).toEqual([
      [events[0].id, "the queue was full (3 deliveries waiting)"],
      [events[1].id, "the queue was full (3 deliveries waiting)"],
    ]);
    expect(readdirSync(join(dir, "outbox"))).toHaveLength(3);
  });

  it("at start, dead-letters what waits for a webhook no longer configured, and sets aside an unreadable file", async () => {
    const r = await receiver();
    await r.stop();
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    const first = await notifier({ dir, urls: [r.url], backoff: { initialMs: 60_000, maxMs: 60_000 } });
    first.enqueue(event());
    await first.close();
    writeFileSync(join(dir, "outbox", "000000000099-x.json"), "{cut sho");
    writeFileSync(join(dir, "outbox", `000000000098-x.json.${deadPid()}.abcd.tmp`), "{");
    const other = await receiver();
    const log: string[] = [];
    const second = await notifier({ dir, urls: [other.url] }, log);
    expect(second.stats()).toMatchObject({ pending: 0, deadLettered: 1 });
    await second.flushed();
    expect(readFileSync(join(dir, "dead-letter.jsonl"), "utf8")).toContain("its webhook is no longer configured");
    expect(readdirSync(join(dir, "outbox"))).toEqual(["000000000099-x.json.unreadable"]);
    expect(log.some((l) => l.includes("setting aside"))).toBe(true);
  });

  it("holds its directory alone: refuses one a live watcher holds, takes over one whose holder is gone, gives it up on close", async () => {
    const r = await receiver();
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    // The parent of this test process stands for another watcher, alive, that holds the outbox.
    writeFileSync(join(dir, "owner.pid"), `${process.ppid}\n`);
    await expect(notifier({ dir, urls: [r.url] })).rejects.toThrow(
      `the event outbox ${dir} belongs to another running watcher (pid ${process.ppid}): watch several stacks with one watcher (--stack A --stack B, or --all), or start this one in another directory`,
    );
    expect(readFileSync(join(dir, "owner.pid"), "utf8")).toBe(`${process.ppid}\n`);
    // A holder killed with -9 left its claim: taken over.
    writeFileSync(join(dir, "owner.pid"), `${deadPid()}\n`);
    const n = await notifier({ dir, urls: [r.url] });
    expect(readFileSync(join(dir, "owner.pid"), "utf8")).toBe(`${process.pid}\n`);
    await n.close();
    expect(existsSync(join(dir, "owner.pid"))).toBe(false);
  });

  it("refuses a bad secret or URL in one line that does not show the value", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-notify-"));
    await expect(openIn(dir, { urls: ["http://127.0.0.1:1/x"], secret: "hunter2-not-a-whsec" })).rejects.toThrow(
      /STACKWARDEN_NOTIFY_SECRET is not a Standard Webhooks secret/,
    );
    try {
      await openIn(dir, { urls: ["http://127.0.0.1:1/x"], secret: "hunter2-not-a-whsec" });
    } catch (e) {
      expect((e as Error).message).not.toContain("hunter2");
    }
    await expect(openIn(dir, { urls: ["ftp://h/x?token=abc"], secret: SECRET })).rejects.toThrow(/must be http or https, got ftp:/);
    await expect(openIn(dir, { urls: ["not a url token=abc"], secret: SECRET })).rejects.toThrow(/is not a URL \(an unparsable value\)/);
    expect(existsSync(join(dir, "outbox"))).toBe(false);
  });
});

describe("secrets and backoff", () => {
  it.each([
    [undefined, /is not set/],
    ["", /is not set/],
    ["abc", /not a Standard Webhooks secret/],
    [`whsec_${Buffer.alloc(8).toString("base64")}`, /holds 8 bytes after whsec_/],
    [`whsec_${Buffer.alloc(80).toString("base64")}`, /holds 80 bytes/],
  ])("parseNotifySecret(%s) refuses", (value, message) => expect(() => parseNotifySecret(value)).toThrow(message));

  it("accepts a whsec_ secret of 24 to 64 bytes", () => expect(parseNotifySecret(` ${SECRET} `)).toBe(SECRET));

  it("backs off exponentially with jitter, up to the cap, and honours a longer Retry-After", () => {
    const o = { initialMs: 1000, maxMs: 8000 };
    expect([1, 2, 3, 4, 5].map((f) => retryDelayMs(f, o, undefined, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([1, 2, 3, 4, 5].map((f) => retryDelayMs(f, o, undefined, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
    expect(retryDelayMs(1, o, 30_000, () => 0)).toBe(30_000);
    expect(retryDelayMs(1, o, 10 * 3_600_000, () => 0)).toBe(3_600_000);
    expect(parseRetryAfter("7")).toBe(7000);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(58_000);
    expect(parseRetryAfter("soon")).toBeUndefined();
  });
});
