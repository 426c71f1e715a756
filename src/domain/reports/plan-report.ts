import type { StackConfig } from "../stack/stack-config";
import { databaseLabel } from "../../platform/arm/resource-id";
import { unreadOfPlanError, type TdePlan, type TdePlanError, type TdePlanItem } from "../reconcile/tde-plan";
import { unreadLine, unreadProblem } from "../stack/unread-entry";
import type { ScopeSummary } from "./compliance-report";

export type PlanFormat = "table" | "json" | "markdown";

/** The JSON document `plan --output json` prints. */
export function planDocument(plan: TdePlan & { scope?: ScopeSummary }, stack: StackConfig, stackName: string) {
  const row = (i: TdePlanItem) => ({
    id: i.id,
    resourceGroup: i.ref.resourceGroup,
    server: i.ref.server,
    database: i.ref.database,
    live: i.live ?? null,
    desired: i.desired.transparentDataEncryption,
    action: i.action,
    ...(i.desired.source ? { line: i.desired.source.line } : {}),
  });
  const errorRow = (e: TdePlanError) => ({
    id: e.id,
    resourceGroup: e.ref.resourceGroup,
    server: e.ref.server,
    database: e.ref.database,
    desired: e.desired.transparentDataEncryption,
    ...(e.desired.source ? { file: e.desired.source.file, line: e.desired.source.line, column: e.desired.source.column } : {}),
    status: e.status,
    code: e.code,
    message: planErrorProblem(e),
  });
  return {
    stack: stackName,
    file: stack.file,
    subscriptionId: stack.subscriptionId,
    summary: {
      databases: plan.items.length + plan.errors.length,
      toEnable: plan.changes.filter((c) => c.action === "enable").length,
      toDisable: plan.changes.filter((c) => c.action === "disable").length,
      unchanged: plan.items.length - plan.changes.length,
      errors: plan.errors.length,
    },
    changes: plan.changes.map(row),
    unchanged: plan.items.filter((i) => i.action === "none").map(row),
    errors: plan.errors.map(errorRow),
    ...(plan.held?.length ? { held: plan.held.map(row) } : {}),
    // As check's JSON: the databases in scope, listed and discovered, and how many fail (judged live).
    ...(plan.scope ? { coverage: plan.scope.counts } : {}),
  };
}

/** What went wrong with one database, in the words every command uses (unread-entry.ts). */
function planErrorProblem(e: TdePlanError): string {
  return unreadProblem(unreadOfPlanError(e));
}

/**
 * One line per database that could not be planned, at its stack-file position:
 * `stacks/Pulumi.dev.yaml:12:7: database rg/server/db: the cloud has no such database …`.
 */
export function planErrorLines(plan: TdePlan): string[] {
  return plan.errors.map((e) => unreadLine(unreadOfPlanError(e)));
}

/** Renders a plan for people (table), pipelines (json) or pull-request comments (markdown). */
export function renderPlan(plan: TdePlan & { scope?: ScopeSummary }, stack: StackConfig, stackName: string, format: PlanFormat): string {
  const doc = planDocument(plan, stack, stackName);
  if (format === "json") return JSON.stringify(doc, null, 2);
  const n = plan.changes.length;
  const nErr = plan.errors.length;
  const errs = nErr ? `, ${nErr} database${nErr === 1 ? "" : "s"} could not be read` : "";
  const head = `Plan for stack ${stackName} (${stack.file}): ${n === 0 ? "no changes" : `${n} change${n === 1 ? "" : "s"}`}, ${doc.summary.unchanged} unchanged${errs}`;
  if (format === "markdown") {
    const lines = [
      `### stackwarden plan: \`${stackName}\``,
      "",
      n === 0
        ? "No changes: live TDE matches the stack."
        : `**${n} change${n === 1 ? "" : "s"}** pending, ${doc.summary.unchanged} unchanged.`,
      ...(plan.scope ? ["", plan.scope.sentence] : []),
    ];
    if (n > 0) {
      lines.push("", "| database | live TDE | desired | action |", "|---|---|---|---|");
      for (const c of plan.changes)
        lines.push(`| \`${databaseLabel(c.ref)}\` | ${c.live ?? "(none)"} | ${c.desired.transparentDataEncryption} | ${c.action} |`);
    }
    if (plan.held?.length) {
      lines.push("", `**${plan.held.length} discovered database(s)** would change, not applied without \`scope.remediate\`:`, "");
      for (const c of plan.held)
        lines.push(`- \`${databaseLabel(c.ref)}\`: ${c.live ?? "(none)"} -> ${c.desired.transparentDataEncryption}`);
    }
    if (nErr > 0) {
      lines.push("", `**${nErr} database${nErr === 1 ? "" : "s"} could not be planned:**`, "");
      for (const l of planErrorLines(plan)) lines.push(`- ${l}`);
    }
    return lines.join("\n");
  }
  const lines = [head, ...(plan.scope ? [`  ${plan.scope.sentence}`] : [])];
  const width = Math.max(0, ...plan.items.map((i) => databaseLabel(i.ref).length));
  for (const i of plan.changes) {
    lines.push(`  ~ ${databaseLabel(i.ref).padEnd(width)}  TDE ${i.live ?? "(none)"} -> ${i.desired.transparentDataEncryption}`);
  }
  // Discovered databases apply will not write (no scope.remediate, or a scope exemption): what it would do, for review.
  for (const i of plan.held ?? []) {
    lines.push(
      `  ! ${databaseLabel(i.ref).padEnd(width)}  TDE ${i.live ?? "(none)"} -> ${i.desired.transparentDataEncryption}  (discovered in scope: apply leaves it, scope.remediate is off or a scope exemption covers it)`,
    );
  }
  return lines.join("\n");
}
