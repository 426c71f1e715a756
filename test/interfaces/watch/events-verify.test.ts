import { randomBytes } from "node:crypto";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../../src/interfaces/watch/events/event-types";
import { makeEvent } from "../../../src/interfaces/watch/events/status-events";
import { WebhookNotifier } from "../../../src/interfaces/watch/events/webhook-notifier";
import { runCliProcess } from "../../helpers/cli-process";
import { startReceiver, type WebhookReceiver } from "./webhook-receiver";

// `stackwarden events verify`, the real CLI in a child process, on a delivery the notifier really
// made (captured by a receiver): exit 0 valid, 5 invalid, 1 error.

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const dir = mkdtempSync(join(tmpdir(), "stackwarden-events-verify-"));
let receiver: WebhookReceiver;
let delivery: { headers: Record<string, string>; body: string };

beforeAll(async () => {
  receiver = await startReceiver(SECRET);
  const n = await WebhookNotifier.open({ events: new FileDocumentStore(join(dir, "events")), urls: [receiver.url], secret: SECRET });
  n.enqueue(
    makeEvent(
      EVENT_TYPES.driftDetected,
      "prod",
      { stack: "prod", episode: 1, since: "2026-01-01T00:00:00.000Z", resources: [] },
      "3f1d1c2e-0000-8000-8000-000000000001",
      "/stackwarden/watch",
      "2026-01-01T00:00:00.000Z",
    ),
  );
  expect(await n.drain(10_000)).toBe(true);
  await n.close();
  delivery = receiver.requests[0];
});
afterAll(() => receiver.stop());

/** `stackwarden events verify args…` as a process, `input` on its stdin; stdout and stderr trimmed. */
async function verify(args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = await runCliProcess(["events", "verify", ...args], {
    cwd: dir,
    input: opts.input,
    env: { PATH: process.env.PATH, STACKWARDEN_NOTIFY_SECRET: SECRET, ...opts.env },
  });
  return { code: r.code, out: r.stdout.trim(), err: r.stderr.trim() };
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const signed = (h: Record<string, string>) => ({
  "webhook-id": h["webhook-id"],
  "webhook-timestamp": h["webhook-timestamp"],
  "webhook-signature": h["webhook-signature"],
});

describe("stackwarden events verify", () => {
  it("accepts a delivery the notifier signed: headers as JSON, payload from stdin", async () => {
    const r = await verify(["--headers", file("h.json", JSON.stringify(delivery.headers))], { input: delivery.body });
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.out).toMatch(
      /^valid: webhook-id 3f1d1c2e-0000-8000-8000-000000000001, signed \d{4}-\d\d-\d\dT[\d:.]+Z: com\.stackwarden\.drift\.detected for prod$/,
    );
  });

  it("accepts headers as `Name: value` lines (curl -D) from stdin, the payload from a file", async () => {
    const lines = ["POST /hooks/stackwarden HTTP/1.1", ...Object.entries(delivery.headers).map(([k, v]) => `${k}: ${v}`), ""].join("\r\n");
    const r = await verify(["--payload", file("body.json", delivery.body), "--headers", "-"], { input: lines });
    expect(r.code).toBe(0);
  });

  it("exits 5 for a changed payload, another secret, missing headers or an old timestamp", async () => {
    const headers = file("h2.json", JSON.stringify(signed(delivery.headers)));
    const changed = await verify(["--headers", headers], { input: delivery.body.replace('"prod"', '"prof"') });
    expect([changed.code, changed.out]).toEqual([5, "invalid: no signature matches"]);
    const other = await verify(["--headers", headers], {
      input: delivery.body,
      env: { STACKWARDEN_NOTIFY_SECRET: `whsec_${randomBytes(32).toString("base64")}` },
    });
    expect([other.code, other.out]).toEqual([5, "invalid: no signature matches"]);
    const noSig = await verify(["--headers", file("h3.json", JSON.stringify({ "webhook-id": "x", "webhook-timestamp": "1" }))], {
      input: "{}",
    });
    expect([noSig.code, noSig.out]).toEqual([5, "invalid: missing header(s): webhook-signature"]);

    const old = new Date(Date.now() - 3_600_000);
    const oldHeaders = file(
      "h4.json",
      JSON.stringify({
        "webhook-id": "msg_1",
        "webhook-timestamp": String(Math.floor(old.getTime() / 1000)),
        "webhook-signature": new Webhook(SECRET).sign("msg_1", old, delivery.body),
      }),
    );
    const stale = await verify(["--headers", oldHeaders], { input: delivery.body });
    expect([stale.code, stale.out]).toEqual([
      5,
      "invalid: the timestamp is more than 5 minutes old (a replay, or a saved payload: use --ignore-timestamp)",
    ]);
    expect((await verify(["--headers", oldHeaders, "--ignore-timestamp"], { input: delivery.body })).code).toBe(0);
    expect((await verify(["--headers", oldHeaders, "--ignore-timestamp"], { input: `${delivery.body} ` })).code).toBe(5);
  });

  it("exits 1 with one line for what it cannot check", async () => {
    const headers = file("h5.json", JSON.stringify(signed(delivery.headers)));
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [["--headers", headers], { STACKWARDEN_NOTIFY_SECRET: "" }, /STACKWARDEN_NOTIFY_SECRET is not set/],
      [["--headers", headers], { STACKWARDEN_NOTIFY_SECRET: "hunter2" }, /is not a Standard Webhooks secret/],
      [["--headers", join(dir, "nope.json")], {}, /--headers .*nope\.json: no such file/],
      [["--headers", "-"], {}, /only one of --payload and --headers can be read from stdin/],
      [["--headers", file("bad.txt", "not headers at all")], {}, /no header found/],
      [[], {}, /give the delivery's headers with --headers/],
    ];
    for (const [args, env, message] of cases) {
      const r = await verify(args, { input: delivery.body, env });
      expect([args, r.code]).toEqual([args, 1]);
      expect(r.err).toMatch(message);
      expect(r.err.split("\n")).toHaveLength(1);
      expect(r.err).not.toContain("hunter2");
    }
  });
});
