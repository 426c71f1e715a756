import type { RuleDefinition } from "../compliance/rule";
import { databaseSubscription } from "../stack/stack-config";
import { listedInScope } from "../stack/stack-scope";
import type { ComplianceFacts } from "../facts/model/compliance-facts";
import { allFactKinds } from "../facts/registry";
import type { SubjectScope } from "../facts/subject-scope";
import type { DesiredDatabase, StackConfig } from "../stack/stack-config";
import type { ChangeAttribution } from "../changes/change-record";
import { changedSubjectOf, SCOPES_A_CHANGE_REACHES } from "./changed-subject";

/** What a targeted re-read reads and judges, for the changes of one batch. */
export interface RereadPlan {
  /** The stack narrowed to the databases the changes reach: every kind gathers for these only. */
  stack: StackConfig;
  /** The rules to judge again: those over a fact kind of a scope the changes reach. */
  rules: RuleDefinition<unknown>[];
  /** Who changed each database (lower-cased ARM id) the batch changed directly or through its server. */
  causes: Map<string, ChangeAttribution>;
  /**
   * Databases the stack does not list that changed in its scope's subscriptions and groups (lower-cased
   * ARM ids): created, written or deleted there. Whether each is in scope (tags) or gone takes a read
   * (the watcher's); those in scope are judged with the rest.
   */
  unlisted: string[];
}

/**
 * Plans the targeted re-read of a stack for a batch of changed resources (lower-cased ARM ids with
 * who changed them), generically over the subject scopes fact kinds declare: each change belongs
 * to a subject (changed-subject.ts); a database's change reaches that database, a server's the
 * stack's databases on it, a vault's or a key's the stack's servers (the protectors lead to them)
 * but only when the last facts judged that vault or key. The rules judged again are the enabled
 * ones over a kind of a reached scope; gathering for the narrowed stack reads only their subjects.
 * Undefined when no change reaches the stack.
 */
export function planReread(
  stack: StackConfig,
  changes: ReadonlyMap<string, ChangeAttribution>,
  rules: readonly RuleDefinition<unknown>[],
  lastFacts: ComplianceFacts | undefined,
): RereadPlan | undefined {
  const dbIds = stack.databases.map((d) => databaseIdOf(databaseSubscription(stack, d), d));
  const chosen = new Set<number>();
  const scopes = new Set<SubjectScope>();
  const causes = new Map<string, ChangeAttribution>();
  const serverOf = (i: number) => dbIds[i].slice(0, dbIds[i].lastIndexOf("/databases/"));
  const unlisted = new Set<string>();
  for (const [resourceId, cause] of changes) {
    const subject = changedSubjectOf(resourceId);
    if (!subject) continue;
    let reached: number[] = [];
    if (subject.scope === "database") reached = dbIds.flatMap((id, i) => (id === subject.id ? [i] : []));
    else if (subject.scope === "server") reached = dbIds.flatMap((_, i) => (serverOf(i) === subject.id ? [i] : []));
    else if (judged(lastFacts, subject.scope, subject.id)) reached = onePerServer(dbIds, serverOf);
    // A database the stack does not list, in its scope's subscriptions and groups: created or changed there.
    if (subject.scope === "database" && reached.length === 0 && inScopeGroups(stack, subject.id)) {
      unlisted.add(subject.id);
      causes.set(subject.id, cause);
      for (const s of SCOPES_A_CHANGE_REACHES.database) scopes.add(s);
      continue;
    }
    if (reached.length === 0) continue;
    for (const s of SCOPES_A_CHANGE_REACHES[subject.scope]) scopes.add(s);
    for (const i of reached) {
      chosen.add(i);
      if (subject.scope === "database" || subject.scope === "server") causes.set(dbIds[i], cause);
    }
  }
  if (chosen.size === 0 && unlisted.size === 0) return undefined;
  const kinds = new Set(
    allFactKinds()
      .filter((k) => scopes.has(k.scope))
      .map((k) => k.key),
  );
  return {
    stack: { ...stack, databases: stack.databases.filter((_, i) => chosen.has(i)) },
    rules: rules.filter((r) => r.facts.some((k) => kinds.has(k))),
    causes,
    unlisted: [...unlisted],
  };
}

/** Whether a database id (lower-cased) is in a subscription and resource group of the stack's scope (its tags are not known here). */
function inScopeGroups(stack: StackConfig, databaseId: string): boolean {
  const m = /^\/subscriptions\/([^/]+)\/resourcegroups\/([^/]+)\/providers\/microsoft\.sql\/servers\/[^/]+\/databases\/([^/]+)$/.exec(
    databaseId,
  );
  if (!stack.scope || !m || m[3] === "master") return false;
  return listedInScope(stack.scope, m[1], m[2]);
}

/** A database's ARM id, lower-cased, as change records are compared. */
export function databaseIdOf(subscriptionId: string, d: Pick<DesiredDatabase, "resourceGroup" | "server" | "database">): string {
  return `/subscriptions/${subscriptionId}/resourcegroups/${d.resourceGroup}/providers/microsoft.sql/servers/${d.server}/databases/${d.database}`.toLowerCase();
}

/** Whether the facts judged a subject of that scope with that id (or a version under it): a vault or key of the stack's protectors. */
function judged(facts: ComplianceFacts | undefined, scope: SubjectScope, id: string): boolean {
  // Before the first sweep there is nothing to tell by: read, to be safe.
  if (!facts) return true;
  return allFactKinds()
    .filter((k) => k.scope === scope)
    .some((k) =>
      ((facts as unknown as Record<string, { id?: unknown }[] | undefined>)[k.key] ?? []).some(
        (f) => typeof f.id === "string" && (f.id.toLowerCase() === id || f.id.toLowerCase().startsWith(`${id}/`)),
      ),
    );
}

/** The first database of each server: enough for the kinds of servers, vaults and keys to find theirs. */
function onePerServer(dbIds: readonly string[], serverOf: (i: number) => string): number[] {
  const seen = new Set<string>();
  return dbIds.flatMap((_, i) => (seen.has(serverOf(i)) ? [] : (seen.add(serverOf(i)), [i])));
}
