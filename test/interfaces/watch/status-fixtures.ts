import { mkdtempSync, writeFileSync } from "node:fs";
import { FileAuditLog } from "../../../src/platform/state/files/file-audit-log";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditEntry, AuditRecord } from "../../../src/domain/audit/audit-entry";
import type { ErrorCode } from "../../../src/platform/errors/error-codes";
import { chainEntry } from "../../../src/domain/audit/audit-chain";
import type { Finding } from "../../../src/domain/compliance/finding";
import type { ProbeResult } from "../../../src/domain/probes/probe-runner";
import type { LockHolder } from "../../../src/domain/reconcile/stack-lock";
import { decideAction, type TdePlanItem } from "../../../src/domain/reconcile/tde-plan";
import { parseStackConfig, type StackConfig } from "../../../src/domain/stack/stack-config";
import { sqlDatabaseId } from "../../../src/platform/arm/resource-id";
import type { StatusBoard, StatusUpdate } from "../../../src/interfaces/watch/status/status-board";
import { deploymentOf } from "../../../src/interfaces/watch/status/deployment-trail";
import type { ChangeAttribution } from "../../../src/domain/changes/change-record";
import { auditOf, conditionOf, driftOf, findingsOf, lockOf, probesOf } from "../../../src/interfaces/watch/status/status-parts";
import { inventoryOf } from "../../../src/interfaces/watch/status/database-inventory";
import { emptyFacts } from "../../../src/domain/facts/gather";
import { databasesRead, withCompliance } from "../../../src/usecases/watch-inventory";

// Status objects built the way the watcher builds them: a stack file parsed by the real parser (so
// drifted databases carry their real stack-file lines), plan items from it, findings as the rules
// phrase them, a real audit trail on disk (whose entries name a user and tenant id the status must
// drop), a lock holder and probe results.

export const SUB = "00000000-0000-0000-0000-000000000000";
/** An object id and tenant id that appear in the audit trail and must never appear in the status. */
export const PERSONAL_OID = "11111111-2222-3333-4444-555555555555";
export const PERSONAL_TID = "99999999-8888-7777-6666-555555555555";

