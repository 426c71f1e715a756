import { evaluateCompliance } from "../src/domain/compliance/evaluate";
import { resolveRuleSettings } from "../src/domain/compliance/rule-settings";
import { emptyFacts } from "../src/domain/facts/gather";
import { decideAction, type TdePlanItem } from "../src/domain/reconcile/tde-plan";
import { parseStackConfig } from "../src/domain/stack/stack-config";
import type { StatusBoard } from "../src/interfaces/watch/status/status-board";
import { conditionOf, driftOf, findingsOf } from "../src/interfaces/watch/status/status-parts";
import { inventoryOf } from "../src/interfaces/watch/status/database-inventory";
import { databasesRead, withCompliance } from "../src/usecases/watch-inventory";
import { sqlDatabaseId } from "../src/platform/arm/resource-id";

/**
 * The status page bench's fleet: BENCH_PAGE_STACKS stacks (default 100) of BENCH_PAGE_DATABASES
 * databases each (default 100), BENCH_PAGE_DRIFTED of each drifted (default 10: 1,000 in all), each
 * drifted database a change a person made (a caller, a time, an operation).
 */
export const STACKS = Number(process.env.BENCH_PAGE_STACKS ?? 100);
export const DATABASES = Number(process.env.BENCH_PAGE_DATABASES ?? 100);
export const DRIFTED = Number(process.env.BENCH_PAGE_DRIFTED ?? 10);
const SUB = "00000000-0000-0000-0000-000000000000";

/** Feeds stack number `s` to the board as the watcher would after a tick at `at`: DRIFTED of its databases changed by a person. */
export function feedStack(board: StatusBoard, s: number, at: Date): void {
  const name = `stack-${String(s).padStart(3, "0")}`;
  const text = `config:\n  stackwarden:subscriptionId: ${SUB}\n  stackwarden:databases:\n${Array.from(
    { length: DATABASES },
    (_, d) => `    - { resourceGroup: rg-${s}, server: sql-${s}, database: db-${d}, transparentDataEncryption: Enabled }\n`,
  ).join("")}`;
  const stack = parseStackConfig(`stacks/Pulumi.${name}.yaml`, text, {});
  const plan: TdePlanItem[] = stack.databases.map((desired, d) => {
    const ref = { subscriptionId: SUB, resourceGroup: desired.resourceGroup, server: desired.server, database: desired.database };
    const live = d < DRIFTED ? "Disabled" : "Enabled";
    const cause =
      d < DRIFTED
        ? {
            caller: `person-${d}@contoso.com`,
            at: new Date(at.getTime() - 60_000 * (d + 1)).toISOString(),
            operation: "Microsoft.Sql/servers/databases/transparentDataEncryption/write",
            source: "activity-log" as const,
            correlationId: `00000000-0000-0000-0000-${String(s * 1000 + d).padStart(12, "0")}`,
          }
        : undefined;
    return {
      desired,
      ref,
      id: sqlDatabaseId(ref),
      live,
      action: decideAction(live, desired.transparentDataEncryption),
      ...(cause ? { cause } : {}),
    };
  });
  const facts = {
    ...emptyFacts(SUB),
    databases: plan.map((p) => ({ id: p.id, ...p.ref, liveTdeStatus: p.live, source: p.desired.source })),
  };
  const result = evaluateCompliance(facts, resolveRuleSettings({}), [], at.getTime());
  const drift = driftOf(plan, at);
  const findings = findingsOf(result.findings, at);
  const lastTick = {
    number: 1,
    commit: null,
    commitSubject: null,
    outcome: "succeeded" as const,
    error: null,
    errorCode: null,
    startedAt: new Date(at.getTime() - 1000).toISOString(),
    finishedAt: at.toISOString(),
    durationMs: 1000,
    consecutiveFailures: 0,
  };
  const deployment = { state: "none" as const, applying: null, commit: null, last: null, lastApply: null };
  board.register(name, { file: stack.file, schedule: "every 1h" });
  // The stack's databases, as the watcher keeps them for its page's filter and pager.
  const read = databasesRead({ stack, facts, items: plan, remaining: plan.filter((p) => p.action !== "none") });
  board.keepDatabases(name, inventoryOf(withCompliance(read, result.findings), at.toISOString()));
  board.update(name, { drift, findings, lastTick, condition: conditionOf({ deployment, lastTick, drift, findings }) });
}
