import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { FileAuditLog } from "../../../src/platform/state/files/file-audit-log";
import { FileDocumentStore } from "../../../src/platform/state/files/file-document-store";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { StatusBoard, type StatusChange } from "../../../src/interfaces/watch/status/status-board";
import { STATUS_API_SCHEMA } from "../../../src/interfaces/watch/status/status-schema";
import { StatusStore } from "../../../src/interfaces/watch/status/status-store";
import { conditionOf } from "../../../src/interfaces/watch/status/status-parts";
import {
  CONDITION_REASONS,
  CONDITION_TYPES,
  reasonOfFailure,
  STALLED_AFTER_FAILURES,
} from "../../../src/interfaces/watch/status/condition-reasons";
import { ERROR_CODES, type ErrorCode } from "../../../src/platform/errors/error-codes";
import { readAuditTail } from "../../../src/interfaces/watch/status/audit-tail";
import { auditEntries, feed, PERSONAL_OID, PERSONAL_TID, stackOf, tickUpdate } from "./status-fixtures";
import { expectValid, isValid } from "./status-schema";
import { deadPid } from "../../helpers/pids";

/** The watcher's status store in a directory, as `watch` keeps it with the default (file) state. */
const storeIn = (dir: string, warn?: (line: string) => void) => new StatusStore(new FileDocumentStore(dir), warn);

/** A clock the test moves. */
function clock(start = Date.UTC(2026, 0, 1, 12)) {
  let t = start;
  return { now: () => new Date(t), advance: (ms: number) => (t += ms) };
}

describe("StackStatus and its schema", () => {
  it("a status built from a real stack file, findings, trail, lock and probes is valid, with each drifted database at its line", () => {
    const board = new StatusBoard();
    feed(board, "prod", { tick: 1, disabled: ["billing"], lockHeld: true, probesFailing: true, auditCount: 7 });
    const s = board.get("prod")!;
    expectValid("StackStatus", s);
    expect(s.drift).toMatchObject({ state: "drifted", episode: 1 });
    expect(s.drift.resources).toEqual([
      expect.objectContaining({
        label: "rg-data/sql-1/billing",
        desired: "Enabled",
        live: "Disabled",
        source: { file: "stacks/Pulumi.prod.yaml", line: 5, column: 7 },
      }),
    ]);
    expect(s.findings).toMatchObject({ mandatory: 1, advisory: 0 });
    expect(s.findings.rules[0]).toMatchObject({ ruleId: "sql-tde-enabled", level: "mandatory", failing: 1 });
    expect(s.lock).toMatchObject({ state: "held", holder: { pid: 4242, host: "build-7", command: "watch" } });
    expect(s.probes).toMatchObject({ passed: 1, failed: 1 });
    expect(s.audit.head?.seq).toBe(7);
    expect(s.audit.last.map((e) => e.seq)).toEqual([7, 6, 5, 4, 3]);
    expect(s.audit.last[0]).toMatchObject({ who: { host: "build-7", appId: "04b07795-8ddb-461a-bbee-02f9e1bf7b46" }, exitCode: 0 });
    expect(s.audit.last[0].what).toEqual({ changes: 1, outcomes: { converged: 1 }, resources: ["rg-data/sql-1/orders"] });
  });

  it("holds no user or tenant id, and the schema names no secret-like field", () => {
    const board = new StatusBoard();
    feed(board, "prod", { tick: 1, disabled: ["billing"], auditCount: 3 });
    const text = JSON.stringify(board.list());
    expect(text).not.toContain(PERSONAL_OID);
    expect(text).not.toContain(PERSONAL_TID);
    const names: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object")
        for (const [k, child] of Object.entries(v)) {
          if (k === "properties" && child && typeof child === "object") names.push(...Object.keys(child));
          walk(child);
        }
    };
    walk(STATUS_API_SCHEMA);
    expect(names.length).toBeGreaterThan(50);
    expect(names.filter((n) => /token|secret|password|key|credential|parameter|oid|tid|email|claims/i.test(n))).toEqual([]);
  });

  it("the schema refuses a field it does not declare (a token slipped in), a bad condition, a missing key", () => {
    const board = new StatusBoard();
    feed(board, "prod", { tick: 1 });
    const s = structuredClone(board.get("prod")!);
    expect(isValid("StackStatus", s)).toBe(true);
    expect(isValid("StackStatus", { ...s, token: "abc" })).toBe(false);
    expect(isValid("StackStatus", { ...s, lock: { ...s.lock, holder: { ...s.lock.holder, token: "x" } } })).toBe(false);
    expect(isValid("StackStatus", { ...s, condition: { ...s.condition, type: "Healthy" } })).toBe(false);
    expect(isValid("StackStatus", { ...s, condition: { ...s.condition, reason: "not camel case" } })).toBe(false);
    const { drift: _drift, ...withoutDrift } = s;
    expect(isValid("StackStatus", withoutDrift)).toBe(false);
  });
});

