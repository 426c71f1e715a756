import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "./watch-metrics";
import { startReceiver, type Received, type WebhookReceiver } from "./webhook-receiver";

// At least once, exactly once per episode at a deduplicating receiver: a process with a
// StatusBoard (and its store) and a WebhookNotifier (and its outbox), from the compiled tree, is
// fed drift episodes of two stacks; the receiver (verifying every signature) goes down and comes
// back; the process is killed with SIGKILL and a new one resumes its outbox and its statuses.

const SECRET = `whsec_${randomBytes(32).toString("base64")}`;
const FIXTURE = join(__dirname, "fixtures", "event-process.cjs");

interface EventProcess {
  child: ChildProcess;
  out(): string;
  /** Waits for a line equal to `line` (after those already awaited). */
  line(line: string | RegExp, timeoutMs?: number): Promise<string>;
  send(cmd: object): void;
}

const children: ChildProcess[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  for (const r of receivers) await r.stop();
});

function start(stateDir: string, webhooks: string[]): EventProcess {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { PATH: process.env.PATH, STATE_DIR: stateDir, WEBHOOKS: JSON.stringify(webhooks), STACKWARDEN_NOTIFY_SECRET: SECRET },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (err += d));
  return {
    child,
    out: () => out,
    send: (cmd) => child.stdin!.write(`${JSON.stringify(cmd)}\n`),
    line: (want, timeoutMs = 20_000) =>
      eventually(
        `a line ${want} from the event process (stdout: ${out}; stderr: ${err})`,
        async () => out.split("\n").find((l) => (typeof want === "string" ? l === want : want.test(l))),
        timeoutMs,
      ),
  };
}

async function killHard(p: EventProcess): Promise<void> {
  const gone = new Promise((resolve) => p.child.once("exit", resolve));
  p.child.kill("SIGKILL");
  await gone;
}

const episodes = (events: Received[]) =>
  events.map((e) => `${e.subject} ${e.type.replace("com.stackwarden.drift.", "")} #${(e.data as { episode: number }).episode}`).sort();

describe("event delivery across a receiver restart and a kill -9", () => {
  it("delivers one drift detected and one drift resolved per episode per stack, every signature valid", { timeout: 120_000 }, async () => {
    const r = await startReceiver(SECRET);
    receivers.push(r);
    const state = mkdtempSync(join(tmpdir(), "stackwarden-event-kill-"));

    const first = start(state, [r.url]);
    await first.line("ready 0");
    first.send({ op: "tick", stack: "alpha", drifted: ["orders"] });
    first.send({ op: "tick", stack: "beta", drifted: ["ledger"] });
    await first.line("ok 2");
    await eventually("both detections delivered", async () => (r.events.length === 2 ? true : undefined));

    // The receiver goes down; alpha's first episode ends and a second begins meanwhile.
    await r.stop();
    first.send({ op: "tick", stack: "alpha", drifted: [] });
    first.send({ op: "tick", stack: "alpha", drifted: ["billing"] });
    await first.line("ok 4");
    await first.line(/failed \(ECONNREFUSED\); attempt 2 of 12/);
    await killHard(first);
    expect(readdirSync(join(state, "events", "outbox")).length).toBeGreaterThanOrEqual(2);

    // A new process resumes the outbox; the receiver comes back on its address.
    const second = start(state, [r.url]);
    await second.line(/^ready [1-9]/);
    await r.start();
    await eventually("the events queued before the kill", async () => (r.events.length === 4 ? true : undefined));
    // alpha is still drifted: the new process knows (its store), so nothing is announced again.
    second.send({ op: "tick", stack: "alpha", drifted: ["billing"] });
    second.send({ op: "tick", stack: "beta", drifted: [] });
    second.send({ op: "tick", stack: "alpha", drifted: [] });
    second.send({ op: "tick", stack: "alpha", drifted: [] });
    await second.line("ok 4");
    second.send({ op: "drain" });
    await second.line("drained true");

    expect(r.requests.length).toBeGreaterThanOrEqual(6);
    expect(r.requests.filter((q) => !q.verified)).toEqual([]);
    expect(r.events.every((e) => e.id === e.eventId)).toBe(true);
    expect(episodes(r.events)).toEqual([
      "alpha detected #1",
      "alpha detected #2",
      "alpha resolved #1",
      "alpha resolved #2",
      "beta detected #1",
      "beta resolved #1",
    ]);
    await killHard(second);
  });

  it("a delivery cut by kill -9 is sent again by the next process, and the receiver keeps it once", { timeout: 120_000 }, async () => {
    const r = await startReceiver(SECRET);
    receivers.push(r);
    r.behaviour = { status: 200, delayMs: 1500 }; // slow: the kill lands while the request is open
    const state = mkdtempSync(join(tmpdir(), "stackwarden-event-kill-"));
    const first = start(state, [r.url]);
    await first.line("ready 0");
    first.send({ op: "tick", stack: "gamma", drifted: ["orders"] });
    await first.line("ok 1");
    await eventually("the request to arrive", async () => (r.requests.length === 1 ? true : undefined));
    await killHard(first);

    r.behaviour = { status: 200, delayMs: 0 };
    const second = start(state, [r.url]);
    await second.line("ready 1");
    second.send({ op: "drain" });
    await second.line("drained true");
    const id = r.requests[0].id;
    expect(r.requests.map((q) => [q.id, q.verified])).toEqual([
      [id, true],
      [id, true],
    ]);
    expect(episodes(r.events)).toEqual(["gamma detected #1"]);
    await killHard(second);
  });
});
