import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openMemoryState } from "../../../src/platform/state/memory/memory-state";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import { StackStatusReporter } from "../../../src/interfaces/watch/stack-status-reporter";
import { fleetOf } from "../../../src/interfaces/watch/status/stack-answers";
import type { StackStatus } from "../../../src/interfaces/watch/status/stack-status";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { StatusStore } from "../../../src/interfaces/watch/status/status-store";
import { feed, findingsFor, planOf, stackOf } from "./status-fixtures";
import { expectValid } from "./status-schema";

// The two answers (sync, compliance) as the StatusBoard derives them on every update, from what the
// watcher's status reporter gives it tick by tick: known after a read, unknown before the first and
// after a tick that failed before reading (the drift and findings kept are then the last known),
// never settable by hand; and the fleet's counts of them.

const T0 = Date.UTC(2026, 0, 1, 12);
const stack = stackOf("prod", ["orders", "billing"]);

/** A board with "prod" on it and a real status reporter (memory state: no lock, probes or trail) whose ticks end at T0 + n minutes. */
function watched() {
  const board = new StatusBoard();
  board.register("prod", { file: stack.file });
  const reporter = new StackStatusReporter(board, "prod", openMemoryState("answers"));
  let n = 0;
  const at = () => T0 + n * 60_000;
  const tick = async (t: { disabled?: string[]; advisory?: boolean; failed?: "SW_THROTTLED"; interrupted?: boolean }) => {
    n++;
    const plan = planOf(stack, t.disabled);
    const extra = t.advisory
      ? [
          {
            ruleId: "sql-tier-advisor-drift",
            resourceId: plan[0].id,
            label: "rg-data/sql-1/orders",
            verdict: "fail" as const,
            level: "advisory" as const,
            message: "x",
          },
        ]
      : [];
    const read = !t.failed && !t.interrupted;
    await reporter.ticked({
      number: n,
      commit: null,
      commitSubject: null,
      startedAt: at() - 1000,
      finishedAt: at(),
      outcome: t.failed ? "failed" : t.interrupted ? "interrupted" : "succeeded",
      ...(t.failed ? { error: "the SQL API answered 429 after the retries", errorCode: t.failed } : {}),
      ...(read ? { drift: plan, findings: findingsFor(stack, plan, extra) } : {}),
    });
    const s = board.get("prod")!;
    expectValid("StackStatus", s);
    return s;
  };
  return { board, tick };
}

const iso = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