describe("StatusBoard", () => {
  it("register puts a stack in its state before the first tick; update stamps generation, time and notifies", () => {
    const c = clock();
    const board = new StatusBoard({ now: c.now });
    const changes: StatusChange[] = [];
    board.subscribe((ch) => changes.push(ch));
    const first = board.register("prod", { file: "stacks/Pulumi.prod.yaml", schedule: "every 5m" });
    expectValid("StackStatus", first);
    expect(first).toMatchObject({
      generation: 0,
      condition: { type: "Reconciling", reason: "AwaitingFirstTick" },
      drift: { state: "unknown" },
    });
    expect(board.register("prod", { file: "stacks/Pulumi.prod.yaml" })).toBe(first); // no change, no notification
    c.advance(1000);
    const next = board.update("prod", tickUpdate({ stack: stackOf("prod", ["orders"]), tick: 1, at: c.now() }));
    expect(next.generation).toBe(1);
    expect(next.updatedAt).toBe(c.now().toISOString());
    expect(next.condition).toMatchObject({ type: "Ready", reason: "Reconciled", lastTransitionTime: c.now().toISOString() });
    expect(changes.map((ch) => [ch.name, ch.previous?.generation, ch.current?.generation, ch.revision])).toEqual([
      ["prod", undefined, 0, 1],
      ["prod", 0, 1, 2],
    ]);
    expect(board.revision).toBe(2);
    expect(Object.isFrozen(next) && Object.isFrozen(next.drift.resources)).toBe(true);
    expect(() => board.update("nope", {})).toThrow(/stack nope is not on the status board/);
  });

  it("keeps a condition's transition time while its type and reason hold, and moves it when they change", () => {
    const c = clock();
    const board = new StatusBoard({ now: c.now });
    board.register("s", { file: "f" });
    const ready = { type: "Ready" as const, reason: "Reconciled" as const, code: null, message: "tick 1" };
    const t1 = board.update("s", { condition: ready }).condition.lastTransitionTime;
    c.advance(60_000);
    expect(board.update("s", { condition: { ...ready, message: "tick 2" } }).condition.lastTransitionTime).toBe(t1);
    c.advance(60_000);
    const stalled = board.update("s", { condition: { type: "Stalled", reason: "TickFailing", code: "SW_THROTTLED", message: "x" } });
    expect(stalled.condition.lastTransitionTime).toBe(c.now().toISOString());
  });

  it("numbers episodes: a drift keeps its number and since while it lasts, a new one takes the next number", () => {
    const c = clock();
    const board = new StatusBoard({ now: c.now });
    const stack = stackOf("s", ["a", "b"]);
    board.register("s", { file: stack.file });
    const t = (tick: number, disabled: string[], probesFailing = false) => {
      c.advance(60_000);
      return board.update("s", tickUpdate({ stack, tick, disabled, probesFailing, at: c.now() }));
    };
    const d1 = t(1, ["a"]);
    expect(d1.drift).toMatchObject({ state: "drifted", episode: 1, since: c.now().toISOString() });
    const a1 = d1.findings.rules[0].findings.find((f) => f.label.endsWith("/a"))!;
    expect(a1.episode).toBe(2);
    const d2 = t(2, ["a", "b"]);
    expect(d2.drift).toMatchObject({ state: "drifted", episode: 1, since: d1.drift.since });
    expect(d2.findings.rules[0].findings.map((f) => [f.label, f.episode])).toEqual([
      ["rg-data/sql-1/a", 2],
      ["rg-data/sql-1/b", 3],
    ]);
    const d3 = t(3, [], true);
    expect(d3.drift).toMatchObject({ state: "in-sync", since: null, episode: 1 });
    expect(d3.findings.mandatory).toBe(0);
    expect(d3.probes.results.find((p) => p.outcome === "failed")!.episode).toBe(4);
    const d4 = t(4, ["b"], true);
    expect(d4.drift.episode).toBe(5);
    expect(d4.probes.results.find((p) => p.outcome === "failed")!.episode).toBe(4);
    expect(d4.episodes).toBe(6); // b's finding
  });

  it("a subscriber that throws is reported and does not stop the update or the other subscribers", () => {
    const warnings: string[] = [];
    const board = new StatusBoard({ warn: (l) => warnings.push(l) });
    let seen = 0;
    board.subscribe(() => {
      throw new Error("boom");
    });
    board.subscribe(() => seen++);
    board.register("s", { file: "f" });
    expect(seen).toBe(1);
    expect(warnings).toEqual(["status board: a subscriber failed on the change of s: boom"]);
  });

  it("with a store, a new board resumes each stack's status, generation, episodes and incarnation", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-status-store-"));
    const a = await StatusBoard.open({ store: storeIn(dir) });
    feed(a, "prod", { tick: 1, disabled: ["orders"] });
    feed(a, "dev", { tick: 1 });
    a.remove("dev");
    await a.flushed();
    // A kill between a temporary file's write and its rename leaves the temporary file: ignored and removed.
    writeFileSync(join(dir, "stacks", `prod.json.${deadPid()}.abcdef.tmp`), "{half");
    writeFileSync(join(dir, "stacks", "broken.json"), "{not json");
    const warnings: string[] = [];
    const b = await StatusBoard.open({ store: storeIn(dir, (l) => warnings.push(l)) });
    expect(b.incarnation).toBe(a.incarnation);
    expect(b.list().map((s) => s.name)).toEqual(["prod"]);
    expect(b.get("prod")).toEqual(a.get("prod"));
    expect(warnings).toEqual([expect.stringMatching(/skipping .*broken\.json/)]);
    expect(readdirSync(join(dir, "stacks")).sort()).toEqual(["broken.json", "prod.json"]);
    // The next tick after the restart continues the same episode: no new drift number.
    const next = b.update("prod", tickUpdate({ stack: stackOf("prod", ["orders", "billing", "ledger"]), tick: 2, disabled: ["orders"] }));
    expect(next.generation).toBe(a.get("prod")!.generation + 1);
    expect(next.drift.episode).toBe(1);
    expect(new StatusBoard().incarnation).not.toBe(a.incarnation);
  });

  it("a status stored before conditions and ticks carried codes is resumed with null codes, valid against the schema", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-status-store-"));
    const first = await StatusBoard.open({ store: storeIn(dir) });
    feed(first, "old", { tick: 3, failed: "boom" });
    await first.flushed();
    const file = join(dir, "stacks", "old.json");
    const stored = JSON.parse(readFileSync(file, "utf8")) as { condition: { code?: unknown }; lastTick: { errorCode?: unknown } };
    delete stored.condition.code;
    delete stored.lastTick.errorCode;
    writeFileSync(file, JSON.stringify(stored));
    const resumed = (await StatusBoard.open({ store: storeIn(dir) })).get("old")!;
    expectValid("StackStatus", resumed);
    expect([resumed.condition.code, resumed.lastTick!.errorCode]).toEqual([null, null]);
  });

  it("leaves alone the temporary file of another live watcher sharing the directory (it is being written)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-status-store-"));
    const first = await StatusBoard.open({ store: storeIn(dir) });
    feed(first, "us", { tick: 1 });
    await first.flushed();
    // The parent of this test process stands for a second watcher, alive and between write and rename.
    const inFlight = `nl.json.${process.ppid}.k3j4h5g6.tmp`;
    writeFileSync(join(dir, "stacks", inFlight), "{being written");
    const b = await StatusBoard.open({ store: storeIn(dir) });
    expect(b.list().map((s) => s.name)).toEqual(["us"]);
    expect(readdirSync(join(dir, "stacks")).sort()).toEqual([inFlight, "us.json"]);
  });
});

