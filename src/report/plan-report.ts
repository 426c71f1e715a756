import type { StackConfig } from "../config/stack-config";
import { databaseLabel } from "../arm/resource-id";
import type { TdePlan, TdePlanItem } from "../reconcile/tde-plan";

export type PlanFormat = "table" | "json" | "markdown";

/** The JSON document `plan --output json` prints. */
export function planDocument(plan: TdePlan, stack: StackConfig, stackName: string) {
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
  return {
    stack: stackName,
    file: stack.file,
    subscriptionId: stack.subscriptionId,
    summary: {
      databases: plan.items.length,
      toEnable: plan.changes.filter((c) => c.action === "enable").length,
      toDisable: plan.changes.filter((c) => c.action === "disable").length,
      unchanged: plan.items.length - plan.changes.length,
    },
    changes: plan.changes.map(row),
    unchanged: plan.items.filter((i) => i.action === "none").map(row),
  };
}

/** Renders a plan for people (table), pipelines (json) or pull-request comments (markdown). */
export function renderPlan(plan: TdePlan, stack: StackConfig, stackName: string, format: PlanFormat): string {
  const doc = planDocument(plan, stack, stackName);
  if (format === "json") return JSON.stringify(doc, null, 2);
  const n = plan.changes.length;
  const head = `Plan for stack ${stackName} (${stack.file}): ${n === 0 ? "no changes" : `${n} change${n === 1 ? "" : "s"}`}, ${doc.summary.unchanged} unchanged`;
  if (format === "markdown") {
    const lines = [
      `### stackwarden plan: \`${stackName}\``,
      "",
      n === 0
        ? "No changes: live TDE matches the stack."
        : `**${n} change${n === 1 ? "" : "s"}** pending, ${doc.summary.unchanged} unchanged.`,
    ];
    if (n > 0) {
      lines.push("", "| database | live TDE | desired | action |", "|---|---|---|---|");
      for (const c of plan.changes)
        lines.push(`| \`${databaseLabel(c.ref)}\` | ${c.live ?? "(none)"} | ${c.desired.transparentDataEncryption} | ${c.action} |`);
    }
    return lines.join("\n");
  }
  const lines = [head];
  const width = Math.max(0, ...plan.items.map((i) => databaseLabel(i.ref).length));
  for (const i of plan.changes) {
    lines.push(`  ~ ${databaseLabel(i.ref).padEnd(width)}  TDE ${i.live ?? "(none)"} -> ${i.desired.transparentDataEncryption}`);
  }
  return lines.join("\n");
}
