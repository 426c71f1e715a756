import type { Finding } from "../domain/compliance/finding";
import { databaseFactsIn } from "../domain/facts/tde-status";
import type { ComplianceFacts } from "../domain/facts/model/compliance-facts";
import type { TdePlanItem } from "../domain/reconcile/tde-plan";
import { databaseSubscription, type StackConfig } from "../domain/stack/stack-config";
import { databaseLabel, sqlDatabaseId } from "../platform/arm/resource-id";
import { UNKNOWN } from "../platform/unknown-value";

/**
 * One database a watcher knows of, listed in the stack file or discovered in its
 * `stackwarden:scope`: the stack's page filters and pages them. Its sync state comes from the
 * read, its compliance from the findings about it.
 */
export interface WatchedDatabase {
  /** The ARM id. */
  id: string;
  /** `rg/server/database`. */
  label: string;
  server: string;
  /** Found in `stackwarden:scope` and not listed. */
  discovered: boolean;
  desired: "Enabled" | "Disabled";
  /** Live TDE status as read; null when it could not be read. */
  live: string | null;
  /** `unknown`: its live state could not be read. */
  sync: "in-sync" | "drifted" | "unknown";
  /** `non-compliant`: a mandatory rule fails on it (exempt findings do not count); `unknown`: not read and no mandatory failure known. */
  compliance: "compliant" | "non-compliant" | "unknown";
  /** Failing mandatory and advisory findings about it. */
  mandatory: number;
  advisory: number;
}

/** A database's read state, before the findings are counted in. */
export type DatabaseRead = Omit<WatchedDatabase, "compliance" | "mandatory" | "advisory">;

/**
 * The databases one read covered (a sweep: the whole stack and its scope; a re-read: what its
 * changes reach), in the read's order. A database with an item of this read is drifted while the
 * read leaves it drifted (`remaining`: a repair that converged clears it); one without an item (a
 * discovered database a sweep judges but does not plan) is drifted when its live state differs
 * from the scope's.
 */
export function databasesRead(read: {
  stack: Pick<StackConfig, "databases" | "subscriptionId" | "scope">;
  facts: ComplianceFacts;
  items: readonly TdePlanItem[];
  remaining: readonly TdePlanItem[];
}): DatabaseRead[] {
  const desired = new Map(
    read.stack.databases.map((d) => [
      sqlDatabaseId({ ...d, subscriptionId: databaseSubscription(read.stack, d) }).toLowerCase(),
      { tde: d.transparentDataEncryption, discovered: d.discovered === true },
    ]),
  );
  const planned = new Set(read.items.map((i) => i.id.toLowerCase()));
  const drifted = new Set(read.remaining.map((i) => i.id.toLowerCase()));
  const scopeTde = read.stack.scope?.transparentDataEncryption;
  return databaseFactsIn(read.facts).flatMap((f): DatabaseRead[] => {
    const key = f.id.toLowerCase();
    const wanted = desired.get(key) ?? (scopeTde ? { tde: scopeTde, discovered: true } : undefined);
    if (!wanted) return [];
    const live = f.unread || f.liveTdeStatus === UNKNOWN || f.liveTdeStatus === undefined ? null : f.liveTdeStatus;
    const sync = live === null ? "unknown" : (planned.has(key) ? drifted.has(key) : live !== wanted.tde) ? "drifted" : ("in-sync" as const);
    return [
      {
        id: f.id,
        label: databaseLabel(f),
        server: f.server,
        discovered: wanted.discovered,
        desired: wanted.tde,
        live,
        sync,
      },
    ];
  });
}

/** The databases known before, with those of a newer read replacing theirs (by id) and new ones after them; `gone` ones dropped. */
export function mergedReads(kept: readonly DatabaseRead[], fresh: readonly DatabaseRead[], gone: readonly string[] = []): DatabaseRead[] {
  const byId = new Map(fresh.map((d) => [d.id.toLowerCase(), d]));
  const dropped = new Set(gone.map((g) => g.toLowerCase()));
  const out: DatabaseRead[] = [];
  for (const d of kept) {
    const key = d.id.toLowerCase();
    if (dropped.has(key)) continue;
    out.push(byId.get(key) ?? d);
    byId.delete(key);
  }
  for (const [key, d] of byId) if (!dropped.has(key)) out.push(d);
  return out;
}

/** Each database with the failing findings about it counted: what the page lists. */
export function withCompliance(reads: readonly DatabaseRead[], findings: readonly Finding[]): WatchedDatabase[] {
  const counts = new Map<string, { mandatory: number; advisory: number }>();
  for (const f of findings) {
    if (f.verdict !== "fail" || (f.level !== "mandatory" && f.level !== "advisory")) continue;
    const key = f.resourceId.toLowerCase();
    let c = counts.get(key);
    if (!c) counts.set(key, (c = { mandatory: 0, advisory: 0 }));
    c[f.level]++;
  }
  return reads.map((d) => {
    const c = counts.get(d.id.toLowerCase()) ?? { mandatory: 0, advisory: 0 };
    const compliance = c.mandatory > 0 ? "non-compliant" : d.sync === "unknown" ? "unknown" : "compliant";
    return { ...d, compliance, mandatory: c.mandatory, advisory: c.advisory };
  });
}
