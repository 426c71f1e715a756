import { cpSync, mkdtempSync } from "node:fs";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CloudEvent } from "cloudevents";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, type StackwardenEvent } from "../../../src/interfaces/watch/events/event-types";
import { notifyStatusChanges } from "../../../src/interfaces/watch/events/notify-status-changes";
import { eventsBetween } from "../../../src/interfaces/watch/events/status-events";
import type { ApplyRecord } from "../../../src/interfaces/watch/status/stack-status";
import { StatusBoard, type StatusUpdate } from "../../../src/interfaces/watch/status/status-board";
import { lockOf } from "../../../src/interfaces/watch/status/status-parts";
import { StatusStore } from "../../../src/interfaces/watch/status/status-store";
import { StackStatusReporter } from "../../../src/interfaces/watch/stack-status-reporter";
import { openMemoryState } from "../../../src/platform/state/memory/memory-state";
import { LOCK_HOLDER, stackOf, tickUpdate } from "./status-fixtures";

const stack = stackOf("prod", ["orders", "billing"]);

/** A board on `dir` (or in memory) whose every derived event is collected. */
async function watched(dir?: string) {
  const board = dir ? await StatusBoard.open({ store: new StatusStore(new FileDocumentStore(dir)) }) : new StatusBoard();
  const events: StackwardenEvent[] = [];
  notifyStatusChanges(board, { enqueue: (e) => events.push(e) }, { source: "/test/watch" });
  board.register("prod", { file: stack.file });
  let tick = 0;
  const t = (disabled: string[], extra: Partial<Parameters<typeof tickUpdate>[0]> = {}, override: StatusUpdate = {}) => {
    const before = events.length;
    board.update("prod", { ...tickUpdate({ stack, tick: ++tick, disabled, auditCount: 1, ...extra }), ...override });
    return events.slice(before);
  };
  return { board, events, t };
}

