import { describe, expect, it } from "vitest";
import type { AuditActor, AuditChange } from "../../../src/domain/audit/audit-entry";
import { AuditTrail } from "../../../src/domain/audit/audit-trail";
import { runLockedApply } from "../../../src/domain/reconcile/locked-apply";
import { acquireStackLock } from "../../../src/domain/reconcile/stack-lock";
import type { AuditLog } from "../../../src/domain/state/state-ports";
import { StaticTokenCredential } from "../../../src/platform/auth/static-token-credential";
import { sqlDatabaseId } from "../../../src/platform/arm/resource-id";
import { openMemoryState } from "../../../src/platform/state/memory/memory-state";
import { breakLock } from "../../../src/usecases/lock";
import { StackStatusReporter } from "../../../src/interfaces/watch/stack-status-reporter";
import { readAuditTail } from "../../../src/interfaces/watch/status/audit-tail";
import { deploymentOf, isApplyEntry } from "../../../src/interfaces/watch/status/deployment-trail";
import type { DeploymentStatus } from "../../../src/interfaces/watch/status/stack-status";
import { StatusBoard } from "../../../src/interfaces/watch/status/status-board";
import { auditEntries, PERSONAL_OID, PERSONAL_TID, SUB } from "./status-fixtures";
import { expectValid } from "./status-schema";
import { thisProcess } from "../../../src/platform/process-identity";

// The deployment a watcher shows is the last apply on the stack's audit trail, whoever made it: the
// derivation over chained entries, then a trail written by the real writers (runLockedApply for a
// pipeline's CLI apply, a failed Pulumi-engine apply and a killed one; breakLock; an evidence anchor)
// read by the real status reporter, in the one read of the trail's end it makes per tick.

const NONE: DeploymentStatus = { state: "none", applying: null, commit: null, last: null, lastApply: null };
const C1 = "1111111111111111111111111111111111111111";
const C2 = "2222222222222222222222222222222222222222";
const EVIDENCE = { command: "evidence", what: [], evidence: { manifestSha256: "ab".repeat(32), files: 4 } };
const LOCK_BREAK = {
  command: "lock break",
  what: [],
  brokeLock: { pid: 7, host: "h", since: "2026-01-01T00:00:00.000Z", command: "apply" },
};

describe("deploymentOf", () => {
  it("no trail, or one with no apply: none", () => {
    expect(deploymentOf([], NONE)).toEqual(NONE);
    expect(deploymentOf(auditEntries("s", 0, undefined, [EVIDENCE, LOCK_BREAK]), NONE)).toEqual(NONE);
  });

  it("the last apply by anyone, with its actor, commit, outcome and time; the commit of the last that succeeded", () => {
    const trail = auditEntries("s", 2, undefined, [
      { command: "apply", commit: C1, who: { claims: "decoded", host: "ci-runner-12", appid: "pipeline-app", oid: PERSONAL_OID } },
      { command: "apply --engine pulumi", commit: C2, exitCode: 1, what: [] },
    ]);
    const d = deploymentOf(trail, NONE);
    expect(d).toMatchObject({ state: "failed", commit: C1, lastApply: null });
    expect(d.last).toMatchObject({ seq: 4, command: "apply --engine pulumi", commit: C2, exitCode: 1, outcome: "failed", at: trail[3].at });
    expect(deploymentOf(trail.slice(0, 3), NONE).last).toMatchObject({
      seq: 3,
      command: "apply",
      who: { host: "ci-runner-12", appId: "pipeline-app" },
      outcome: "succeeded",
    });
    expect(JSON.stringify(d)).not.toMatch(new RegExp(`${PERSONAL_OID}|${PERSONAL_TID}`));
  });

  it("skips evidence anchors and lock breaks after the last apply", () => {
    const trail = auditEntries("s", 1, undefined, [{ command: "remediate", commit: C1 }, EVIDENCE, LOCK_BREAK, EVIDENCE]);
    expect(trail.map(isApplyEntry)).toEqual([true, true, false, false, false]);
    expect(deploymentOf(trail, NONE)).toMatchObject({ state: "succeeded", commit: C1, last: { seq: 2, command: "remediate" } });
  });

  it("entries from the trail's end that hold no apply, with none seen before: unknown (one may lie further back)", () => {
    const trail = auditEntries("s", 1, undefined, [EVIDENCE, EVIDENCE, LOCK_BREAK]);
    expect(deploymentOf(trail.slice(1), NONE)).toMatchObject({ state: "unknown", last: null });
    expect(deploymentOf(trail, NONE)).toMatchObject({ state: "succeeded", last: { seq: 1 } });
  });

  it("an apply killed mid-way (its started entry: exit code null) is interrupted", () => {
    const trail = auditEntries("s", 1, undefined, [{ command: "apply", exitCode: null, phase: "started" }]);
    expect(deploymentOf(trail, NONE)).toMatchObject({ state: "interrupted", last: { outcome: "interrupted", exitCode: null } });
  });

  it("keeps what it knew when the entries read hold no apply, and this watcher's own last apply as it is", () => {
    const known = deploymentOf(auditEntries("s", 1, undefined, [{ command: "apply", commit: C1 }]), NONE);
    const own = {
      ...known,
      lastApply: {
        trigger: "remediation" as const,
        startedAt: "",
        finishedAt: "",
        commit: null,
        exitCode: 0,
        converged: 1,
        failed: 0,
        auditSeq: 1,
        changedBy: [],
      },
    };
    expect(deploymentOf(auditEntries("s", 0, undefined, [EVIDENCE, EVIDENCE]), own)).toEqual(own);
  });
});