describe("conditionOf", () => {
  const stack = stackOf("s", ["a"]);
  const base = tickUpdate({ stack, tick: 4 });
  const of = (u: Partial<typeof base>) => conditionOf({ ...base, ...u } as never);
  const failed = (errorCode: ErrorCode | null, consecutiveFailures = 1) => ({
    lastTick: { ...base.lastTick!, outcome: "failed", error: "x", errorCode, consecutiveFailures },
  });
  const lastApply = (trigger: "commit" | "remediation") => ({
    trigger,
    startedAt: "",
    finishedAt: "",
    commit: null,
    exitCode: 1,
    converged: 0,
    failed: 2,
    auditSeq: 3,
    changedBy: [],
  });
  // One case (at least) per declared reason: the test below checks that none is left out.
  const cases = [
    ["no tick yet", { lastTick: null }, "Reconciling", "AwaitingFirstTick", null],
    ["a tick succeeded", {}, "Ready", "Reconciled", null],
    [
      "a failed apply by someone else (the trail's last apply, not the watcher's own)",
      { deployment: { state: "failed", commit: null, last: { command: "apply", exitCode: 1, outcome: "failed" }, lastApply: null } },
      "Ready",
      "Reconciled",
      null,
    ],
    [
      "an apply running",
      { deployment: { state: "applying", applying: "commit", commit: null, lastApply: null } },
      "Reconciling",
      "Applying",
      null,
    ],
    [
      "a repair running",
      { deployment: { state: "applying", applying: "remediation", commit: null, lastApply: lastApply("commit") } },
      "Reconciling",
      "Remediating",
      null,
    ],
    ["a lock held by another apply", failed("SW_LOCK_HELD"), "Reconciling", "WaitingForLock", "SW_LOCK_HELD"],
    ["a lock lost while held", failed("SW_LOCK_LOST"), "Reconciling", "WaitingForLock", "SW_LOCK_LOST"],
    ["still throttled after the retries", failed("SW_THROTTLED", 2), "Reconciling", "Throttled", "SW_THROTTLED"],
    ["an endpoint down", failed("SW_ENDPOINT_UNREACHABLE"), "Reconciling", "EndpointUnreachable", "SW_ENDPOINT_UNREACHABLE"],
    ["an endpoint too slow", failed("SW_TIMEOUT"), "Reconciling", "EndpointUnreachable", "SW_TIMEOUT"],
    ["a 5xx after the retries", failed("SW_SERVICE_ERROR"), "Reconciling", "ServiceError", "SW_SERVICE_ERROR"],
    ["a scan that failed", failed("SW_NOT_CONVERGED"), "Reconciling", "NotConverged", "SW_NOT_CONVERGED"],
    ["a git fetch that failed", failed("SW_GIT_FAILED"), "Reconciling", "RetryingAfterError", "SW_GIT_FAILED"],
    ["a failure of a status stored before codes", failed(null), "Reconciling", "RetryingAfterError", null],
    ["a transient failure, three times in a row", failed("SW_THROTTLED", 3), "Stalled", "TickFailing", "SW_THROTTLED"],
    ["an unknown failure, three times in a row", failed(null, 3), "Stalled", "TickFailing", null],
    ["an invalid stack file, the first time", failed("SW_CONFIG_INVALID"), "Stalled", "StackFileInvalid", "SW_CONFIG_INVALID"],
    ["a stack file gone", failed("SW_STACK_NOT_FOUND"), "Stalled", "StackFileInvalid", "SW_STACK_NOT_FOUND"],
    ["a refused credential", failed("SW_ACCESS_DENIED"), "Stalled", "CredentialsRefused", "SW_ACCESS_DENIED"],
    ["no credential", failed("SW_CREDENTIAL_UNAVAILABLE"), "Stalled", "CredentialsRefused", "SW_CREDENTIAL_UNAVAILABLE"],
    ["the state's key refused", failed("SW_STATE_FORBIDDEN"), "Stalled", "CredentialsRefused", "SW_STATE_FORBIDDEN"],
    ["a database the cloud does not have", failed("SW_RESOURCE_NOT_FOUND"), "Stalled", "ResourceNotFound", "SW_RESOURCE_NOT_FOUND"],
    ["a damaged audit trail", failed("SW_AUDIT_TRAIL_DAMAGED"), "Stalled", "AuditTrailDamaged", "SW_AUDIT_TRAIL_DAMAGED"],
    ["a bad setting", failed("SW_SETTING_INVALID"), "Stalled", "NeedsAttention", "SW_SETTING_INVALID"],
    ["a bug", failed("SW_INTERNAL"), "Stalled", "NeedsAttention", "SW_INTERNAL"],
    ["a failed apply", { deployment: { state: "failed", commit: null, lastApply: lastApply("commit") } }, "Stalled", "ApplyFailed", null],
    [
      "a failed repair",
      { deployment: { state: "failed", commit: null, lastApply: lastApply("remediation") } },
      "Stalled",
      "RemediationFailed",
      null,
    ],
  ] as const;
  it.each(cases)("%s", (_name, u, type, reason, code) => {
    expect(of(u as never)).toMatchObject({ type, reason, code });
  });

  it("emits every declared reason, and declares every reason it emits (the schema lists the same)", () => {
    const declared = Object.keys(CONDITION_REASONS).sort();
    expect([...new Set(cases.map((c) => c[3]))].sort()).toEqual(declared);
    const schema = STATUS_API_SCHEMA as unknown as { definitions: { Condition: { properties: { reason: { enum: string[] } } } } };
    expect([...schema.definitions.Condition.properties.reason.enum].sort()).toEqual(declared);
    for (const [reason, info] of Object.entries(CONDITION_REASONS)) expect(CONDITION_TYPES, reason).toContain(info.condition);
  });

  it("types each reason as the catalogue types its codes: transient ones are retried, the others need a person", () => {
    const seen = new Set<string>();
    for (const [reason, info] of Object.entries(CONDITION_REASONS)) {
      expect(info.condition, reason).toBe(info.kind === "transient" ? "Reconciling" : info.kind === "stalled" ? "Stalled" : info.condition);
      for (const code of info.codes) {
        expect(seen.has(code), `${code} gives one reason only`).toBe(false);
        seen.add(code);
        expect(ERROR_CODES[code].retry, `${reason} from ${code}`).toBe(info.kind === "transient" ? "transient" : "person");
        expect(reasonOfFailure(code)).toBe(reason);
      }
    }
    // Codes no reason names fall back by their kind.
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[])
      if (!seen.has(code))
        expect(reasonOfFailure(code)).toBe(ERROR_CODES[code].retry === "person" ? "NeedsAttention" : "RetryingAfterError");
  });

  it("a failure that needs a person says so; a transient one says it is retried", () => {
    expect(of(failed("SW_CONFIG_INVALID") as never).message).toBe("tick 4 failed and needs a person (retrying will not help): x");
    expect(of(failed("SW_THROTTLED") as never).message).toBe("tick 4 failed and is retried: x");
    expect(of(failed("SW_THROTTLED", STALLED_AFTER_FAILURES) as never).message).toBe("3 ticks in a row failed: x");
  });
});

describe("readAuditTail", () => {
  it("reads the last entries of a stack's trail, oldest first; none when there is no trail", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stackwarden-audit-tail-"));
    const trails = new FileAuditLog(dir);
    expect(await readAuditTail(trails, "prod")).toEqual([]);
    const all = auditEntries("prod", 600, dir);
    expect(statSync(join(dir, "prod.jsonl")).size).toBeGreaterThan(256 * 1024); // more than the end that is read
    expect((await readAuditTail(trails, "prod")).map((e) => e.seq)).toEqual([596, 597, 598, 599, 600]);
    expect(await readAuditTail(trails, "prod", 2)).toEqual(all.slice(-2));
    writeFileSync(join(dir, "prod.jsonl"), `${JSON.stringify(all[0])}\n{"seq":2,"cut`);
    expect((await readAuditTail(trails, "prod")).map((e) => e.seq)).toEqual([1]);
  });
});
