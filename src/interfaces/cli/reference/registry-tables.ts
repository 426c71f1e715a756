import { allRules } from "../../../domain/compliance/registry";
import { ERROR_CODES } from "../../../platform/errors/error-codes";
import { ENVIRONMENT_GROUPS, ENVIRONMENT_VARIABLES, type EnvironmentGroup } from "../../../platform/settings/environment-variables";
import { CONDITION_REASONS } from "../../watch/status/condition-reasons";
import { WatchMetrics } from "../../watch/watch-metrics";
import { code, markdownTable } from "./markdown-table";

/** The error codes of `src/platform/errors/error-codes.ts`, in its order. */
export function errorCodeTable(): string {
  return markdownTable(
    ["code", "exit", "retrying helps", "what to do"],
    Object.entries(ERROR_CODES).map(([name, info]) => [
      code(name),
      String(info.exit),
      info.retry === "transient" ? "yes" : "no",
      info.action,
    ]),
  );
}

/** The watcher's condition reasons of `src/interfaces/watch/status/condition-reasons.ts`. */
export function conditionReasonTable(): string {
  return markdownTable(
    ["reason", "condition", "kind", "from the codes", "when"],
    Object.entries(CONDITION_REASONS).map(([reason, info]) => [
      code(reason),
      info.condition,
      info.kind,
      info.codes.length ? info.codes.map(code).join(", ") : "—",
      info.meaning,
    ]),
  );
}

/** The environment variables of `src/platform/settings/environment-variables.ts`, one table per group. */
export function environmentTables(): string {
  return (Object.entries(ENVIRONMENT_GROUPS) as [EnvironmentGroup, string][])
    .map(([group, title]) => {
      const rows = ENVIRONMENT_VARIABLES.filter((v) => v.group === group).map((v) => [
        v.names.map(code).join(", "),
        v.default,
        v.internal ? `${v.meaning} (set by stackwarden, not by hand)` : v.meaning,
      ]);
      return [`### ${title}`, "", markdownTable(["variable", "default", "what"], rows)].join("\n");
    })
    .join("\n\n");
}

/** The rules of the rule registry, in report order: id, default level, fact kinds, controls. */
export function ruleTable(): string {
  return markdownTable(
    ["rule", "default level", "facts", "requirement", "controls"],
    allRules().map((r) => [
      code(r.id),
      r.defaultLevel,
      r.facts.map(code).join(", "),
      r.title,
      (r.controls ?? []).map((c) => `${c.framework} ${c.id}`).join("; ") || "—",
    ]),
  );
}

/** The watcher's Prometheus metrics (`stackwarden_…`, not the process defaults), as `WatchMetrics` declares them. */
export async function metricTable(): Promise<string> {
  const metrics = new WatchMetrics();
  try {
    const declared = (await metrics.registry.getMetricsAsJSON()).filter((m) => m.name.startsWith("stackwarden_"));
    const labels = (name: string) => {
      const m = metrics.registry.getSingleMetric(name) as unknown as { labelNames?: readonly string[] } | undefined;
      return (m?.labelNames ?? []).map(code).join(", ");
    };
    return markdownTable(
      ["metric", "type", "labels", "what"],
      declared.map((m) => [code(m.name), String(m.type), labels(m.name), m.help]),
    );
  } finally {
    metrics.close();
  }
}
