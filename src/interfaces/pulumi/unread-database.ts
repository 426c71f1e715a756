import { databaseLabel, sqlDatabaseId } from "../../platform/arm/resource-id";
import { unreadEntryOf, unreadLine } from "../../domain/stack/unread-entry";
import { failedReadOf } from "../../platform/arm/failed-read";
import type { SourceLocation } from "../../platform/yaml/source-location";

/**
 * A provider's failed read of a database as every command says it: the cloud's answer about that
 * database (a 404: it has no such database) becomes one line at the stack file's entry (the
 * resource's `stackEntry` input, `stacks/Pulumi.dev.yaml:12:7`, when the program passed it), in
 * the words of `plan`, `check` and the rest; any other error is returned as it is.
 */
export function asUnreadDatabase(e: unknown, inputs: Record<string, unknown>): unknown {
  const failed = failedReadOf(e);
  if (!failed) return e;
  const { subscriptionId, resourceGroup, server, database } = inputs;
  if (![subscriptionId, resourceGroup, server, database].every((v) => typeof v === "string")) return e;
  const ref = { subscriptionId, resourceGroup, server, database } as Record<
    "subscriptionId" | "resourceGroup" | "server" | "database",
    string
  >;
  const entry = unreadEntryOf(failed, {
    kind: "database",
    id: sqlDatabaseId(ref),
    label: databaseLabel(ref),
    source: sourceOf(inputs.stackEntry),
  });
  return new Error(unreadLine(entry));
}

/** `file:line:column` back into a location (the file may hold colons). */
function sourceOf(v: unknown): SourceLocation | undefined {
  const m = typeof v === "string" ? /^(.+):(\d+):(\d+)$/.exec(v) : null;
  return m ? { file: m[1], line: Number(m[2]), column: Number(m[3]) } : undefined;
}