/** An AuditLog that counts the calls that read it. */
function counted(log: AuditLog): { log: AuditLog; reads: { recent: number; read: number } } {
  const reads = { recent: 0, read: 0 };
  return {
    reads,
    log: new Proxy(log, {
      get(target, p, receiver) {
        if (p === "recent" || p === "read") reads[p]++;
        const v = Reflect.get(target, p, receiver) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    }),
  };
}

/** A JWT as Azure issues one (unsigned here: breakLock reads its claims, as every writer of the trail does). */
function jwt(claims: Record<string, string>): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.sig`;
}

describe("the deployment a watcher shows, from a trail its real writers wrote", () => {
  const db = sqlDatabaseId({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-1", database: "orders" });
  const converged: AuditChange = { resource: db, before: "Disabled", after: "Enabled", outcome: "converged" };
  const pipeline = async (): Promise<AuditActor> => ({
    claims: "decoded",
    host: "ci-runner-12",
    appid: "pipeline-app-id",
    oid: PERSONAL_OID,
    tid: PERSONAL_TID,
  });

  it("shows a pipeline's CLI apply, keeps it past a lock break and an evidence anchor, then a failed engine apply; one read of the trail per tick", async () => {
    const memory = openMemoryState("deployment");
    const { log, reads } = counted(memory.audit);
    const state = { ...memory, audit: log };
    const board = new StatusBoard();
    board.register("prod", { file: "stacks/Pulumi.prod.yaml" });
    const reporter = new StackStatusReporter(board, "prod", state);
    let n = 0;
    const tick = async () => {
      const before = { ...reads };
      await reporter.ticked({
        number: ++n,
        commit: null,
        commitSubject: null,
        startedAt: Date.now() - 10,
        finishedAt: Date.now(),
        outcome: "succeeded",
      });
      expect({ recent: reads.recent - before.recent, read: reads.read - before.read }).toEqual({ recent: 1, read: 0 });
      const s = board.get("prod")!;
      expectValid("StackStatus", s);
      return s;
    };
    expect((await tick()).deployment).toEqual(NONE);

    // A pipeline runs `stackwarden apply` (its credential: a service principal on a CI host).
    await runLockedApply(
      { state, stack: "prod", command: "apply", holderProcess: thisProcess(), commit: C1, actor: pipeline },
      async (_lock, started) => {
        await started([{ ...converged, outcome: "started" }]);
        return { what: [converged], exitCode: 0 };
      },
    );
    let s = await tick();
    expect(s.deployment).toMatchObject({
      state: "succeeded",
      commit: C1,
      last: {
        seq: 1,
        command: "apply",
        who: { host: "ci-runner-12", appId: "pipeline-app-id" },
        commit: C1,
        exitCode: 0,
        outcome: "succeeded",
      },
      lastApply: null,
    });
    expect(s.deployment.last!.what).toEqual({ changes: 1, outcomes: { converged: 1 }, resources: ["rg-data/sql-1/orders"] });
    expect(JSON.stringify(s)).not.toMatch(new RegExp(`${PERSONAL_OID}|${PERSONAL_TID}`));

    // Someone breaks a stuck lock, and an evidence bundle is anchored: neither is an apply.
    await acquireStackLock(state.locks, { stack: "prod", command: "apply", holderProcess: thisProcess() });
    const credential = new StaticTokenCredential(jwt({ appid: "operator-app", oid: PERSONAL_OID, tid: PERSONAL_TID }));
    expect((await breakLock({ state, stack: "prod", clients: { actor: { credential } } })).entry?.command).toBe("lock break");
    await new AuditTrail(state.audit, "prod").append({
      at: new Date().toISOString(),
      stack: "prod",
      command: "evidence",
      who: await pipeline(),
      what: [],
      commit: null,
      exitCode: 0,
      evidence: { manifestSha256: "cd".repeat(32), files: 3 },
    });
    s = await tick();
    expect(s.audit.last.map((e) => e.command)).toEqual(["evidence", "lock break", "apply"]);
    expect(s.deployment.last).toMatchObject({ seq: 1, command: "apply" });

    // An engine apply that fails is recorded with exit code 1 before its error is passed on.
    const failing = runLockedApply(
      { state, stack: "prod", command: "apply --engine pulumi", holderProcess: thisProcess(), commit: C2, actor: pipeline },
      () => {
        throw new Error("pulumi up failed");
      },
    );
    await expect(failing).rejects.toThrow("pulumi up failed");
    s = await tick();
    expect(s.deployment).toMatchObject({
      state: "failed",
      commit: C1,
      last: { seq: 4, command: "apply --engine pulumi", exitCode: 1, outcome: "failed" },
    });
    // Someone else's failed apply is not the watcher's condition.
    expect(s.condition).toMatchObject({ type: "Ready", reason: "Reconciled" });
  });

  it("an apply killed mid-way is on the trail as interrupted, and the next holder's apply is the last", async () => {
    const state = openMemoryState("killed");
    const board = new StatusBoard();
    board.register("prod", { file: "stacks/Pulumi.prod.yaml" });
    const reporter = new StackStatusReporter(board, "prod", state);
    // What a kill -9 after the first PUT and before the entry leaves: the pending record, no entry.
    await state.audit.writePending(
      "prod",
      JSON.stringify({
        applyId: "a-killed-apply",
        pid: 4242,
        record: {
          at: "2026-01-01T10:00:00.000Z",
          stack: "prod",
          command: "apply",
          who: await pipeline(),
          what: [{ ...converged, outcome: "started" }],
          commit: C1,
          exitCode: null,
          phase: "started",
        },
      }),
    );
    await runLockedApply(
      { state, stack: "prod", command: "remediate", holderProcess: thisProcess(), commit: null, actor: pipeline },
      async () => ({
        what: [converged],
        exitCode: 0,
      }),
    );
    await reporter.ticked({
      number: 1,
      commit: null,
      commitSubject: null,
      startedAt: Date.now() - 10,
      finishedAt: Date.now(),
      outcome: "succeeded",
    });
    const s = board.get("prod")!;
    expect(s.audit.last.map((e) => [e.seq, e.command, e.exitCode])).toEqual([
      [2, "remediate", 0],
      [1, "apply", null],
    ]);
    // Read while the killed apply's entry was the last: interrupted.
    const entries = await readAuditTail(state.audit, "prod");
    expect(deploymentOf(entries.slice(0, 1), NONE)).toMatchObject({
      state: "interrupted",
      last: { seq: 1, command: "apply", outcome: "interrupted" },
    });
    expect(s.deployment).toMatchObject({ state: "succeeded", last: { seq: 2, command: "remediate", outcome: "succeeded" } });
  });
});
