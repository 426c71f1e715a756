import type { ClientSet } from "../clients/client-set";
import { discoverDatabases } from "../domain/facts/discover-databases";
import { listedOnly, mayWrite, writableOnly } from "../domain/discovery/scope-coverage";
import { withDiscovered } from "../domain/stack/scope-discovered";
import { sqlTdeEnabled } from "../domain/compliance/rules/sql-tde-enabled";
import type { DesiredDatabase, StackConfig } from "../domain/stack/stack-config";
import type { UnreadEntry } from "../domain/stack/unread-entry";

/** A stack with its scope discovered, and the lists of the scope that could not be read. */
export interface ScopedStack {
  stack: StackConfig;
  /** A subscription, resource group or server whose list failed: what it holds is not judged (the run is incomplete). */
  unread: UnreadEntry[];
}

/**
 * The stack with every database of its `stackwarden:scope` (facts/discover-databases.ts, stack/scope-discovered.ts, discovery/scope-coverage.ts):
 * what check, drift and plan judge. A stack without a scope, or one discovered already, is returned as it is.
 */
export async function discoverScope(
  stack: StackConfig,
  clients: Pick<ClientSet, "reads">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ScopedStack> {
  if (!stack.scope || stack.coverage) return { stack, unread: [] };
  const found = await discoverDatabases(clients.reads, stack.scope, opts);
  return { stack: withDiscovered(stack, found), unread: found.unread };
}

/**
 * The stack `apply` and `watch --auto-remediate` may write to: the listed databases, and the
 * discovered ones only when the scope opts in (`scope.remediate`), but those a scope exemption
 * covers for the TDE rule. Without the opt-in nothing is discovered at all: a database the file
 * does not list is never written.
 */
export async function writableStack(
  stack: StackConfig,
  clients: Pick<ClientSet, "reads">,
  opts: { concurrency?: number; signal?: AbortSignal } = {},
): Promise<ScopedStack> {
  if (!stack.scope?.remediate) return { stack: listedOnly(stack), unread: [] };
  const scoped = await discoverScope(stack, clients, opts);
  return { ...scoped, stack: writableOnly(scoped.stack, sqlTdeEnabled.id, Date.now()) };
}

/** Whether an apply may write to this database of the stack (scope-coverage.ts `mayWrite`, judged by the TDE rule's exemptions). */
export function mayWriteDatabase(stack: StackConfig, d: DesiredDatabase): boolean {
  return mayWrite(stack, d, sqlTdeEnabled.id, Date.now());
}