/** A stack file with `databases`, each Enabled; parsed by the real parser. */
export function stackOf(name: string, databases: string[]): StackConfig {
  const text = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${databases
    .map((d) => `    - { resourceGroup: rg-data, server: sql-1, database: ${d}, transparentDataEncryption: Enabled }\n`)
    .join("")}`;
  return parseStackConfig(`stacks/Pulumi.${name}.yaml`, text, {});
}

/** Plan items of a stack whose databases named in `disabled` are live Disabled. */
export function planOf(stack: StackConfig, disabled: string[] = [], causes: Record<string, ChangeAttribution> = {}): TdePlanItem[] {
  return stack.databases.map((desired) => {
    const ref = { subscriptionId: SUB, resourceGroup: desired.resourceGroup, server: desired.server, database: desired.database };
    const live = disabled.includes(desired.database) ? "Disabled" : "Enabled";
    const cause = causes[desired.database];
    return {
      desired,
      ref,
      id: sqlDatabaseId(ref),
      live,
      action: decideAction(live, desired.transparentDataEncryption),
      ...(cause ? { cause } : {}),
    };
  });
}

/** The findings `check` gives for that plan: sql-tde-enabled fails for each disabled database, plus `extra`. */
export function findingsFor(stack: StackConfig, plan: TdePlanItem[], extra: Finding[] = []): Finding[] {
  return [
    ...plan.map((i): Finding => ({
      ruleId: "sql-tde-enabled",
      resourceId: i.id,
      label: `${i.ref.resourceGroup}/${i.ref.server}/${i.ref.database}`,
      verdict: i.live === "Enabled" ? "pass" : "fail",
      level: "mandatory",
      message:
        i.live === "Enabled"
          ? "TDE is Enabled"
          : `database ${i.ref.database} must have transparent data encryption Enabled (live: ${i.live})`,
      source: i.desired.source,
    })),
    ...extra,
  ];
}

/**
 * A real audit trail with `n` entries (each naming a user oid and tenant id) in `<dir>/<stack>.jsonl`,
 * chained as `apply` chains them: the watcher's applies and repairs by turns, then one entry per
 * `then` (each field given replaces the turn's: a CLI apply from a pipeline's host, an evidence anchor …).
 */
export function auditEntries(
  stack: string,
  n: number,
  dir = mkdtempSync(join(tmpdir(), "stackwarden-status-audit-")),
  then: Partial<AuditRecord>[] = [],
): AuditEntry[] {
  const entries: AuditEntry[] = [];
  const lines: string[] = [];
  for (let i = 0; i < n + then.length; i++) {
    const previous = lines.length ? { line: lines[lines.length - 1], seq: entries[entries.length - 1].seq } : undefined;
    const { entry, line } = chainEntry(
      {
        at: new Date(Date.UTC(2026, 0, 1, 10, i)).toISOString(),
        stack,
        command: i % 2 ? "remediate" : "watch",
        who: { tid: PERSONAL_TID, oid: PERSONAL_OID, appid: "04b07795-8ddb-461a-bbee-02f9e1bf7b46", claims: "decoded", host: "build-7" },
        what: [
          {
            resource: sqlDatabaseId({ subscriptionId: SUB, resourceGroup: "rg-data", server: "sql-1", database: "orders" }),
            before: "Disabled",
            after: "Enabled",
            outcome: "converged",
          },
        ],
        commit: "0123456789abcdef0123456789abcdef01234567",
        exitCode: 0,
        ...(i >= n ? then[i - n] : {}),
      },
      previous,
    );
    entries.push(entry);
    lines.push(line);
  }
  writeFileSync(new FileAuditLog(dir).where(stack), lines.map((l) => `${l}\n`).join(""));
  return entries;
}

export const LOCK_HOLDER: LockHolder = { pid: 4242, host: "build-7", since: "2026-01-01T10:00:00.000Z", command: "watch", stack: "x" };

export function probeResults(failing: boolean): ProbeResult[] {
  return [
    {
      name: "health-policy",
      issuer: "newindia",
      doctype: "hlipc",
      format: "pdf",
      outcome: "passed",
      latencyMs: 41,
      status: 200,
      size: 2048,
      sha256: "ab".repeat(32),
    },
    failing
      ? {
          name: "school-cert",
          issuer: "mbose",
          doctype: "hscer",
          format: "xml",
          outcome: "failed",
          latencyMs: 12,
          status: 404,
          error: { code: "record_not_found", message: "the issuer has no such record" },
        }
      : { name: "school-cert", issuer: "mbose", doctype: "hscer", format: "xml", outcome: "passed", latencyMs: 15, status: 200 },
  ];
}

export interface TickShape {
  stack: StackConfig;
  disabled?: string[];
  /** Who changed a disabled database (by database name), as a change record names them. */
  causes?: Record<string, ChangeAttribution>;
  tick: number;
  commitSubject?: string;
  extraFindings?: Finding[];
  probesFailing?: boolean;
  lockHeld?: boolean;
  auditCount?: number;
  /** Entries appended after the `auditCount` ones (see auditEntries). */
  auditThen?: Partial<AuditRecord>[];
  failed?: string;
  /** The failure's stable code (default: none known). */
  errorCode?: ErrorCode;
  consecutiveFailures?: number;
  at?: Date;
}

/** The update a tick of that shape gives, built by the status-parts builders (as the watcher does). */
export function tickUpdate(t: TickShape): StatusUpdate {
  const at = t.at ?? new Date();
  const plan = planOf(t.stack, t.disabled, t.causes);
  const drift = driftOf(plan, at);
  const findings = findingsOf(findingsFor(t.stack, plan, t.extraFindings), at);
  const lastTick = {
    number: t.tick,
    commit: "0123456789abcdef0123456789abcdef01234567",
    commitSubject: t.commitSubject ?? "Enable TDE on orders",
    outcome: t.failed ? ("failed" as const) : ("succeeded" as const),
    error: t.failed ?? null,
    errorCode: t.failed ? (t.errorCode ?? null) : null,
    startedAt: new Date(at.getTime() - 1234).toISOString(),
    finishedAt: at.toISOString(),
    durationMs: 1234,
    consecutiveFailures: t.failed ? (t.consecutiveFailures ?? 1) : 0,
  };
  const trail = auditEntries(t.stack.file, t.auditCount ?? 2, undefined, t.auditThen);
  const deployment = deploymentOf(trail, { state: "none", applying: null, commit: null, last: null, lastApply: null });
  return {
    drift,
    findings,
    lastTick,
    deployment,
    nextTickAt: new Date(at.getTime() + 300_000).toISOString(),
    lock: lockOf(t.lockHeld ? LOCK_HOLDER : undefined),
    probes: probesOf(probeResults(t.probesFailing ?? false), at),
    audit: auditOf(trail),
    condition: conditionOf({ deployment, lastTick, drift, findings }),
  };
}

/** Registers `name` on the board and applies one tick of that shape. */
export function feed(board: StatusBoard, name: string, t: Omit<TickShape, "stack"> & { databases?: string[] }): void {
  const stack = stackOf(name, t.databases ?? ["orders", "billing", "ledger"]);
  board.register(name, { file: stack.file, schedule: "every 5m" });
  if (!t.failed) {
    // The stack's databases, kept as the watcher's reporter keeps them before the tick's update.
    const items = planOf(stack, t.disabled, t.causes);
    const facts = { ...emptyFacts(SUB), databases: items.map((i) => ({ id: i.id, ...i.ref, liveTdeStatus: i.live })) };
    const read = databasesRead({ stack, facts, items, remaining: items.filter((i) => i.action !== "none") });
    board.keepDatabases(
      name,
      inventoryOf(withCompliance(read, findingsFor(stack, items, t.extraFindings)), (t.at ?? new Date()).toISOString()),
    );
  }
  board.update(name, tickUpdate({ ...t, stack }));
}