describe("sync and compliance, derived by the board", () => {
  it("are unknown before live state was ever read", () => {
    const { board } = watched();
    expect(board.get("prod")).toMatchObject({
      sync: { state: "unknown", drifted: 0, checkedAt: null, message: "live state has not been read yet" },
      compliance: { state: "unknown", mandatory: 0, checkedAt: null, message: "the rules have not been checked yet" },
    });
  });

  it("say in sync and compliant, then drifted and non-compliant, as the reads say", async () => {
    const { tick } = watched();
    expect(await tick({})).toMatchObject({
      sync: { state: "in-sync", drifted: 0, checkedAt: iso(1), message: "every resource is as the stack file says" },
      compliance: { state: "compliant", mandatory: 0, checkedAt: iso(1), message: "no mandatory rule fails" },
    });
    const drifted = await tick({ disabled: ["billing"] });
    expect(drifted).toMatchObject({
      sync: { state: "drifted", drifted: 1, checkedAt: iso(2), message: "1 resource(s) differ from the stack file" },
      compliance: { state: "non-compliant", mandatory: 1, message: "1 mandatory violation(s) of the stack's rules" },
    });
    // The watcher did its work: Ready. That is its condition, not an answer about the stack.
    expect(drifted.condition).toMatchObject({ type: "Ready", reason: "Reconciled" });
  });

  it("an advisory finding leaves the stack compliant (said in the message)", async () => {
    const { tick } = watched();
    expect((await tick({ advisory: true })).compliance).toMatchObject({
      state: "compliant",
      mandatory: 0,
      message: "no mandatory rule fails; 1 advisory finding(s)",
    });
  });

  it("a tick that fails before reading makes both unknown, naming the tick, its code and what was last known; the next read answers again", async () => {
    const { tick } = watched();
    await tick({ disabled: ["billing"] });
    const failed = await tick({ failed: "SW_THROTTLED" });
    // The drift and findings are kept (emptied, they would be announced resolved) ...
    expect(failed.drift.state).toBe("drifted");
    expect(failed.findings.mandatory).toBe(1);
    // ... but they are the last known, not an answer for now.
    expect(failed.sync).toEqual({
      state: "unknown",
      drifted: 1,
      checkedAt: iso(1),
      message: `tick 2 (SW_THROTTLED) could not read live state; last read ${iso(1)}: 1 drifted`,
    });
    expect(failed.compliance).toEqual({
      state: "unknown",
      mandatory: 1,
      checkedAt: iso(1),
      message: `tick 2 (SW_THROTTLED) could not check the rules; last checked ${iso(1)}: 1 mandatory violation(s)`,
    });
    const again = await tick({});
    expect([again.sync.state, again.compliance.state]).toEqual(["in-sync", "compliant"]);
  });

  it("a tick interrupted by a shutdown leaves the last answers standing (it did not fail to read)", async () => {
    const { tick } = watched();
    await tick({ disabled: ["billing"] });
    const s = await tick({ interrupted: true });
    expect([s.sync.state, s.compliance.state]).toEqual(["drifted", "non-compliant"]);
  });

  it("cannot be set by hand: an update's answers are replaced by the derived ones", async () => {
    const { board, tick } = watched();
    await tick({ disabled: ["billing"] });
    const forged = { sync: { state: "in-sync", drifted: 0, checkedAt: null, message: "fine" } };
    const s = board.update("prod", forged as never);
    expect(s.sync.state).toBe("drifted");
  });

  it("come before the condition in the status's JSON", () => {
    const { board } = watched();
    const keys = Object.keys(JSON.parse(JSON.stringify(board.get("prod"))) as object);
    expect(keys.indexOf("sync")).toBe(keys.indexOf("condition") - 2);
    expect(keys.indexOf("compliance")).toBe(keys.indexOf("condition") - 1);
  });

  it("a status stored by an earlier version (no answers, no deployment from the trail) resumes with them derived, valid against the schema", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-status-store-"));
    const store = () => new StatusStore(new FileDocumentStore(dir));
    const first = await StatusBoard.open({ store: store() });
    feed(first, "old", { tick: 3, disabled: ["billing"] });
    await first.flushed();
    const file = join(dir, "stacks", "old.json");
    const stored = JSON.parse(readFileSync(file, "utf8")) as Partial<Omit<StackStatus, "deployment">> & { deployment: { last?: unknown } };
    delete stored.sync;
    delete stored.compliance;
    delete stored.deployment.last;
    writeFileSync(file, JSON.stringify(stored));
    const resumed = (await StatusBoard.open({ store: store() })).get("old")!;
    expectValid("StackStatus", resumed);
    expect(resumed).toMatchObject({
      sync: { state: "drifted", drifted: 1 },
      compliance: { state: "non-compliant" },
      deployment: { last: null },
    });
    const keys = Object.keys(resumed);
    expect(keys.indexOf("compliance")).toBe(keys.indexOf("condition") - 1);
  });
});

describe("fleetOf", () => {
  it("counts drifted, non-compliant, unknown and fine stacks, and the mandatory violations", () => {
    const board = new StatusBoard();
    feed(board, "a", { tick: 1, disabled: ["billing", "ledger"] });
    feed(board, "b", { tick: 1 });
    board.register("c", { file: "stacks/Pulumi.c.yaml" }); // never read: unknown on both
    expect(fleetOf(board.list())).toEqual({ stacks: 3, drifted: 1, nonCompliant: 1, unknown: 1, fine: 1, mandatory: 2 });
    expect(fleetOf([])).toEqual({ stacks: 0, drifted: 0, nonCompliant: 0, unknown: 0, fine: 0, mandatory: 0 });
  });
});