const kinds = (es: StackwardenEvent[]) =>
  es.map((e) => `${e.type.replace("com.stackwarden.", "")}${"episode" in e.data ? ` #${(e.data as { episode: number }).episode}` : ""}`);

describe("eventsBetween", () => {
  it("announces a drift episode once when it opens and once when it is resolved", async () => {
    const { t } = await watched();
    expect(t([])).toEqual([]);
    expect(kinds(t(["billing"]))).toEqual(["drift.detected #1", "finding.raised #2"]);
    expect(kinds(t(["billing", "orders"]))).toEqual(["finding.raised #3"]); // the same drift episode, one more finding
    expect(kinds(t(["billing", "orders"]))).toEqual([]);
    const resolved = t([]);
    expect(kinds(resolved)).toEqual(["drift.resolved #1", "finding.cleared #2", "finding.cleared #3"]);
    const data = resolved[0].data as { resources: { label: string }[]; since: string };
    expect(data.resources.map((r) => r.label)).toEqual(["rg-data/sql-1/orders", "rg-data/sql-1/billing"]);
    expect(kinds(t(["orders"]))).toEqual(["drift.detected #4", "finding.raised #5"]);
  });

  it("makes valid CloudEvents 1.0 whose subject is the stack and whose data carries the drifted lines", async () => {
    const { t } = await watched();
    const [detected] = t(["billing"]);
    expect(new CloudEvent(detected as never).validate()).toBe(true);
    expect(detected).toMatchObject({
      specversion: "1.0",
      type: "com.stackwarden.drift.detected",
      source: "/test/watch",
      subject: "prod",
      datacontenttype: "application/json",
      data: {
        stack: "prod",
        episode: 1,
        resources: [
          { label: "rg-data/sql-1/billing", desired: "Enabled", live: "Disabled", source: { file: "stacks/Pulumi.prod.yaml", line: 5 } },
        ],
      },
    });
    expect(detected.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("announces applies and repairs by outcome, each once", async () => {
    const { t } = await watched();
    const apply = (trigger: "commit" | "remediation", exitCode: number, seq: number): ApplyRecord => ({
      trigger,
      startedAt: new Date(Date.UTC(2026, 0, 1, 10, seq)).toISOString(),
      finishedAt: new Date(Date.UTC(2026, 0, 1, 10, seq, 30)).toISOString(),
      commit: "abc",
      exitCode,
      converged: exitCode ? 0 : 1,
      failed: exitCode ? 1 : 0,
      auditSeq: seq,
      changedBy: [],
    });
    const withApply = (a: ApplyRecord): StatusUpdate => ({
      deployment: { state: a.exitCode ? "failed" : "succeeded", applying: null, commit: "abc", last: null, lastApply: a },
    });
    const seen: string[] = [];
    for (const [trigger, code, seq] of [
      ["commit", 0, 1],
      ["commit", 1, 2],
      ["remediation", 0, 3],
      ["remediation", 1, 4],
    ] as const) {
      const a = apply(trigger, code, seq);
      seen.push(...kinds(t([], {}, withApply(a))));
      // The next tick still shows that apply as the last one: nothing new.
      expect(t([], {}, withApply(a))).toEqual([]);
    }
    expect(seen).toEqual(["apply.succeeded", "apply.failed", "remediation.applied", "remediation.failed"]);
  });

  it("announces nothing while an apply runs: the last apply's record is left as it was until the new one ends", () => {
    const board = new StatusBoard();
    const events: StackwardenEvent[] = [];
    notifyStatusChanges(board, { enqueue: (e) => events.push(e) });
    board.register("prod", { file: stack.file });
    const reporter = new StackStatusReporter(board, "prod", openMemoryState("events"));
    const record = (trigger: "commit" | "remediation", seq: number): ApplyRecord => ({
      trigger,
      startedAt: new Date(Date.UTC(2026, 0, 1, 10, seq)).toISOString(),
      finishedAt: new Date(Date.UTC(2026, 0, 1, 10, seq, 30)).toISOString(),
      commit: null,
      exitCode: 0,
      converged: 1,
      failed: 0,
      auditSeq: seq,
      changedBy: [],
    });
    reporter.applying("commit");
    reporter.applied(record("commit", 1));
    reporter.applying("remediation");
    expect(board.get("prod")!.deployment).toMatchObject({ state: "applying", applying: "remediation", lastApply: record("commit", 1) });
    expect(board.get("prod")!.condition).toMatchObject({ type: "Reconciling", reason: "Remediating" });
    reporter.applied(record("remediation", 2));
    expect(events.map((e) => e.type)).toEqual([EVENT_TYPES.applySucceeded, EVENT_TYPES.remediationApplied]);
    expect(board.get("prod")!.deployment).toMatchObject({ state: "none", applying: null, lastApply: record("remediation", 2) });
  });

  it("announces only this watcher's own applies: one by someone else shows in the deployment, not as an event", async () => {
    const { board, t } = await watched();
    const cli = { command: "apply", who: { claims: "decoded" as const, host: "ci-runner-12", appid: "app-of-the-pipeline" } };
    expect(t([], { auditThen: [cli] })).toEqual([]);
    expect(board.get("prod")!.deployment).toMatchObject({ state: "succeeded", last: { command: "apply", seq: 2 }, lastApply: null });
    expect(t([], { auditThen: [{ ...cli, exitCode: 1 }] })).toEqual([]);
    expect(board.get("prod")!.deployment).toMatchObject({ state: "failed", last: { command: "apply", exitCode: 1 } });
  });

  it("announces a probe failure once per episode, and a recovered lock once", async () => {
    const { board, t } = await watched();
    expect(kinds(t([], { probesFailing: true }))).toEqual(["probe.failed #1"]);
    expect(kinds(t([], { probesFailing: true }))).toEqual([]);
    expect(kinds(t([], { probesFailing: false }))).toEqual([]);
    expect(kinds(t([], { probesFailing: true }))).toEqual(["probe.failed #2"]);
    const recovered = { holder: LOCK_HOLDER, at: new Date(Date.UTC(2026, 0, 2)) };
    const events: StackwardenEvent[] = [];
    const stop = notifyStatusChanges(board, { enqueue: (e) => events.push(e) });
    board.update("prod", { lock: lockOf(undefined, recovered) });
    board.update("prod", { lock: lockOf(undefined, recovered) });
    stop();
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        EVENT_TYPES.lockRecovered,
        {
          stack: "prod",
          previousHolder: { pid: 4242, host: "build-7", command: "watch", since: "2026-01-01T10:00:00.000Z" },
          recoveredAt: "2026-01-02T00:00:00.000Z",
        },
      ],
    ]);
  });

  it("derives nothing when a stack is put on the board or taken off", async () => {
    const board = new StatusBoard();
    const s = board.register("x", { file: "f" });
    expect(eventsBetween(undefined, s, { incarnation: board.incarnation })).toEqual([]);
    expect(eventsBetween(s, undefined, { incarnation: board.incarnation })).toEqual([]);
  });

  it("gives the same ids when a watcher killed before it saved the status derives the change again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-events-ids-"));
    const first = await watched(dir);
    first.t(["billing"]);
    first.t([]);
    await first.board.flushed();
    // The store as it was before the next update: what a kill between enqueueing and saving leaves.
    const before = mkdtempSync(join(tmpdir(), "stackwarden-events-ids-copy-"));
    cpSync(dir, before, { recursive: true });
    const sent = first.t(["orders"], { probesFailing: true });
    expect(kinds(sent)).toEqual(["drift.detected #3", "finding.raised #4", "probe.failed #5"]);

    const again = await watched(before);
    // Ticks after the restart that change nothing announce nothing …
    again.board.update("prod", {
      condition: { type: "Reconciling", reason: "WaitingForLock", code: "SW_LOCK_HELD", message: "tick 2 failed and is retried: locked" },
    });
    expect(again.events).toEqual([]);
    // … and the same change gives the same ids, which the receiver has already seen.
    const resent = again.t(["orders"], { probesFailing: true });
    expect(resent.map((e) => e.id)).toEqual(sent.map((e) => e.id));
    // Another store (another incarnation) never reuses them.
    const other = await watched(mkdtempSync(join(tmpdir(), "stackwarden-events-ids-other-")));
    other.t(["billing"]);
    other.t([]);
    expect(other.t(["orders"], { probesFailing: true }).map((e) => e.id)).not.toEqual(sent.map((e) => e.id));
  });
});
